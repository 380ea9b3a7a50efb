import type { TradingServerMessageMap, TradingServerMessageType } from '@pipdesk/contract';
import type { WebSocket } from 'ws';
import type { AuthUser } from '../../auth/index.js';
import { encodeMessage } from './messages.js';
import type { Paced } from './pacer.js';
import { TokenBucket } from './rate-limit.js';

/** Close codes of the trading socket. */
export const CLOSE_UNAUTHENTICATED = 4001;
/** RFC 6455 policy violation: the client broke the message rate limit. */
export const CLOSE_POLICY = 1008;

/** A client that reads slower than we write is cut off before its buffer eats the server's memory. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

interface Corkable {
  cork(): void;
  uncork(): void;
}

/**
 * Connections written to during this event-loop turn. Each write is a syscall and on a
 * busy tick a socket gets several messages (P&L, account, prices, confirmations): corked
 * until the turn ends, they leave in one write per socket.
 */
const corkedThisTurn: TradingConnection[] = [];
let uncorkScheduled = false;

function uncorkAll(): void {
  uncorkScheduled = false;
  for (const conn of corkedThisTurn) conn.uncorkTurn();
  corkedThisTurn.length = 0;
}

/** One /ws/trading/ connection: its socket, who it acts for, and its streaming state. */
export class TradingConnection implements Paced {
  /** Set once `authenticate` succeeds; a later `authenticate` may extend `user.expiresAt`. */
  user: AuthUser | null = null;
  /** Trading account of `user`, resolved on `subscribe_to_pnl`. */
  accountId: number | null = null;
  subscribedToPnl = false;
  closed = false;
  // Paced (P&L and account figures): per connection, at most 2 per second.
  lastFlushAt = Number.NEGATIVE_INFINITY;
  queued = false;
  readonly bucket: TokenBucket;
  /** Messages are handled one after another, so an `authenticate` completes before what follows it. */
  chain: Promise<void> = Promise.resolve();
  private corked: Corkable | null = null;

  constructor(
    readonly socket: WebSocket,
    /** App clock time the socket opened (the 10 s authentication deadline). */
    readonly openedAt: number,
    rate: { capacity: number; perSecond: number; now: number },
  ) {
    this.bucket = new TokenBucket(rate.capacity, rate.perSecond, rate.now);
  }

  send<K extends TradingServerMessageType>(type: K, payload: TradingServerMessageMap[K]): void {
    this.sendRaw(encodeMessage(type, payload));
  }

  /** Sends an already encoded message (fan-out encodes once for every connection). */
  sendRaw(frame: Buffer): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.closed = true;
      this.socket.terminate();
      return;
    }
    if (!this.corked) this.corkTurn();
    this.socket.send(frame, { binary: false });
  }

  sendBatch(frames: readonly Buffer[]): void {
    for (const frame of frames) this.sendRaw(frame);
  }

  private corkTurn(): void {
    // ws has no batching API; the net.Socket under it (a stable internal of ws 8) coalesces corked writes.
    const raw = (this.socket as unknown as { _socket?: Corkable | null })._socket;
    if (!raw) return;
    raw.cork();
    this.corked = raw;
    corkedThisTurn.push(this);
    if (!uncorkScheduled) {
      uncorkScheduled = true;
      setImmediate(uncorkAll);
    }
  }

  /** Called once the turn that corked it is over. */
  uncorkTurn(): void {
    this.corked?.uncork();
    this.corked = null;
  }

  /** Sends `error` then closes; the socket's close handler unregisters it. */
  fail(code: number, message: string): void {
    if (this.closed) return;
    this.send('error', { message });
    this.closed = true;
    this.socket.close(code, message.slice(0, 120));
  }
}
