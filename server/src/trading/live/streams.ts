import type { TradingServerMessageMap } from '@pipdesk/contract';
import type { FastifyBaseLogger } from 'fastify';
import { afterQueuedWrites, textFrames } from '../../http/socket-frames.js';
import type { Pair, Quote } from '../../market/index.js';
import type { LiveAccount, LiveBook } from './book.js';
import type { TradingConnection } from './connection.js';
import { encodeMessage, messageJson } from './messages.js';
import { type Paced, Pacer, type Pacing, unpaced } from './pacer.js';

/** docs/api.md#trading-socket: pnl_batch_update and account_update at most 2 per second per connection. */
export const PNL_INTERVAL_MS = 500;
/**
 * How long a P&L change that a conversion rate alone made may wait for one of the account's own
 * prices to carry it: within a second's cap of 2, the changes of its own prices go out at once.
 */
export const CONVERSION_MAY_WAIT_MS = 1000;
/** docs/api.md#trading-socket: price_update at most 4 per second per symbol per connection. */
export const PRICE_INTERVAL_MS = 250;

const CAN_WAIT = { canWait: true };

/** Where a fan-out reports how long it took; only read when the debug level is on. */
export type FanoutLog = Pick<FastifyBaseLogger, 'debug' | 'level'>;

/**
 * At LOG_LEVEL=debug, one line per fan-out: the tick's server time → the last socket write of
 * its burst (bench/trading-socket.mjs reads it as the server's own share of the latency).
 * Writes leave at the end of the turn, or for frames that can wait in later turns
 * (socket-frames.ts), so the line is written on the immediate after the last of them. Off, it
 * costs one level check per fan-out.
 */
function logFanout(
  log: FanoutLog | undefined,
  fanout: string,
  tickAt: number,
  sockets: number,
  { canWait = false, ...extra }: { canWait?: boolean; symbols?: number } = {},
): void {
  if (!log || (log.level !== 'debug' && log.level !== 'trace')) return;
  const written = () =>
    log.debug({ fanout, tick_at: tickAt, sockets, tick_to_last_write_ms: Date.now() - tickAt, ...extra }, 'fan-out written');
  if (canWait) afterQueuedWrites(written);
  else setImmediate(written);
}

/**
 * P&L and account figures for subscribed connections, computed from the live book and
 * paced per connection, at most 2 in any second (pacer.ts): a change goes out on the next turn
 * when that cap allows, else it waits, coalesced with what follows, and a connection whose
 * changes keep coalescing gets them half a second apart. A change that only a conversion rate
 * made waits up to a second for the account's own prices to move, so a cross moved by three
 * pairs a second still gets its own ticks at once.
 */
export class PnlStreams {
  private readonly pacer: Pacer<TradingConnection>;
  /** Subscribed connections per account. */
  private readonly subscribers = new Map<number, Set<TradingConnection>>();
  /** Server time of the oldest tick whose changes wait to be flushed (fan-out timing only). */
  private tickAt: number | null = null;

  constructor(
    private readonly book: LiveBook,
    pacing: Pacing,
    private readonly log?: FanoutLog,
  ) {
    this.pacer = new Pacer(
      PNL_INTERVAL_MS,
      (conns) => {
        for (const conn of conns) this.flush(conn);
        if (this.tickAt !== null) logFanout(this.log, 'pnl', this.tickAt, conns.length);
        this.tickAt = null;
      },
      pacing,
      2,
    );
  }

  subscribe(conn: TradingConnection, accountId: number): void {
    if (conn.subscribedToPnl && conn.accountId !== accountId) this.unsubscribe(conn);
    conn.accountId = accountId;
    conn.subscribedToPnl = true;
    let set = this.subscribers.get(accountId);
    if (!set) {
      set = new Set();
      this.subscribers.set(accountId, set);
    }
    set.add(conn);
    this.pacer.request(conn);
  }

  unsubscribe(conn: TradingConnection): void {
    if (!conn.subscribedToPnl || conn.accountId === null) return;
    this.pacer.cancel(conn);
    const set = this.subscribers.get(conn.accountId);
    set?.delete(conn);
    if (set?.size === 0) this.subscribers.delete(conn.accountId);
  }

  /** The account's figures or positions changed. */
  accountChanged(account: LiveAccount): void {
    const set = this.subscribers.get(account.accountId);
    if (!set) return;
    const tick = this.book.currentTick;
    // A tick of a pair that only converts the account's currencies to USD moves its figures a
    // little; that may wait for the next change of its own prices (docs/ARCHITECTURE.md#sockets).
    const mayWait = tick !== null && !account.ownPriceMoved ? CONVERSION_MAY_WAIT_MS : 0;
    if (mayWait === 0 && this.tickAt === null && tick) this.tickAt = tick.timestamp;
    for (const conn of set) this.pacer.request(conn, mayWait);
  }

