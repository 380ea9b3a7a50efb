import type { TradingServerMessage } from '@pipdesk/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveTrading, PRICE_POLL_INTERVAL_MS } from './liveTrading';
import { FakeSocket, makePrices } from './testSupport';
import { TRADING_SOCKET_RULES, TradingSocket, tradingSocketUrl } from './tradingSocket';

const URL = 'ws://pipdesk.test/ws/trading/';

/** `random` picks the reconnect jitter; 0 keeps the plain 3 s of docs/screens.md#constants. */
function makeSocket(token: () => string | null = () => 'token-1', random: () => number = () => 0) {
  const connected: boolean[] = [];
  const messages: TradingServerMessage[] = [];
  const log = vi.fn();
  const onGiveUp = vi.fn();
  const socket = new TradingSocket({
    url: URL,
    token,
    onConnectedChange: (c) => connected.push(c),
    onMessage: (m) => messages.push(m),
    onGiveUp,
    createSocket: FakeSocket.create,
    log,
    random,
  });
  return { socket, connected, messages, log, onGiveUp };
}

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.reset();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('trading socket (docs/screens.md#live-data-and-polling)', () => {
  it('the rules are the spec constants', () => {
    expect(TRADING_SOCKET_RULES).toMatchObject({
      connectDelayMs: 100,
      pingIntervalMs: 30_000,
      reconnectDelayMs: 3_000,
      maxReconnects: 5,
      normalCloseCode: 1000,
    });
  });

  it('connects 100 ms after start, not before', () => {
    const { socket } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(99);
    expect(FakeSocket.instances).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(FakeSocket.last?.url).toBe(URL);
  });

  it('authenticates on open, is connected only on connection_established, then asks for positions and P&L', () => {
    const { socket, connected } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    const ws = FakeSocket.last!;
    ws.open();
    expect(ws.sent).toEqual([{ type: 'authenticate', token: 'token-1' }]);
    ws.receive({ type: 'auth_required' });
    expect(socket.connected).toBe(false);
    expect(connected).toEqual([]);

    ws.receive({ type: 'connection_established', user: { id: 1, email: 'demo@pipdesk.dev', full_name: 'Demo Trader' } });
    expect(socket.connected).toBe(true);
    expect(connected).toEqual([true]);
    expect(ws.sentTypes()).toEqual(['authenticate', 'get_positions_update', 'subscribe_to_pnl']);
  });

  it('pings every 30 s while connected, and stops when the connection ends', () => {
    const { socket } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    const ws = FakeSocket.last!;
    ws.establish();
    vi.advanceTimersByTime(29_999);
    expect(ws.sentTypes().filter((t) => t === 'ping')).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(ws.sentTypes().filter((t) => t === 'ping')).toHaveLength(1);
    vi.advanceTimersByTime(60_000);
    expect(ws.sentTypes().filter((t) => t === 'ping')).toHaveLength(3);
    socket.stop();
    vi.advanceTimersByTime(120_000);
    expect(ws.sentTypes().filter((t) => t === 'ping')).toHaveLength(3);
  });

  it('after an unexpected close tries again 3 s later, at most 5 times', () => {
    const { socket, log } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    for (let attempt = 1; attempt <= 5; attempt++) {
      FakeSocket.last!.serverClose(1006);
      vi.advanceTimersByTime(2_999);
      expect(FakeSocket.instances).toHaveLength(attempt);
      vi.advanceTimersByTime(1);
      expect(FakeSocket.instances).toHaveLength(attempt + 1);
      expect(socket.reconnectAttempts).toBe(attempt);
    }
    FakeSocket.last!.serverClose(1006);
    vi.advanceTimersByTime(10 * 60_000);
    expect(FakeSocket.instances).toHaveLength(6);
    expect(log).toHaveBeenCalledWith('gave up after 5 reconnect attempts');
  });

  it('adds a jitter of up to 1 s to the 3 s, so restarted clients do not all come back at once', () => {
    for (const [random, delay] of [
      [0.5, 3_500],
      [0.999, 3_999],
    ] as const) {
      FakeSocket.reset();
      const { socket } = makeSocket(undefined, () => random);
      socket.start();
      vi.advanceTimersByTime(100);
      FakeSocket.last!.serverClose(1006);
      vi.advanceTimersByTime(delay - 1);
      expect(FakeSocket.instances).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(FakeSocket.instances).toHaveLength(2);
      socket.stop();
    }
    expect(TRADING_SOCKET_RULES.reconnectJitterMs).toBe(1_000);
  });

  it('says when it gives up: the 5 attempts spent, or a normal close by the server', () => {
    const { socket, onGiveUp } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    for (let attempt = 1; attempt <= 5; attempt++) {
      FakeSocket.last!.serverClose(1006);
      vi.advanceTimersByTime(3_000);
    }
    expect(onGiveUp).not.toHaveBeenCalled();
    FakeSocket.last!.serverClose(1006);
    expect(onGiveUp).toHaveBeenCalledTimes(1);
    expect(socket.retryNow()).toBe(true);
    expect(socket.retryNow()).toBe(false);
    FakeSocket.last!.establish();
    FakeSocket.last!.serverClose(1000);
    expect(onGiveUp).toHaveBeenCalledTimes(2);
    // Our own stop is no giving up.
    expect(socket.retryNow()).toBe(true);
    socket.stop();
    expect(onGiveUp).toHaveBeenCalledTimes(2);
  });

  it('never reconnects after a normal close (code 1000)', () => {
    const { socket, connected } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    FakeSocket.last!.establish();
    FakeSocket.last!.serverClose(1000);
    expect(connected).toEqual([true, false]);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
  });

  it('a successful connection starts the count of attempts again', () => {
    const { socket } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    for (let i = 0; i < 4; i++) {
      FakeSocket.last!.serverClose(1006);
      vi.advanceTimersByTime(3_000);
    }
    expect(socket.reconnectAttempts).toBe(4);
    FakeSocket.last!.establish();
    expect(socket.reconnectAttempts).toBe(0);
    FakeSocket.last!.serverClose(4001);
    vi.advanceTimersByTime(3_000);
    expect(FakeSocket.instances).toHaveLength(6);
    expect(socket.reconnectAttempts).toBe(1);
  });

  it('reconnects with the token current at that moment', () => {
    let token = 'old';
    const { socket } = makeSocket(() => token);
    socket.start();
    vi.advanceTimersByTime(100);
    FakeSocket.last!.serverClose(4001);
    token = 'renewed';
    vi.advanceTimersByTime(3_000);
    FakeSocket.last!.open();
    expect(FakeSocket.last!.sent).toEqual([{ type: 'authenticate', token: 'renewed' }]);
  });

  it('stop() closes with code 1000 and cancels a pending attempt', () => {
    const { socket, connected } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    const ws = FakeSocket.last!;
    ws.establish();
    socket.stop();
    expect(ws.closedWith).toBe(1000);
    expect(connected).toEqual([true, false]);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(1);

    // Stopped during the 100 ms delay: nothing opens at all.
    const second = makeSocket();
    FakeSocket.reset();
    second.socket.start();
    second.socket.stop();
    vi.advanceTimersByTime(1_000);
    expect(FakeSocket.instances).toHaveLength(0);
  });

  it('after giving up, retryNow() (the browser is back online) starts a new round', () => {
    const { socket } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    for (let i = 0; i < 6; i++) {
      FakeSocket.last!.serverClose(1006);
      vi.advanceTimersByTime(3_000);
    }
    expect(FakeSocket.instances).toHaveLength(6);
    socket.retryNow();
    expect(FakeSocket.instances).toHaveLength(7);
    FakeSocket.last!.establish();
    expect(socket.connected).toBe(true);
  });

  it('only logs a malformed or unknown message, and passes valid ones on', () => {
    const { socket, messages, log } = makeSocket();
    socket.start();
    vi.advanceTimersByTime(100);
    const ws = FakeSocket.last!;
    ws.establish();
    ws.onmessage?.({ data: 'not json' } as MessageEvent);
    ws.receive({ type: 'no_such_type' });
    ws.receive({ type: 'pong' });
    expect(log).toHaveBeenCalledTimes(2);
    expect(messages.map((m) => m.type)).toEqual(['auth_required', 'connection_established', 'pong']);
  });

  it('re-sends the token when it is renewed', () => {
    let token = 'first';
    const { socket } = makeSocket(() => token);
    socket.start();
    vi.advanceTimersByTime(100);
    FakeSocket.last!.establish();
    token = 'second';
    socket.reauthenticate();
    expect(FakeSocket.last!.sent.at(-1)).toEqual({ type: 'authenticate', token: 'second' });
  });

  it('uses wss on https pages', () => {
    expect(tradingSocketUrl({ protocol: 'https:', host: 'pipdesk.example' })).toBe('wss://pipdesk.example/ws/trading/');
    expect(tradingSocketUrl({ protocol: 'http:', host: '127.0.0.1:8080' })).toBe('ws://127.0.0.1:8080/ws/trading/');
  });
});

