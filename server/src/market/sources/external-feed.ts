import WebSocket from 'ws';
import type { Clock } from '../../core/clock.js';
import { quoteFromBidAsk } from '../quotes.js';
import type { Pair, PriceSource, Quote } from '../types.js';
import { realTimers, type Timers } from './timers.js';

/**
 * Adapter for an external price feed speaking the JSON-over-WebSocket protocol described
 * in EXTERNAL_FEED.md: we subscribe on connect, take `tick` / `ticks` messages, reconnect
 * with exponential backoff, and count the feed as disconnected when no tick arrived for
 * `staleMs` (then the socket is dropped and dialled again: a silent TCP connection may be dead).
 */
export interface ExternalFeedOptions {
  url: string;
  pairs: readonly Pair[];
  clock: Clock;
  staleMs: number;
  timers?: Timers;
  /** First reconnect delay; doubles up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  log?: { warn(obj: unknown, msg?: string): void; info(obj: unknown, msg?: string): void };
}

interface FeedTick {
  symbol?: unknown;
  bid?: unknown;
  ask?: unknown;
}

export class ExternalFeedSource implements PriceSource {
  readonly name = 'external';
  private readonly timers: Timers;
  private readonly bySymbol: Map<string, Pair>;
  private socket: WebSocket | undefined;
  private emit: ((quote: Quote) => void) | undefined;
  private running = false;
  private attempt = 0;
  private reconnectTimer: unknown;
  private staleTimer: unknown;
  private lastTickAt: number | undefined;
  private openedAt: number | undefined;

  constructor(private readonly options: ExternalFeedOptions) {
    this.timers = options.timers ?? realTimers;
    this.bySymbol = new Map(options.pairs.map((p) => [p.symbol, p]));
  }

  async start(emit: (quote: Quote) => void): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.emit = emit;
    this.connect();
    this.watchStaleness();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.reconnectTimer !== undefined) this.timers.clearTimeout(this.reconnectTimer);
    if (this.staleTimer !== undefined) this.timers.clearTimeout(this.staleTimer);
    this.reconnectTimer = undefined;
    this.staleTimer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    socket?.removeAllListeners();
    socket?.on('error', () => {});
    socket?.terminate();
  }

  /** Up: the socket is open and a tick came within `staleMs`. */
  connected(): boolean {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || this.lastTickAt === undefined) return false;
    return this.options.clock.now() - this.lastTickAt <= this.options.staleMs;
  }

  private connect(): void {
    if (!this.running) return;
    const socket = new WebSocket(this.options.url, { handshakeTimeout: 10_000, maxPayload: 1024 * 1024 });
    this.socket = socket;
    this.lastTickAt = undefined;
    this.openedAt = undefined;
    socket.on('open', () => {
      this.openedAt = this.options.clock.now();
      this.options.log?.info({ url: redact(this.options.url) }, 'external price feed connected');
      socket.send(JSON.stringify({ type: 'subscribe', symbols: [...this.bySymbol.keys()] }));
    });
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.onMessage(data.toString());
    });
    socket.on('error', (err) => {
      this.options.log?.warn({ err: err.message, url: redact(this.options.url) }, 'external price feed error');
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (!this.running || this.reconnectTimer !== undefined) return;
    const initial = this.options.initialBackoffMs ?? 500;
    const max = this.options.maxBackoffMs ?? 30_000;
    const delay = Math.min(max, initial * 2 ** this.attempt);
    this.attempt++;
    this.reconnectTimer = this.timers.setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect();
    }, delay);
  }

  /** Drops a connection that went quiet so it is dialled again. */
  private watchStaleness(): void {
    const every = Math.max(50, Math.min(1_000, Math.floor(this.options.staleMs / 4)));
    const check = () => {
      this.staleTimer = undefined;
      if (!this.running) return;
      const socket = this.socket;
      if (socket && socket.readyState === WebSocket.OPEN) {
        const since = this.lastTickAt ?? this.openedAt ?? this.options.clock.now();
        if (this.options.clock.now() - since > this.options.staleMs) {
          this.options.log?.warn({ url: redact(this.options.url) }, 'external price feed went quiet; reconnecting');
          socket.terminate();
        }
      }
      this.staleTimer = this.timers.setTimeout(check, every);
    };
    this.staleTimer = this.timers.setTimeout(check, every);
  }

  private onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const m = message as { type?: unknown; ticks?: unknown };
    if (m.type === 'tick') this.onTick(message as FeedTick);
    else if (m.type === 'ticks' && Array.isArray(m.ticks)) for (const t of m.ticks) this.onTick(t as FeedTick);
  }

  private onTick(tick: FeedTick): void {
    if (typeof tick !== 'object' || tick === null || typeof tick.symbol !== 'string') return;
    const pair = this.bySymbol.get(tick.symbol.toUpperCase());
    const bid = Number(tick.bid);
    const ask = Number(tick.ask);
    if (!pair || !(bid > 0) || !(ask > bid) || !Number.isFinite(ask)) return;
    const now = this.options.clock.now();
    this.lastTickAt = now;
    // A feed that delivers is healthy again: the next outage starts its backoff from the beginning.
    this.attempt = 0;
    // Our clock stamps the tick: candles then fall in the right minute whatever the feed's clock says.
    this.emit?.(quoteFromBidAsk(pair, bid, ask, now));
  }
}

/** Feed URLs may carry an API key in the query: never log it. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '[invalid url]';
  }
}
