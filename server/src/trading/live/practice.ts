import { Dec } from '@pipdesk/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { PairCatalog, Quote } from '../../market/index.js';
import type { BusEvents } from '../../realtime/bus.js';
import type { AccountMarketObserver, BoundAccountMarket } from '../account-markets.js';
import type { PositionProtectionPayload } from '../events.js';
import { type PositionState, accountId as toAccountId } from '../types.js';
import { type Figures, type LiveAccount, LiveBook } from './book.js';
import type { TradingConnection } from './connection.js';
import type { Pacing } from './pacer.js';
import { marginCallFigures, watchMarginCall } from './risk.js';
import { PnlStreams, PriceFanout } from './streams.js';
import { applyProtection, executionFrames, marginCallFrame, type SendToAccount } from './trader-messages.js';

/** One practice account's own live state on this node. */
interface PracticeMarket {
  market: BoundAccountMarket;
  userId: number;
  /** Ticks were skipped while no socket served the account: its prices are read again when one does. */
  stale: boolean;
  /** A book of this one account, valued at its market's ticks only. */
  book: LiveBook;
  streams: PnlStreams;
  prices: PriceFanout;
  /** The trading sockets of this node that serve the account: its market's prices go to them only. */
  sockets: Set<TradingConnection>;
}

/**
 * The trading socket of accounts on a market of their own (a replay session's practice account,
 * docs/replay.md#the-trading-socket-of-a-practice-account): each has a `LiveBook` of its own, fed
 * by its market's ticks and its own executions through trading's `AccountMarkets` (they never go
 * on the bus), with the same P&L and account streams, fills and price updates as a live account's,
 * paced the same way. Live ticks never reach it, and the live book never holds it.
 */
export class PracticeBooks implements AccountMarketObserver {
  private readonly markets = new Map<number, PracticeMarket>();

  constructor(
    private readonly deps: {
      pairs: PairCatalog;
      pacing: Pacing;
      log: FastifyBaseLogger;
      send: SendToAccount;
      /** Percent (docs/trading-rules.md#margin-call-and-stop-out). */
      marginCallLevel: number;
      stopOutLevel: number;
    },
  ) {
    this.marginCallLevelRaw = Dec.from(deps.marginCallLevel).raw;
  }

  private readonly marginCallLevelRaw: bigint;

  /** `margin_call` on the practice account's sockets, as the live risk engine sends it (its stop-out runs on the session's market). */
  private readonly marginCall = (account: LiveAccount, figures: Figures): void =>
    this.deps.send(account.userId, account.accountId, () => [marginCallFrame(figures, this.deps.stopOutLevel)]);

  // ------------------------------------------------------------------ what the account's market tells

  bound(
    market: BoundAccountMarket,
    account: { userId: number; balanceMinor: number; leverage: number; positions: PositionState[] },
  ): void {
    const { pairs, pacing, log } = this.deps;
    // Bound again (its market was moved on another node): the new book takes over the sockets.
    const previous = this.markets.get(market.accountId);
    if (previous) {
      previous.book.stop();
      previous.streams.stop();
      previous.prices.stop();
    }
    const sockets = previous?.sockets ?? new Set<TradingConnection>();
    let streams: PnlStreams | undefined;
    const book = new LiveBook(pairs.list(), (changed) => {
      streams?.accountChanged(changed);
      watchMarginCall(book, changed, this.marginCallLevelRaw, this.marginCall);
    });
    streams = new PnlStreams(book, pacing, log);
    // Every pair's quote at the clock: its own pairs' ticks and the others' conversion rates.
    for (const pair of pairs.list()) {
      const quote = market.quote(pair.symbol);
      if (quote) book.seedPrice(quote);
    }
    book.loadAccount({
      accountId: toAccountId(market.accountId),
      userId: account.userId,
      balanceMinor: account.balanceMinor,
      leverage: account.leverage,
      status: 'ACTIVE',
      positions: account.positions,
    });
    const prices = new PriceFanout(sockets, (symbol) => pairs.get(symbol), pacing, log);
    this.markets.set(market.accountId, { market, userId: account.userId, stale: false, book, streams, prices, sockets });
    for (const conn of sockets) {
      if (!conn.subscribedToPnl) continue;
      // The old streams' subscription: taken over by the new ones, with the figures at the new clock.
      conn.subscribedToPnl = false;
      this.subscribe(conn, market.accountId);
    }
  }

