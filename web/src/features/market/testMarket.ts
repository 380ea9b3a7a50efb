import type { Candle, FxPair, Price } from '@pipdesk/contract';
import { vi } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';

/**
 * A stand-in for the browser's WebSocket, installed as the global: records every socket the
 * code opens and what it sends, and lets a test open, message and close them.
 */
export class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static opened: FakeSocket[] = [];

  readyState = FakeSocket.CONNECTING;
  readonly sent: unknown[] = [];
  closedWith: number | undefined;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }

  static install(): void {
    FakeSocket.opened = [];
    vi.stubGlobal('WebSocket', FakeSocket);
  }

  static get last(): FakeSocket {
    const socket = FakeSocket.opened.at(-1);
    if (!socket) throw new Error('no socket was opened');
    return socket;
  }

  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }

  /** The code closing on purpose. */
  close(code = 1000): void {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.closedWith = code;
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.({ code } as CloseEvent);
  }

  /** The server accepting the connection. */
  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.(new Event('open'));
  }

  /** The server sending a message. */
  receive(message: unknown): void {
    this.onmessage?.({ data: JSON.stringify(message) } as MessageEvent);
  }

  /** The connection dropping without the code asking (server restart, network). */
  drop(code = 1006): void {
    this.readyState = FakeSocket.CLOSED;
    this.onerror?.(new Event('error'));
    this.onclose?.({ code } as CloseEvent);
  }
}

export function makePair(symbol: string, overrides: Partial<FxPair> = {}): FxPair {
  const jpy = symbol.endsWith('JPY');
  return {
    id: 1,
    symbol,
    name: `${symbol.slice(0, 3)} / ${symbol.slice(3)}`,
    base_currency: symbol.slice(0, 3),
    quote_currency: symbol.slice(3),
    min_lot_size: 0.01,
    max_lot_size: 100,
    contract_size: 100_000,
    spread: 1,
    pip_size: jpy ? 0.01 : 0.0001,
    digits: jpy ? 3 : 5,
    is_active: true,
    ...overrides,
  };
}

export const EURUSD = makePair('EURUSD', { id: 1, name: 'Euro / US Dollar' });
export const USDJPY = makePair('USDJPY', { id: 3, name: 'US Dollar / Japanese Yen' });

export function makePrice(bid: number, ask: number, timestamp = new Date().toISOString()): Price {
  const mid = (bid + ask) / 2;
  return { bid, ask, mid, price: mid, timestamp };
}

/** `count` one-minute candles ending with the minute of `end` (epoch ms). */
export function minuteCandles(count: number, end: number, step = 60_000): Candle[] {
  const last = Math.floor(end / step) * step;
  return Array.from({ length: count }, (_, i) => {
    const open = 1.08 + i * 0.0001;
    return {
      time: last - (count - 1 - i) * step,
      open,
      high: open + 0.0003,
      low: open - 0.0002,
      close: open + 0.0001,
      volume: 10 + i,
    };
  });
}

export interface MarketFixture {
  pairs?: FxPair[];
  prices?: Record<string, Price>;
  /** Candles per symbol and range; a missing range answers []. */
  charts?: Record<string, Partial<Record<string, Candle[]>>>;
}

/**
 * Answers the market calls on a FakeAuthServer from `fixture` (read at call time, so a test
 * can change it): pair/{symbol}/ (404 for an unknown pair), price/, chart-data/ by range,
 * and current-prices/.
 */
export function serveMarket(server: FakeAuthServer, fixture: MarketFixture): void {
  const unauthorized = { status: 401, body: { success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' } };
  const urlOfCurrentCall = () => new URL(String(server.fetch.mock.calls.at(-1)?.[0]), 'http://pipdesk.test');
  server.on('/api/trading/current-prices/', (_call, signedIn) =>
    signedIn ? { status: 200, body: { success: true, data: fixture.prices ?? {} } } : unauthorized,
  );
  const symbols = new Set([...(fixture.pairs ?? []).map((p) => p.symbol), 'XXXYYY']);
  for (const symbol of symbols) {
    const pair = fixture.pairs?.find((p) => p.symbol === symbol);
    const notFound = {
      status: 404,
      body: { success: false, error: `Currency pair ${symbol} not found`, code: 'PAIR_NOT_FOUND' },
    };
    server.on(`/api/trading/pair/${symbol}/`, (_call, signedIn) => {
      if (!signedIn) return unauthorized;
      if (!pair) return notFound;
      return { status: 200, body: { success: true, data: { pair, price: fixture.prices?.[symbol] ?? null } } };
    });
    server.on(`/api/trading/pair/${symbol}/price/`, (_call, signedIn) => {
      if (!signedIn) return unauthorized;
      const price = fixture.prices?.[symbol];
      return pair && price ? { status: 200, body: { success: true, data: price } } : notFound;
    });
    server.on(`/api/trading/pair/${symbol}/chart-data/`, (_call, signedIn) => {
      if (!signedIn) return unauthorized;
      if (!pair) return notFound;
      const range = urlOfCurrentCall().searchParams.get('range') ?? '1h';
      return { status: 200, body: { success: true, data: fixture.charts?.[symbol]?.[range] ?? [] } };
    });
  }
}

/** The ranges the app asked chart-data for, in order. */
export function chartRangesAsked(server: FakeAuthServer, symbol: string): Array<string | null> {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname === `/api/trading/pair/${symbol}/chart-data/`)
    .map((url) => url.searchParams.get('range'));
}
