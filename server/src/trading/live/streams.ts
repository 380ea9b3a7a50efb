import type { TradingServerMessageMap } from '@pipdesk/contract';
import type { Pair, Quote } from '../../market/index.js';
import type { LiveAccount, LiveBook } from './book.js';
import type { TradingConnection } from './connection.js';
import { encodeMessage } from './messages.js';
import { type Paced, Pacer, type Pacing } from './pacer.js';

/** docs/api.md#trading-socket: pnl_batch_update and account_update at most 2 per second per connection. */
export const PNL_INTERVAL_MS = 500;
/** docs/api.md#trading-socket: price_update at most 4 per second per symbol per connection. */
export const PRICE_INTERVAL_MS = 250;

/**
 * P&L and account figures for subscribed connections, computed from the live book and
 * paced per connection: the first change after a quiet half second goes out on the next
 * turn, later ones are coalesced into one update when the half second has passed.
 */
export class PnlStreams {
  private readonly pacer: Pacer<TradingConnection>;
  /** Subscribed connections per account. */
  private readonly subscribers = new Map<number, Set<TradingConnection>>();

  constructor(
    private readonly book: LiveBook,
    pacing: Pacing,
  ) {
    this.pacer = new Pacer(
      PNL_INTERVAL_MS,
      (conns) => {
        for (const conn of conns) this.flush(conn);
      },
      pacing,
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
    for (const conn of set) this.pacer.request(conn);
  }

  stop(): void {
    this.pacer.stop();
  }

  private flush(conn: TradingConnection): void {
    if (conn.closed || conn.accountId === null) return;
    const account = this.book.account(conn.accountId);
    if (!account) return;
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
      if (updates.length > 0) conn.sendRaw(encodeMessage('pnl_batch_update', { updates }));
    }
    conn.sendRaw(encodeMessage('account_update', { data: accountUpdate(this.book, account) }));
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

interface SymbolStream extends Paced {
  latest: Quote;
}

/**
 * price_update for every active pair to every authenticated connection of this node,
 * coalesced per symbol to at most 4 per second: the message is encoded once per symbol and
 * the same frame goes to every connection.
 */
export class PriceFanout {
  private readonly pacer: Pacer<SymbolStream>;
  private readonly streams = new Map<string, SymbolStream>();

  constructor(
    private readonly connections: ReadonlySet<TradingConnection>,
    private readonly pair: (symbol: string) => Pair | undefined,
    pacing: Pacing,
  ) {
    this.pacer = new Pacer(PRICE_INTERVAL_MS, (streams) => this.flush(streams), pacing);
  }

  onTick(quote: Quote): void {
    let stream = this.streams.get(quote.symbol);
    if (!stream) {
      if (!this.pair(quote.symbol)?.isActive) return;
      stream = { latest: quote, lastFlushAt: Number.NEGATIVE_INFINITY, queued: false };
      this.streams.set(quote.symbol, stream);
    }
    stream.latest = quote;
    if (this.connections.size > 0) this.pacer.request(stream);
  }

  stop(): void {
    this.pacer.stop();
  }

  private flush(streams: readonly SymbolStream[]): void {
    if (this.connections.size === 0) return;
    const frames = streams.map(({ latest: q }) =>
      encodeMessage('price_update', {
        symbol: q.symbol,
        price: q.mid,
        bid: q.bid,
        ask: q.ask,
        timestamp: new Date(q.timestamp).toISOString(),
      }),
    );
    for (const conn of this.connections) conn.sendBatch(frames);
  }
}
