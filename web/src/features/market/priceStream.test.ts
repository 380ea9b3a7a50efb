import type { Candle } from '@pipdesk/contract';
import { act, renderHook } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PRICE_SOCKET_RECONNECT_MS, PriceStream, priceSocketUrl, useLivePrice, usePriceStream } from './priceStream';
import { FakeSocket } from './testMarket';

const candle = (time: number, close = 1.0842): Candle => ({ time, open: 1.084, high: 1.0845, low: 1.0838, close, volume: 7 });

describe('PriceStream (the /ws/prices/ client)', () => {
  beforeEach(() => {
    FakeSocket.install();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });

  it('connects to /ws/prices/ on the same origin, ws under http and wss under https', () => {
    expect(priceSocketUrl({ protocol: 'http:', host: 'pipdesk.test:8080' })).toBe('ws://pipdesk.test:8080/ws/prices/');
    expect(priceSocketUrl({ protocol: 'https:', host: 'trade.example.com' })).toBe('wss://trade.example.com/ws/prices/');
    const stream = new PriceStream('eurusd');
    stream.start();
    expect(FakeSocket.last.url).toBe(`ws://${window.location.host}/ws/prices/`);
    stream.stop();
  });

  it('sends subscribe_prices with the symbol, timeframe 1m and last_chart_time when the socket opens', () => {
    const stream = new PriceStream('eurusd');
    stream.start();
    expect(FakeSocket.last.sent).toEqual([]);
    expect(stream.getState().status).toBe('connecting');
    FakeSocket.last.open();
    expect(FakeSocket.last.sent).toEqual([
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m', last_chart_time: null },
    ]);
    expect(stream.getState().status).toBe('live');
    stream.stop();
  });

  it('of a practice account: signs in naming it before subscribing, on every open and when the token is refreshed, and never subscribes without a token (docs/replay.md#the-price-socket-of-a-practice-account)', () => {
    let token: string | null = 'access-1';
    const stream = new PriceStream('EURUSD', { account: 12, token: () => token, reconnectDelayMs: 10 });
    stream.start();
    FakeSocket.last.open();
    expect(FakeSocket.last.sent).toEqual([
      { type: 'authenticate', token: 'access-1', account: 12 },
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m', last_chart_time: null },
    ]);
    token = 'access-2';
    stream.reauthenticate();
    expect(FakeSocket.last.sent.at(-1)).toEqual({ type: 'authenticate', token: 'access-2', account: 12 });
    stream.stop();

    token = null;
    const signedOut = new PriceStream('EURUSD', { account: 12, token: () => token });
    signedOut.start();
    FakeSocket.last.open();
    expect(FakeSocket.last.sent).toEqual([]);
    signedOut.stop();
  });

  it('keeps the latest price_update of its pair and ignores other pairs and malformed messages', () => {
    const stream = new PriceStream('EURUSD');
    const changes = vi.fn();
    stream.subscribe(changes);
    stream.start();
    const socket = FakeSocket.last;
    socket.open();
    socket.receive({ type: 'price_update', symbol: 'EURUSD', price: 1.08418, bid: 1.08412, ask: 1.08424, timestamp: 't1' });
    socket.receive({ type: 'price_update', symbol: 'GBPUSD', price: 1.26, bid: 1.2599, ask: 1.2601, timestamp: 't2' });
    socket.onmessage?.({ data: 'not json' } as MessageEvent);
    socket.receive({ type: 'price_update', symbol: 'EURUSD', bid: 'x' });
    expect(stream.getState().price).toEqual({ symbol: 'EURUSD', price: 1.08418, bid: 1.08412, ask: 1.08424, timestamp: 't1' });
    expect(changes).toHaveBeenCalled();
    stream.stop();
  });

  it('hands chart_update candles of its pair to the chart listeners, and reports the feed and errors', () => {
    const stream = new PriceStream('EURUSD');
    const candles: Candle[] = [];
    const unsubscribe = stream.onChartUpdate((c) => candles.push(c));
    stream.start();
    const socket = FakeSocket.last;
    socket.open();
    socket.receive({ type: 'external_feed_connected', source: 'simulator' });
    socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: '1m', candle: candle(60_000) });
    socket.receive({ type: 'chart_update', symbol: 'USDJPY', timeframe: '1m', candle: candle(60_000) });
    socket.receive({ type: 'error', message: 'Currency pair XXXYYY not found' });
    expect(candles).toEqual([candle(60_000)]);
    expect(stream.getState().feedConnected).toBe(true);
    expect(stream.getState().lastError).toBe('Currency pair XXXYYY not found');
    unsubscribe();
    socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: '1m', candle: candle(120_000) });
    expect(candles).toHaveLength(1);
    stream.stop();
  });

  it('reconnects 3 s after an unexpected close, asking for the candles missed since the newest one it has', () => {
    vi.useFakeTimers();
    const stream = new PriceStream('EURUSD');
    stream.start();
    FakeSocket.last.open();
    stream.setLastChartTime(1_700_000_040_000);
    FakeSocket.last.drop();
    expect(stream.getState().status).toBe('connecting');
    vi.advanceTimersByTime(PRICE_SOCKET_RECONNECT_MS - 1);
    expect(FakeSocket.opened).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.opened).toHaveLength(2);
    FakeSocket.last.open();
    expect(FakeSocket.last.sent).toEqual([
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m', last_chart_time: 1_700_000_040_000 },
    ]);
    expect(stream.getState().status).toBe('live');

    // A connection that fails again is tried again, every 3 s.
    FakeSocket.last.drop();
    vi.advanceTimersByTime(PRICE_SOCKET_RECONNECT_MS);
    FakeSocket.last.drop();
    vi.advanceTimersByTime(PRICE_SOCKET_RECONNECT_MS);
    expect(FakeSocket.opened).toHaveLength(4);
    stream.stop();
  });

  it('does not reconnect after stop(), neither from an open socket nor while waiting to reconnect', () => {
    vi.useFakeTimers();
    const stream = new PriceStream('EURUSD');
    stream.start();
    const first = FakeSocket.last;
    first.open();
    stream.stop();
    expect(first.closedWith).toBe(1000);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.opened).toHaveLength(1);
    expect(stream.getState().status).toBe('stopped');

    const other = new PriceStream('EURUSD');
    other.start();
    FakeSocket.last.drop();
    other.stop();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.opened).toHaveLength(2);
  });

  it('closes a socket still connecting as soon as it opens, without subscribing', () => {
    const stream = new PriceStream('EURUSD');
    stream.start();
    const socket = FakeSocket.last;
    stream.stop();
    expect(socket.closedWith).toBeUndefined();
    socket.open();
    expect(socket.closedWith).toBe(1000);
    expect(socket.sent).toEqual([]);
  });
});

