import type { TradingServerMessageMap, TradingServerMessageType } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import { findAccountById, findTraderAccount } from '../../accounts/index.js';
import type { AuthModule } from '../../auth/index.js';
import type { AppContext } from '../../core/context.js';
import { errors } from '../../errors.js';
import type { MarketModule } from '../../market/index.js';
import type { AccountMarkets } from '../account-markets.js';
import type { PositionState } from '../types.js';
import { AccountReloader } from './account-reload.js';
import type { Figures } from './book.js';
import type { TradingConnection } from './connection.js';
import type { EquityWatch } from './equity-watch.js';
import { encodeMessage } from './messages.js';
import { LiveNode, type LiveTradingService } from './node.js';
import { type Pacing, realPacing } from './pacer.js';
import { PracticeBooks } from './practice.js';
import { defaultSocketOptions, type TradingSocketOptions, TradingSocketServer } from './socket.js';
import { openPositionDtos, type SendToAccount, sendToAccount, sendToUser } from './trader-messages.js';

export type { LiveTradingService } from './node.js';

/** Live account figures computed in memory from cached open positions and the latest prices (exact). */
export type LiveAccountFigures = Figures;

export interface LiveTrading {
  /** Registers /ws/trading/. */
  registerSockets(app: FastifyInstance): Promise<void>;
  /** Loads the open book and starts following ticks and executions. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Undefined when this node holds no state for the account (no open position and no execution seen). */
  accountFigures(accountId: number): LiveAccountFigures | undefined;
  /**
   * The account's figures and open positions from this node's book, without the database (the
   * academy's roster, docs/academy.md#the-roster); undefined as for `accountFigures`.
   */
  accountSnapshot(accountId: number): { figures: LiveAccountFigures; positions: PositionState[] } | undefined;
  /** What this node's live book holds (docs/operations.md#memory); zeros before start(). */
  bookCounts(): { accounts: number; positions: number; dependents: number };
  /**
   * Sets (null: drops) a watch on an account's equity on this node (equity-watch.ts): called
   * synchronously, without the database, on every revaluation (a tick moving its positions, an
   * execution) that leaves the equity at or below the watch's threshold. Evaluations watch their
   * loss floors this way.
   */
  watchEquity(accountId: number, watch: EquityWatch | null): void;
  /** One message to the trading sockets of this node that serve the account (evaluations' `challenge_update`). */
  sendToAccount<K extends TradingServerMessageType>(
    userId: number,
    accountId: number,
    type: K,
    payload: () => TradingServerMessageMap[K],
  ): void;
  /** Whether a trading socket of this node serves the account (work for it is skipped otherwise). */
  servesAccount(userId: number, accountId: number): boolean;
  /** One message to every trading socket of the trader on this node; built only when there is one (other modules' notices: alerts). */
  sendToUser<K extends TradingServerMessageType>(userId: number, type: K, payload: TradingServerMessageMap[K]): void;
}

export interface LiveTradingDeps {
  auth: AuthModule;
  market: MarketModule;
  service: LiveTradingService;
  /** Accounts on a market of their own (replay sessions' practice accounts): their sockets follow that market. */
  markets: Pick<AccountMarkets, 'marketOf' | 'observe'>;
}

export interface LiveTradingOptions {
  /** Real-time pacing of the streams (tests may drive it). */
  pacing?: Pacing;
  socket?: Partial<TradingSocketOptions>;
}

/**
 * The realtime and risk half of trading: the in-memory open book (valued on every tick),
 * margin call and stop-out, and the /ws/trading/ socket with its streams (docs/trading-rules.md#margin-call-and-stop-out, docs/api.md#trading-socket, docs/operations.md#socket-hardening).
 */
