import type { TradingServerMessageMap, TradingServerMessageType } from '@pipdesk/contract';
import type { WebSocket } from 'ws';
import type { AuthUser } from '../../auth/index.js';
import { FrameOutbox } from '../../http/socket-frames.js';
import { encodeMessage } from './messages.js';
import type { Paced } from './pacer.js';
import { TokenBucket } from './rate-limit.js';

/** Close codes of the trading socket. */
export const CLOSE_UNAUTHENTICATED = 4001;
/** RFC 6455 policy violation: the client broke the message rate limit. */
export const CLOSE_POLICY = 1008;
/** The `account` an `authenticate` named is not the trader's (docs/accounts.md), or not the one this socket serves. */
export const CLOSE_ACCOUNT_NOT_FOUND = 4004;

/** A client that reads slower than we write is cut off before its buffer eats the server's memory. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** One /ws/trading/ connection: its socket, who it acts for, and its streaming state. */
export class TradingConnection implements Paced {
  /** Set once `authenticate` succeeds; a later `authenticate` may extend `user.expiresAt`. */
  user: AuthUser | null = null;
  /** Trading account of `user`, resolved on `subscribe_to_pnl`. */
  accountId: number | null = null;
  /**
   * The account this socket serves (docs/accounts.md), fixed by the first `authenticate`: the one it
   * named, else the trader's primary one; null when the trader has none. `named` is what it named.
   */
  serves: number | null = null;
  named: number | null = null;
  /**
   * The account it serves trades on a market of its own (a replay session's, practice.ts): its
   * P&L, figures and prices come from that market, never from the live one.
   */
  ownMarket = false;
  subscribedToPnl = false;
  closed = false;
  // Paced (P&L and account figures): per connection, at most 2 per second (pacer.ts).
  lastFlushAt = Number.NEGATIVE_INFINITY;
  previousFlushAt = Number.NEGATIVE_INFINITY;
  queued = false;
  notBefore = Number.NEGATIVE_INFINITY;
  heldBack = false;
  coalesced = false;
  spaced = false;
  readonly bucket: TokenBucket;
  /** Messages are handled one after another, so an `authenticate` completes before what follows it. */
  chain: Promise<void> = Promise.resolve();
  /**
   * Frames of this event-loop turn (P&L, account, prices, confirmations) leave together in one
   * write when the turn ends: at 10,000 sockets a write each per message was most of a tick's cost.
   */
  private readonly outbox: FrameOutbox;

  constructor(
    readonly socket: WebSocket,
    /** App clock time the socket opened (the 10 s authentication deadline). */
    readonly openedAt: number,
    rate: { capacity: number; perSecond: number; now: number },
  ) {
    this.bucket = new TokenBucket(rate.capacity, rate.perSecond, rate.now);
    this.outbox = new FrameOutbox(socket);
  }

  send<K extends TradingServerMessageType>(type: K, payload: TradingServerMessageMap[K]): void {
    this.sendRaw(encodeMessage(type, payload));
  }

  /**
   * Sends an already encoded message, or several in one Buffer (fan-out encodes once for every
   * connection); `canWait` for a node-wide broadcast that may leave after more urgent frames.
   */
  sendRaw(frames: Buffer, options?: { canWait: boolean }): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    if (this.outbox.bufferedBytes > MAX_BUFFERED_BYTES) {
      this.closed = true;
      this.outbox.discard();
      this.socket.terminate();
      return;
    }
    this.outbox.push(frames, options);
  }

  sendBatch(frames: readonly Buffer[]): void {
    for (const frame of frames) this.sendRaw(frame);
  }

  /** Sends `error` then closes; the socket's close handler unregisters it. */
  fail(code: number, message: string): void {
    if (this.closed) return;
    this.send('error', { message });
    this.closed = true;
    // ws writes the close frame at once: what waits must leave before it.
    this.outbox.flush();
    this.socket.close(code, message.slice(0, 120));
  }
}
