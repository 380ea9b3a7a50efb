import {
  type Candle,
  PRICE_SOCKET_TIMEFRAME,
  type PriceUpdate,
  pricesClientCodec,
  pricesServerCodec,
  type SocketTimeframe,
} from '@pipdesk/contract';
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { tokenStore } from '../../api';

/** docs/screens.md#live-data-and-polling: the pair page's price connection comes back 3 s after an unexpected close. */
export const PRICE_SOCKET_RECONNECT_MS = 3_000;

/** `connecting` until the socket opens (and again while waiting to reconnect), `live` while open, `stopped` after `stop()`. */
export type PriceStreamStatus = 'connecting' | 'live' | 'stopped';

/** The latest quote of the pair from the socket. */
export type LivePrice = PriceUpdate;

export interface PriceStreamState {
  status: PriceStreamStatus;
  price: LivePrice | null;
  /** The server's price source is delivering (`external_feed_connected`), not yet known (null), or stopped. */
  feedConnected: boolean | null;
  /** The server's last `error` message, e.g. for an unknown pair. */
  lastError: string | null;
}

export interface PriceStreamOptions {
  /** Defaults to /ws/prices/ on this page's host, wss: under https:. */
  url?: string;
  reconnectDelayMs?: number;
  /**
   * A practice account of the trader: the socket signs in naming it before it subscribes, and then
   * carries that replay session's prices and candles, never the live market's
   * (docs/replay.md#the-price-socket-of-a-practice-account).
   */
  account?: number;
  /** The access token to sign in with (read on every open, so a reconnect takes the refreshed one). */
  token?: () => string | null;
}