export function createLiveTrading(ctx: AppContext, deps: LiveTradingDeps, options: LiveTradingOptions = {}): LiveTrading {
  const { market, service } = deps;
  const pacing = options.pacing ?? realPacing;
  /** Built by start(); until then the socket answers a P&L subscription 503. */
  let node: LiveNode | undefined;
  const unsubscribers: Array<() => void> = [];
  /** Shared with the book once it exists (start), so a watch set before then is not lost. */
  const watches = new Map<number, EquityWatch>();

  const sockets: TradingSocketServer = new TradingSocketServer({
    auth: deps.auth,
    clock: ctx.clock,
    pacing,
    log: ctx.log,
    options: { ...defaultSocketOptions, ...options.socket },
    handlers: {
      resolveAccount: async (userId, named) => {
        const row = await findTraderAccount(ctx.db.kysely, userId, named);
        if (!row) return named === undefined ? null : 'not_found';
        return Number(row.id);
      },
      adoptAccount: async (conn) => {
        // The primary account is never a practice one: nothing is looked up for it.
        if (conn.named === null || conn.serves === null) return;
        if (!(await deps.markets.marketOf(conn.serves)) || !practice.has(conn.serves)) return;
        conn.ownMarket = true;
        practice.attach(conn, conn.serves);
      },
      openPositions: async (conn) => {
        const book = conn.ownMarket ? practice : node?.book;
        const account = conn.serves === null ? undefined : book?.account(conn.serves);
        return account ? openPositionDtos(account) : [];
      },
      subscribePnl: (conn) => subscribePnl(conn),
      onClosed: (conn) => {
        if (conn.ownMarket) practice.forget(conn);
        else node?.streams.unsubscribe(conn);
      },
    },
  });
  const send: SendToAccount = (userId, accountId, frames) => sendToAccount(sockets, userId, accountId, frames);
  // Practice accounts' books, fed by their own markets (docs/replay.md#the-trading-socket-of-a-practice-account).
  const practice = new PracticeBooks({
    pairs: market.pairs,
    pacing,
    log: ctx.log,
    send,
    marginCallLevel: ctx.config.marginCallLevel,
    stopOutLevel: ctx.config.stopOutLevel,
  });
  deps.markets.observe(practice);

  async function subscribePnl(conn: TradingConnection): Promise<void> {
    if (conn.ownMarket && conn.serves !== null) {
      if (conn.closed) return;
      conn.send('pnl_subscription_confirmed', { message: 'Subscribed to P&L updates' });
      practice.subscribe(conn, conn.serves);
      return;
    }
    const live = node;
    if (!live) throw errors.unavailable('Live trading is starting');
    const { book, streams, risk } = live;
    const userId = conn.user!.userId;
    const serves = conn.serves;
    if (serves === null) throw errors.tradingAccountNotFound();
    let account = book.account(serves);
    if (!account) {
      const row = await findAccountById(ctx.db.kysely, serves);
      if (!row) throw errors.tradingAccountNotFound();
      // An execution event may have created it meanwhile; ensureAccount keeps that newer state.
      account = book.ensureAccount(Number(row.id), userId, Number(row.balance_minor), Number(row.leverage));
    }
    if (conn.closed) return;
    conn.send('pnl_subscription_confirmed', { message: 'Subscribed to P&L updates' });
    // The current figures follow at once (a repeated subscription just gets them again).
    streams.subscribe(conn, account.accountId);
    const inCall = risk.inMarginCall(account);
    if (inCall) conn.sendRaw(live.marginCallFrame(inCall));
  }

  return {
    registerSockets: (app) => sockets.register(app),

    async start() {
      const live = new LiveNode({ ctx, market, service, sockets, pacing, send, watches });
      node = live;
      const { book } = live;
      // Follow executions before loading the book, so none committed meanwhile is missed;
      // they are applied, in order, once the book is loaded.
      live.held.hold();
      unsubscribers.push(
        ...live.followTradingEvents(),
        ctx.bus.subscribe('session_revoked', ({ sessionId }) => sockets.closeSession(sessionId)),
        ctx.bus.subscribe('user_disabled', ({ userId }) => sockets.closeUser(userId)),
        ctx.bus.subscribe('resync', () => live.resync.request()),
        market.prices.onTick((quote) => {
          book.onTick(quote);
          live.prices.onTick(quote);
        }),
      );
      for (const quote of market.prices.all()) book.seedPrice(quote);
      // docs/operations.md#deposits: balances another process changes from here on are reloaded.
      const accountChanges = new AccountReloader({
        db: ctx.db,
        bus: ctx.bus,
        log: ctx.log,
        book,
        paused: () => live.held.holding,
      });
      await accountChanges.mark();
      for (const entry of await service.loadOpenBook()) book.loadAccount(entry);
      live.held.release();
      sockets.start();
      live.resync.enable();
      accountChanges.start();
      unsubscribers.push(() => accountChanges.stop());
      // Accounts already at risk when the server starts are handled now, not at their next tick.
      for (const account of book.accountsWithPositions()) live.risk.evaluate(account);
    },

    async stop() {
      // No resync from now on; one that runs ends before the parts it reloads stop.
      const reloading = node?.resync.stop();
      for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
      await reloading;
      sockets.stop();
      practice.stop();
      node?.book.stop();
      node?.streams.stop();
      node?.prices.stop();
      await node?.risk.stop();
    },

    accountFigures(accountId) {
      const account = node?.book.account(accountId);
      return account && node ? node.book.figures(account) : undefined;
    },

    bookCounts() {
      return node?.book.counts() ?? { accounts: 0, positions: 0, dependents: 0 };
    },

    watchEquity(accountId, watch) {
      if (node) node.book.watch(accountId, watch);
      else if (watch) watches.set(accountId, watch);
      else watches.delete(accountId);
    },

    sendToAccount(userId, accountId, type, payload) {
      send(userId, accountId, () => [encodeMessage(type, payload())]);
    },

    servesAccount(userId, accountId) {
      for (const conn of sockets.forUser(userId) ?? []) if (conn.serves === accountId) return true;
      return false;
    },

    sendToUser(userId, type, payload) {
      sendToUser(sockets, userId, () => [encodeMessage(type, payload)]);
    },

    accountSnapshot(accountId) {
      const account = node?.book.account(accountId);
      if (!account || !node) return undefined;
      return { figures: node.book.figures(account), positions: [...account.positions.values()].map((p) => p.state) };
    },
  };
}