describe('the account a trading socket serves (docs/accounts.md#the-trading-socket)', () => {
  function accountSocket(account: () => number | undefined) {
    const messages: TradingServerMessage[] = [];
    const socket = new TradingSocket({
      url: URL,
      token: () => 'token-1',
      account,
      onConnectedChange: () => {},
      onMessage: (m) => messages.push(m),
      createSocket: FakeSocket.create,
      log: vi.fn(),
      random: () => 0,
    });
    return { socket, messages };
  }

  it('authenticates for the selected account, and names none for the primary one', () => {
    let selected: number | undefined;
    const { socket } = accountSocket(() => selected);
    socket.start();
    vi.advanceTimersByTime(100);
    FakeSocket.last!.open();
    expect(FakeSocket.last!.sent[0]).toEqual({ type: 'authenticate', token: 'token-1' });
    selected = 2;
    socket.restart();
    vi.advanceTimersByTime(100);
    FakeSocket.last!.open();
    expect(FakeSocket.last!.sent[0]).toEqual({ type: 'authenticate', token: 'token-1', account: 2 });
  });

  it('switches by closing the old socket normally (1000) and opening one for the new account', () => {
    let selected: number | undefined = 2;
    const { socket, messages } = accountSocket(() => selected);
    socket.start();
    vi.advanceTimersByTime(100);
    const first = FakeSocket.last!;
    first.establish();
    selected = 3;
    socket.restart();
    expect(first.closedWith).toBe(1000);
    vi.advanceTimersByTime(100);
    expect(FakeSocket.instances).toHaveLength(2);
    const second = FakeSocket.last!;
    second.establish();
    expect(second.sent[0]).toEqual({ type: 'authenticate', token: 'token-1', account: 3 });
    // Not a reconnect after an outage: no third socket comes.
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(messages.filter((m) => m.type === 'connection_established')).toHaveLength(2);
  });

  it('re-sends a renewed token for the account it serves, and drops its messages once another is selected', () => {
    let selected: number | undefined = 2;
    const { socket, messages } = accountSocket(() => selected);
    socket.start();
    vi.advanceTimersByTime(100);
    const ws = FakeSocket.last!;
    ws.establish();
    selected = 3;
    socket.reauthenticate();
    expect(ws.sent.at(-1)).toEqual({ type: 'authenticate', token: 'token-1', account: 2 });
    ws.receive({ type: 'pong', timestamp: new Date().toISOString() });
    expect(messages.map((m) => m.type)).toEqual(['auth_required', 'connection_established']);
  });
});