  tick(accountId: number, quote: Quote): void {
    const market = this.markets.get(accountId);
    if (!market) return;
    // Nobody watches: a long step's ticks cost nothing here (docs/replay.md#the-trading-socket-of-a-practice-account).
    if (market.sockets.size === 0) {
      market.stale = true;
      return;
    }
    market.book.onTick(quote);
    market.prices.onTick(quote);
  }

  execution({ userId, accountId, payload }: BusEvents['execution']): void {
    const market = this.markets.get(accountId);
    if (!market) return;
    const account = market.book.applyExecution(accountId, userId, payload.account, payload.position_state);
    this.deps.send(userId, accountId, () => executionFrames(payload, account));
  }

  balance(accountId: number, balanceMinor: number): void {
    this.markets.get(accountId)?.book.setBalance(accountId, balanceMinor);
  }

  /** As the live node does: the book keeps the new protection, the account's sockets see the positions again. */
  protection(change: PositionProtectionPayload): void {
    applyProtection(this.markets.get(change.accountId)?.book.account(change.accountId), change, this.deps.send);
  }

  /**
   * The session's ticks are its own pairs'; the other pairs quote their conversion rate at its
   * clock, so after every advance they are read again (a USD account trading EURJPY values its yen
   * at USDJPY then).
   */
  moved(market: BoundAccountMarket): void {
    const own = this.markets.get(market.accountId);
    if (!own) return;
    if (own.sockets.size === 0) {
      own.stale = true;
      return;
    }
    for (const pair of this.deps.pairs.list()) {
      if (market.symbols.includes(pair.symbol)) continue;
      const quote = market.quote(pair.symbol);
      if (quote) own.book.onTick(quote);
    }
  }

  /** Every pair's quote at the market's clock, read again after ticks were skipped. */
  private refresh(own: PracticeMarket): void {
    own.stale = false;
    for (const pair of this.deps.pairs.list()) {
      const quote = own.market.quote(pair.symbol);
      if (quote) own.book.onTick(quote);
    }
  }

  // ------------------------------------------------------------------ the sockets that serve one

  /** Whether the account has a book here (it is bound to a market of its own). */
  has(accountId: number): boolean {
    return this.markets.has(accountId);
  }

  /** Whether a socket of this node serves the account now (its session plays only then, docs/replay.md#playing). */
  watched(accountId: number): boolean {
    return (this.markets.get(accountId)?.sockets.size ?? 0) > 0;
  }

  /** A socket that serves the account: its market's prices go to it from now on. */
  attach(conn: TradingConnection, accountId: number): void {
    const own = this.markets.get(accountId);
    if (!own) return;
    own.sockets.add(conn);
    if (own.stale) this.refresh(own);
  }

  account(accountId: number): LiveAccount | undefined {
    return this.markets.get(accountId)?.book.account(accountId);
  }

  /** `subscribe_to_pnl` on a socket that serves the account: its current figures follow at once. */
  subscribe(conn: TradingConnection, accountId: number): boolean {
    const market = this.markets.get(accountId);
    if (!market) return false;
    market.streams.subscribe(conn, accountId);
    const account = market.book.account(accountId);
    const inCall = account && marginCallFigures(market.book, account, this.marginCallLevelRaw);
    if (inCall) conn.sendRaw(marginCallFrame(inCall, this.deps.stopOutLevel));
    return true;
  }

  /** A socket closed. */
  forget(conn: TradingConnection): void {
    if (conn.serves === null) return;
    const market = this.markets.get(conn.serves);
    if (!market) return;
    market.sockets.delete(conn);
    market.streams.unsubscribe(conn);
  }

  stop(): void {
    for (const market of this.markets.values()) {
      market.book.stop();
      market.streams.stop();
      market.prices.stop();
    }
  }
}