/** The price socket's address: same origin, ws or wss as the page. */
export function priceSocketUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/prices/`;
}

/**
 * One pair's market data over /ws/prices/ (docs/api.md#price-socket). On every open it sends
 * `subscribe_prices` with the open time of the newest candle the chart holds, so after a
 * reconnect the server sends the closed candles missed meanwhile before the live ones.
 * It reconnects 3 s after any close it did not ask for, and never after `stop()`.
 * State (status, latest price) is observable with `subscribe`/`getState`, shaped for
 * React's useSyncExternalStore; candles go to `onChartUpdate` listeners.
 */
export class PriceStream {
  readonly symbol: string;
  private readonly url: string | undefined;
  private readonly reconnectDelayMs: number;
  private readonly account: number | undefined;
  private readonly token: () => string | null;
  private socket: WebSocket | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private lastChartTime: number | null = null;
  private timeframe: SocketTimeframe = PRICE_SOCKET_TIMEFRAME;
  private state: PriceStreamState = { status: 'stopped', price: null, feedConnected: null, lastError: null };
  private readonly listeners = new Set<() => void>();
  private readonly candleListeners = new Set<(candle: Candle) => void>();

  constructor(symbol: string, options: PriceStreamOptions = {}) {
    this.symbol = symbol.toUpperCase();
    this.url = options.url;
    this.reconnectDelayMs = options.reconnectDelayMs ?? PRICE_SOCKET_RECONNECT_MS;
    this.account = options.account;
    this.token = options.token ?? (() => null);
  }

  /** Signs the open socket in again with a refreshed token, so it is not closed when the old one expires. */
  reauthenticate(): void {
    const socket = this.socket;
    if (socket && socket.readyState === OPEN && this.account !== undefined) this.sendAuthenticate(socket);
  }

  private sendAuthenticate(socket: WebSocket): boolean {
    const token = this.token();
    if (!token) return false;
    socket.send(pricesClientCodec.encode('authenticate', { token, account: this.account }));
    return true;
  }

  /** Opens the connection (again, after a `stop()`). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  /** Closes on purpose: no reconnect follows. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) closeQuietly(socket);
    this.update({ status: 'stopped' });
  }

  getState = (): PriceStreamState => this.state;

  /** Called on every state change (status, price, feed, error). */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /**
   * Called with every `chart_update` candle of this pair in the timeframe subscribed now (the live
   * candle, and any missed closed ones); candles of a timeframe left behind are dropped.
   */
  onChartUpdate(listener: (candle: Candle) => void): () => void {
    this.candleListeners.add(listener);
    return () => this.candleListeners.delete(listener);
  }

  /** The open time (epoch ms) of the newest candle the chart holds, sent as `last_chart_time` on the next (re)connect. */
  setLastChartTime(time: number | null): void {
    this.lastChartTime = time;
  }

  /** The subscribed timeframe's socket name: the spec's '1m' and m1 are the same candles. */
  getTimeframe(): SocketTimeframe {
    return this.timeframe;
  }

  /**
   * Switches the candles `chart_update` carries to `timeframe` (DESIGN §18). The newest candle time
   * belongs to the old timeframe, so it is forgotten until the chart hands the new one. An open
   * socket unsubscribes and subscribes again: the server then starts the new timeframe's live candle.
   */
  setTimeframe(timeframe: SocketTimeframe): void {
    if (sameTimeframe(timeframe, this.timeframe)) return;
    this.timeframe = timeframe;
    this.lastChartTime = null;
    const socket = this.socket;
    if (socket && socket.readyState === OPEN) {
      socket.send(pricesClientCodec.encode('unsubscribe_prices', { symbol: this.symbol }));
      this.sendSubscribe(socket);
    }
  }

  private sendSubscribe(socket: WebSocket): void {
    socket.send(
      pricesClientCodec.encode('subscribe_prices', {
        symbol: this.symbol,
        timeframe: this.timeframe,
        last_chart_time: this.lastChartTime,
      }),
    );
  }

  private connect(): void {
    this.reconnectTimer = null;
    const socket = new WebSocket(this.url ?? priceSocketUrl());
    this.socket = socket;
    this.update({ status: 'connecting' });
    socket.onopen = () => {
      if (socket !== this.socket) return;
      // A practice account's socket subscribes only once signed in as it: never to the live market.
      if (this.account !== undefined && !this.sendAuthenticate(socket)) {
        console.warn(`Price socket (${this.symbol}): no token to follow account ${this.account}`);
        return;
      }
      this.sendSubscribe(socket);
      this.update({ status: 'live' });
    };
    socket.onmessage = (event: MessageEvent) => {
      if (socket === this.socket) this.receive(event.data);
    };
    socket.onclose = () => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (!this.running) return;
      this.update({ status: 'connecting' });
      this.reconnectTimer = setTimeout(() => this.connect(), this.reconnectDelayMs);
    };
    // The close event follows an error; reconnecting is its business. docs/screens.md#live-data-and-polling: socket errors are only logged.
    socket.onerror = () => console.warn(`Price socket error (${this.symbol})`);
  }

  private receive(data: unknown): void {
    const parsed = pricesServerCodec.decode(String(data));
    if (!parsed.ok) {
      console.warn(`Price socket: ${parsed.error}`);
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case 'price_update':
        if (message.symbol.toUpperCase() === this.symbol) {
          const { type: _type, ...price } = message;
          this.update({ price });
        }
        return;
      case 'chart_update':
        if (message.symbol.toUpperCase() === this.symbol && sameTimeframe(message.timeframe, this.timeframe))
          for (const listener of this.candleListeners) listener(message.candle);
        return;
      case 'external_feed_connected':
        this.update({ feedConnected: true });
        return;
      case 'external_feed_disconnected':
        this.update({ feedConnected: false });
        return;
      case 'error':
        console.warn(`Price socket: ${message.message}`);
        this.update({ lastError: message.message });
        return;
      case 'pong':
        return;
    }
  }

  private update(change: Partial<PriceStreamState>): void {
    const next = { ...this.state, ...change };
    if (
      next.status === this.state.status &&
      next.price === this.state.price &&
      next.feedConnected === this.state.feedConnected &&
      next.lastError === this.state.lastError
    )
      return;
    this.state = next;
    for (const listener of [...this.listeners]) listener();
  }
}

/** The spec's '1m' is the chart's m1. */
function sameTimeframe(a: SocketTimeframe, b: SocketTimeframe): boolean {
  const minute = (t: SocketTimeframe) => (t === PRICE_SOCKET_TIMEFRAME ? 'm1' : t);
  return minute(a) === minute(b);
}

/**
 * Closes without a reconnect and without the browser's "closed before the connection is
 * established" console error: a socket still connecting is closed as soon as it opens.
 */
// WebSocket's readyState values, spelled out so a stand-in socket need not carry the constants.
const CONNECTING = 0;
const OPEN = 1;

function closeQuietly(socket: WebSocket): void {
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
  if (socket.readyState === CONNECTING) socket.onopen = () => socket.close(1000);
  else {
    socket.onopen = null;
    if (socket.readyState === OPEN) socket.close(1000);
  }
}

/** The signed-in trader's access token (a practice account's socket signs in with it). */
const readAccessToken = (): string | null => tokenStore.read().access;

/**
 * The price socket of one pair while the calling component is mounted: opened on mount,
 * closed on purpose on unmount or when the symbol or the account changes. `options.account`: a
 * practice account's socket signs in with the stored token, and again whenever it is refreshed.
 * `null` symbol: no socket (an unknown pair, or still loading). Read it with `useLivePrice` / `usePriceStreamState`,
 * which re-render only their own component on a tick.
 */
export function usePriceStream(symbol: string | null, options?: Omit<PriceStreamOptions, 'token'>): PriceStream | null {
  const url = options?.url;
  const reconnectDelayMs = options?.reconnectDelayMs;
  const account = options?.account;
  const stream = useMemo(
    () => (symbol ? new PriceStream(symbol, { url, reconnectDelayMs, account, token: readAccessToken }) : null),
    [symbol, url, reconnectDelayMs, account],
  );
  useEffect(() => {
    stream?.start();
    const stopTokens =
      account === undefined
        ? undefined
        : tokenStore.subscribe((change) => {
            if (change.access) stream?.reauthenticate();
          });
    return () => {
      stopTokens?.();
      stream?.stop();
    };
  }, [stream, account]);
  return stream;
}

const noSubscription = () => () => {};
const STOPPED: PriceStreamState = { status: 'stopped', price: null, feedConnected: null, lastError: null };

/** The stream's whole state; re-renders on every tick. */
export function usePriceStreamState(stream: PriceStream | null): PriceStreamState {
  return useSyncExternalStore(stream?.subscribe ?? noSubscription, () => stream?.getState() ?? STOPPED);
}

/** The latest socket price of the pair, or null before the first one. */
export function useLivePrice(stream: PriceStream | null): LivePrice | null {
  return useSyncExternalStore(stream?.subscribe ?? noSubscription, () => stream?.getState().price ?? null);
}

/** The connection status alone: re-renders only when it changes, not on every tick. */
export function usePriceStreamStatus(stream: PriceStream | null): PriceStreamStatus {
  return useSyncExternalStore(stream?.subscribe ?? noSubscription, () => stream?.getState().status ?? 'stopped');
}