  stop(): void {
    this.pacer.stop();
  }

  /** The connection's P&L and account figures, both frames in one Buffer (one write). */
  private flush(conn: TradingConnection): void {
    if (conn.closed || conn.accountId === null) return;
    const account = this.book.account(conn.accountId);
    if (!account) return;
    const figures = messageJson('account_update', { data: accountUpdate(this.book, account) });
    if (account.positions.size > 0) {
      const updates: TradingServerMessageMap['pnl_batch_update']['updates'] = [];
      for (const position of account.positions.values()) {
        if (position.currentPrice === null) continue;
        updates.push({
          position_id: Number(position.state.id),
          unrealized_pnl: position.unrealized.toNumber(2),
          current_price: position.currentPriceNumber,
        });
      }
      if (updates.length > 0) {
        conn.sendRaw(textFrames([messageJson('pnl_batch_update', { updates }), figures]));
        return;
      }
    }
    conn.sendRaw(textFrames([figures]));
  }
}

/** The account_update payload: figures rounded for display (money 2 decimals). */
export function accountUpdate(book: LiveBook, account: LiveAccount): TradingServerMessageMap['account_update']['data'] {
  const f = book.figures(account);
  return {
    balance: f.balance.toNumber(2),
    equity: f.equity.toNumber(2),
    margin_used: f.marginUsed.toNumber(2),
    free_margin: f.freeMargin.toNumber(2),
    margin_level: f.marginLevel === null ? null : f.marginLevel.toNumber(2),
    leverage: f.leverage,
  };
}

/**
 * price_update for every active pair to every authenticated connection of this node. All
 * connections are paced together: the first change after a quiet quarter second goes out on
 * the next turn, later ones wait for the quarter second to pass, and then every pair that
 * changed goes out in one Buffer of frames, encoded once and written to each connection once.
 * So a connection gets at most 4 price writes a second however many pairs tick (at 12 pairs
 * ticking apart, one write per pair per tick was most of the server's load), and so at most
 * 4 price_update per second per symbol, at the cost of up to a quarter second's wait.
 */
export class PriceFanout {
  private readonly pacer: Pacer<Paced>;
  /** The node's one pacing state: every connection receives the same frames at the same time. */
  private readonly paced: Paced = unpaced();
  /** Latest quote of each pair that changed since the last flush, in order of first change. */
  private readonly changed = new Map<string, Quote>();
  /** Pairs seen active (as before, a pair streams from its first active tick on). */
  private readonly active = new Set<string>();

  constructor(
    private readonly connections: ReadonlySet<TradingConnection>,
    private readonly pair: (symbol: string) => Pair | undefined,
    pacing: Pacing,
    private readonly log?: FanoutLog,
    /** The live fan-out skips the sockets of accounts on a market of their own (practice.ts). */
    private readonly skipOwnMarket = false,
  ) {
    this.pacer = new Pacer(PRICE_INTERVAL_MS, () => this.flush(), pacing);
  }

  onTick(quote: Quote): void {
    if (!this.active.has(quote.symbol)) {
      // An inactive pair is asked again at its next tick, so one activated later starts streaming.
      if (!this.pair(quote.symbol)?.isActive) return;
      this.active.add(quote.symbol);
    }
    // A pair that ticks again before the flush keeps its place and sends only its latest price.
    this.changed.set(quote.symbol, quote);
    if (this.connections.size > 0) this.pacer.request(this.paced);
    else this.changed.clear();
  }

  stop(): void {
    this.pacer.stop();
  }

  private flush(): void {
    if (this.changed.size === 0 || this.connections.size === 0) {
      this.changed.clear();
      return;
    }
    const frames: Buffer[] = [];
    let oldest = Number.POSITIVE_INFINITY;
    for (const q of this.changed.values()) {
      frames.push(
        encodeMessage('price_update', {
          symbol: q.symbol,
          price: q.mid,
          bid: q.bid,
          ask: q.ask,
          timestamp: new Date(q.timestamp).toISOString(),
        }),
      );
      if (q.timestamp < oldest) oldest = q.timestamp;
    }
    const symbols = this.changed.size;
    this.changed.clear();
    const all = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    // Sliced over turns (socket-frames.ts): a tick arriving meanwhile sends its P&L first.
    for (const conn of this.connections) if (!(this.skipOwnMarket && conn.ownMarket)) conn.sendRaw(all, CAN_WAIT);
    logFanout(this.log, 'trading-price', oldest, this.connections.size, { symbols, canWait: true });
  }
}