describe('usePriceStream', () => {
  beforeEach(() => {
    FakeSocket.install();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });

  it('opens one socket on mount, shows live prices, and closes on unmount with no reconnect', () => {
    vi.useFakeTimers();
    const { result, unmount } = renderHook(() => {
      const stream = usePriceStream('EURUSD');
      return { stream, price: useLivePrice(stream) };
    });
    expect(FakeSocket.opened).toHaveLength(1);
    const socket = FakeSocket.last;
    act(() => socket.open());
    act(() =>
      socket.receive({ type: 'price_update', symbol: 'EURUSD', price: 1.08418, bid: 1.08412, ask: 1.08424, timestamp: 't' }),
    );
    expect(result.current.price?.bid).toBe(1.08412);

    unmount();
    expect(socket.closedWith).toBe(1000);
    vi.advanceTimersByTime(10 * PRICE_SOCKET_RECONNECT_MS);
    expect(FakeSocket.opened).toHaveLength(1);
  });

  it('opens no socket without a symbol, and a new one when the symbol changes', () => {
    const { rerender, unmount } = renderHook(({ symbol }: { symbol: string | null }) => usePriceStream(symbol), {
      initialProps: { symbol: null as string | null },
    });
    expect(FakeSocket.opened).toHaveLength(0);
    rerender({ symbol: 'EURUSD' });
    const first = FakeSocket.last;
    act(() => first.open());
    rerender({ symbol: 'USDJPY' });
    expect(first.closedWith).toBe(1000);
    act(() => FakeSocket.last.open());
    expect(FakeSocket.last.sent).toEqual([
      { type: 'subscribe_prices', symbol: 'USDJPY', timeframe: '1m', last_chart_time: null },
    ]);
    unmount();
  });
});
