import { type PricesServerMessages, pricesMessage, type SocketTimeframe } from '@pipdesk/contract';
import WebSocket from 'ws';
import type { AuthUser } from '../auth/index.js';
import { FrameOutbox, textFrame } from '../http/socket-frames.js';
import type { AccountMarketView } from './types.js';

/** A client that reads this slowly misses price updates instead of growing our memory. */
const MAX_BUFFERED_BYTES = 512 * 1024;
/** Messages a client may send: a burst of 20, then 10 a second. */
const RATE_BURST = 20;
const RATE_PER_SECOND = 10;
/** Messages dropped for rate before the connection is closed. */
const RATE_DROPS_BEFORE_CLOSE = 100;

/** One /ws/prices/ connection. */
export class PriceClient {
  /** Followed symbols and the timeframe of their chart updates, as subscribed ('1m' or m1…d1). */
  readonly symbols = new Map<string, SocketTimeframe>();
  user: AuthUser | undefined;
  /** The account named by `authenticate` (fixed once named), null before. */
  account: number | null = null;
  /**
   * The market of its own the named account trades on (a replay session's): the socket then
   * follows it only, never a live tick (docs/replay.md#the-price-socket-of-a-practice-account).
   */
  own: AccountMarketView | undefined;
  /** Per followed pair of `own`: the last quote's time and the newest candle's open time sent. */
  readonly ownSent = new Map<string, { quoteAt: number; candleTime: number | undefined }>();
  private tokens = RATE_BURST;
  private refilledAt = performance.now();
  private dropped = 0;
  private lastRateWarning = 0;
  private queue: Promise<void> = Promise.resolve();
  expiryTimer: unknown;
  /** Frames of this event-loop turn leave in one write when it ends (http/socket-frames.ts). */
  private readonly outbox: FrameOutbox;

  constructor(readonly socket: WebSocket) {
    this.outbox = new FrameOutbox(socket);
  }

  send<K extends keyof PricesServerMessages>(type: K, payload: PricesServerMessages[K]): void {
    this.sendRaw(textFrame(JSON.stringify(pricesMessage(type, payload))));
  }

  /**
   * Sends a whole frame (fan-out frames a message once for all subscribers); skips a client
   * whose buffer is full (prices are superseded anyway).
   */
  sendRaw(frame: Buffer): void {
    if (this.socket.readyState !== WebSocket.OPEN || this.outbox.bufferedBytes > MAX_BUFFERED_BYTES) return;
    this.outbox.push(frame);
  }

  /** Closes the socket after what waits to be written (ws writes the close frame at once). */
  close(code: number, reason: string): void {
    this.outbox.flush();
    this.socket.close(code, reason);
  }

  /** Token bucket; false when the message must be dropped. */
  allowMessage(): 'ok' | 'drop' | 'close' {
    const now = performance.now();
    this.tokens = Math.min(RATE_BURST, this.tokens + ((now - this.refilledAt) / 1000) * RATE_PER_SECOND);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 'ok';
    }
    this.dropped++;
    if (this.dropped > RATE_DROPS_BEFORE_CLOSE) return 'close';
    if (now - this.lastRateWarning > 1000) {
      this.lastRateWarning = now;
      this.send('error', { message: 'Too many messages: slow down' });
    }
    return 'drop';
  }

  /** Handles messages one after another, even when one waits for the database. */
  enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task, task);
  }
}