describe('price polling while the trading socket is down (docs/screens.md#live-data-and-polling)', () => {
  function makeLive() {
    const fetchPrices = vi.fn(async () => makePrices({ EURUSD: 1.1 }, new Date().toISOString()));
    const live = new LiveTrading({
      socketUrl: URL,
      token: () => 't',
      fetchPrices,
      createSocket: FakeSocket.create,
      log: () => {},
      random: () => 0,
    });
    return { live, fetchPrices };
  }

  it('polls current-prices at once and every 5 s until connected, then stops', async () => {
    const { live, fetchPrices } = makeLive();
    expect(PRICE_POLL_INTERVAL_MS).toBe(5_000);
    live.start();
    expect(fetchPrices).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(fetchPrices).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchPrices).toHaveBeenCalledTimes(2);
    expect(live.isPolling).toBe(true);
    expect(live.prices.get('EURUSD')?.mid).toBe(1.1);

    FakeSocket.last!.establish();
    expect(live.isPolling).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchPrices).toHaveBeenCalledTimes(2);
    live.stop();
  });

  it('goes back to polling when the connection drops, and stops again once it is back', async () => {
    const { live, fetchPrices } = makeLive();
    live.start();
    await vi.advanceTimersByTimeAsync(100);
    FakeSocket.last!.establish();
    const before = fetchPrices.mock.calls.length;
    FakeSocket.last!.serverClose(1006);
    expect(live.isPolling).toBe(true);
    expect(fetchPrices).toHaveBeenCalledTimes(before + 1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fetchPrices).toHaveBeenCalledTimes(before + 2);
    // The reconnect (3 s after the close) has opened by now.
    FakeSocket.last!.establish();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(fetchPrices).toHaveBeenCalledTimes(before + 2);
    live.stop();
  });

  it('keeps polling every 5 s after the 5 reconnect attempts are spent', async () => {
    const { live, fetchPrices } = makeLive();
    live.start();
    await vi.advanceTimersByTimeAsync(100);
    for (let i = 0; i < 6; i++) {
      FakeSocket.last!.serverClose(1006);
      await vi.advanceTimersByTimeAsync(3_000);
    }
    const calls = fetchPrices.mock.calls.length;
    await vi.advanceTimersByTimeAsync(50_000);
    expect(fetchPrices).toHaveBeenCalledTimes(calls + 10);
    live.stop();
  });

  it('a price_update from the socket lands on the board, and an older poll answer does not undo it', async () => {
    const fetchPrices = vi.fn(async () => makePrices({ EURUSD: 1.1 }, '2026-04-01T12:00:00.000Z'));
    const live = new LiveTrading({
      socketUrl: URL,
      token: () => 't',
      fetchPrices,
      createSocket: FakeSocket.create,
      log: () => {},
    });
    live.start();
    await vi.advanceTimersByTimeAsync(100);
    FakeSocket.last!.establish();
    FakeSocket.last!.receive({
      type: 'price_update',
      symbol: 'EURUSD',
      price: 1.2,
      bid: 1.19994,
      ask: 1.20006,
      timestamp: '2026-04-01T12:00:05.000Z',
    });
    expect(live.prices.get('EURUSD')).toMatchObject({ mid: 1.2, bid: 1.19994, ask: 1.20006 });
    live.prices.applyAll(await fetchPrices());
    expect(live.prices.get('EURUSD')?.mid).toBe(1.2);
    live.stop();
  });

  it('does not stack polls behind a slow answer', async () => {
    let release: () => void = () => {};
    const fetchPrices = vi.fn(
      () =>
        new Promise<ReturnType<typeof makePrices>>((resolve) => {
          release = () => resolve(makePrices({ EURUSD: 1.1 }));
        }),
    );
    const live = new LiveTrading({
      socketUrl: URL,
      token: () => 't',
      fetchPrices,
      createSocket: FakeSocket.create,
      log: () => {},
    });
    live.start();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(fetchPrices).toHaveBeenCalledTimes(1);
    release();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fetchPrices).toHaveBeenCalledTimes(2);
    live.stop();
  });
});
