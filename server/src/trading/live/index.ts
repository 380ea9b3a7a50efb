import type { PositionDto } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import { accountsByIds, findAccountByUser } from '../../accounts/index.js';
import type { AuthModule } from '../../auth/index.js';
import type { AppContext } from '../../core/context.js';
import { errors } from '../../errors.js';
import type { MarketModule } from '../../market/index.js';
import type { BusEvents } from '../../realtime/bus.js';
import {
  BALANCE_ADJUSTED_TOPIC,
  type BalanceAdjustedPayload,
  ORDER_UPDATE_TOPIC,
  type OrderUpdatePayload,
  POSITION_PROTECTION_TOPIC,
  type PositionProtectionPayload,
} from '../events.js';
import { positionDto } from '../presenter.js';
import type { TradingService } from '../service.js';
import { type ExecutionEvent, type PositionState, accountId as toAccountId } from '../types.js';
import { AccountReloader } from './account-reload.js';
import { type Figures, type LiveAccount, LiveBook, type LivePosition } from './book.js';
import type { TradingConnection } from './connection.js';
import { encodeMessage } from './messages.js';
import { type Pacing, realPacing } from './pacer.js';
import { RiskEngine } from './risk.js';
import { defaultSocketOptions, type TradingSocketOptions, TradingSocketServer } from './socket.js';
import { PnlStreams, PriceFanout } from './streams.js';

/** What the live part needs from the trading service. */
export type LiveTradingService = Pick<TradingService, 'closePosition' | 'loadOpenBook' | 'protectNegativeBalance'>;

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
}

export interface LiveTradingDeps {
  auth: AuthModule;
  market: MarketModule;
  service: LiveTradingService;
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
  let book: LiveBook | undefined;
  let risk: RiskEngine | undefined;
  let streams: PnlStreams | undefined;
  let prices: PriceFanout | undefined;
  const unsubscribers: Array<() => void> = [];
  /** Bus events that arrive while the book loads (start, resync), applied after it in arrival order. */
  let pending: Array<() => void> | null = null;
  const inOrder = (apply: () => void) => (pending ? pending.push(apply) : apply());
  let started = false;
  let resyncing: Promise<void> | undefined;
  let resyncAgain = false;
  let resyncRetry: NodeJS.Timeout | undefined;

  const sockets: TradingSocketServer = new TradingSocketServer({
    auth: deps.auth,
    clock: ctx.clock,
    pacing,
    log: ctx.log,
    options: { ...defaultSocketOptions, ...options.socket },
    handlers: {
      openPositions: async (conn) => {
        const account = book?.accountOfUser(conn.user!.userId);
        return account ? openPositionDtos(account) : [];
      },
      subscribePnl: (conn) => subscribePnl(conn),
      onClosed: (conn) => streams?.unsubscribe(conn),
    },
  });

  function openPositionDtos(account: LiveAccount): PositionDto[] {
    // Oldest first, as the REST calls list open positions.
    return [...account.positions.values()].sort((a, b) => a.state.id - b.state.id).map(toPositionDto);
  }

  async function subscribePnl(conn: TradingConnection): Promise<void> {
    if (!book || !streams || !risk) throw errors.unavailable('Live trading is starting');
    const userId = conn.user!.userId;
    let account = book.accountOfUser(userId);
    if (!account) {
      const row = await findAccountByUser(ctx.db.kysely, userId);
      if (!row) throw errors.tradingAccountNotFound();
      // An execution event may have created it meanwhile; ensureAccount keeps that newer state.
      account = book.ensureAccount(Number(row.id), userId, Number(row.balance_minor), Number(row.leverage));
    }
    if (conn.closed) return;
    conn.send('pnl_subscription_confirmed', { message: 'Subscribed to P&L updates' });
    // The current figures follow at once (a repeated subscription just gets them again).
    streams.subscribe(conn, account.accountId);
    const inCall = risk.inMarginCall(account);
    if (inCall) conn.sendRaw(marginCallFrame(inCall));
  }

  /**
   * docs/operations.md#redis-outages-and-leadership: after a bus outage (this node's or another's)
   * the events it hid are lost, so the book reloads balances, leverage and open positions (with
   * their protection) from the database, and each connected trader gets their positions again.
   * Resyncs that arrive while one runs are folded into one more.
   */
  function resync(): void {
    if (!started) return; // still starting: start() loads from the database anyway
    if (resyncing) {
      resyncAgain = true;
      return;
    }
    resyncing = reloadBook()
      .catch((err: unknown) => {
        ctx.log.error({ err }, 'reloading the open book after a bus outage failed; retrying');
        resyncRetry = setTimeout(resync, 5_000);
        resyncRetry.unref();
      })
      .finally(() => {
        resyncing = undefined;
        if (resyncAgain && started) {
          resyncAgain = false;
          resync();
        }
      });
  }

  async function reloadBook(): Promise<void> {
    const live = book;
    if (!live) return;
    const buffered: Array<() => void> = [];
    pending = buffered;
    const reloaded: LiveAccount[] = [];
    try {
      const entries = await service.loadOpenBook();
      const withPositions = new Set(entries.map((e) => Number(e.accountId)));
      // Accounts this node holds whose positions are all closed now: their balance moved too.
      const others = live.accountIds().filter((id) => !withPositions.has(id));
      const rows = others.length > 0 ? await accountsByIds(ctx.db.kysely, others) : [];
      for (const entry of entries) reloaded.push(live.replaceAccount(entry));
      for (const row of rows) {
        reloaded.push(
          live.replaceAccount({
            accountId: toAccountId(row.id),
            userId: Number(row.user_id),
            balanceMinor: Number(row.balance_minor),
            leverage: Number(row.leverage),
            status: row.status,
            positions: [],
          }),
        );
      }
    } finally {
      pending = null;
      for (const apply of buffered) apply();
    }
    for (const account of reloaded) {
      const conns = sockets.forUser(account.userId);
      if (!conns || conns.size === 0) continue;
      const frame = encodeMessage('positions_update', { data: openPositionDtos(account) });
      for (const conn of conns) conn.sendRaw(frame);
    }
    ctx.log.info({ accounts: reloaded.length }, 'open book reloaded after a bus outage');
  }

  function onAccountChanged(account: LiveAccount): void {
    risk?.evaluate(account);
    streams?.accountChanged(account);
  }

  function onExecution(event: BusEvents['execution']): void {
    if (!book) return;
    const payload = event.payload as ExecutionEvent;
    const account = book.applyExecution(event.accountId, event.userId, payload.account, payload.position_state);
    const conns = sockets.forUser(event.userId);
    if (!conns || conns.size === 0) return;
    const frames = [
      encodeMessage('order_confirmation', {
        data: { order: payload.order, position: payload.position, execution_details: payload.execution_details },
      }),
      // docs/api.md#trading-socket: every change of an order, an execution's too (made here, not a second bus message).
      encodeMessage('order_update', { data: { order: payload.order } }),
    ];
    if (payload.trades.length > 0) frames.push(encodeMessage('pnl_update', { trades: payload.trades }));
    if (payload.position_state) frames.push(encodeMessage('positions_update', { data: openPositionDtos(account) }));
    for (const conn of conns) conn.sendBatch(frames);
  }

  /** A change of one of the trader's orders that is not an execution (placed, modified, triggered, cancelled, expired). */
  function onOrderUpdate({ userId, order }: OrderUpdatePayload): void {
    const conns = sockets.forUser(userId);
    if (!conns || conns.size === 0) return;
    const frame = encodeMessage('order_update', { data: { order } });
    for (const conn of conns) conn.sendRaw(frame);
  }

  /** The trader changed a position's protection: the live book keeps it, the trader's sockets see the positions again. */
  function onPositionProtection(change: PositionProtectionPayload): void {
    const account = book?.account(change.accountId);
    const position = account?.positions.get(change.positionId);
    if (!account || !position) return;
    position.state = {
      ...position.state,
      stopLoss: change.stopLoss,
      takeProfit: change.takeProfit,
      trailingStopPips: change.trailingStopPips,
    };
    const conns = sockets.forUser(change.userId);
    if (!conns || conns.size === 0) return;
    const frame = encodeMessage('positions_update', { data: openPositionDtos(account) });
    for (const conn of conns) conn.sendRaw(frame);
  }

  function onMarginCall(account: LiveAccount, figures: Figures): void {
    const conns = sockets.forUser(account.userId);
    if (!conns || conns.size === 0) return;
    const frame = marginCallFrame(figures);
    for (const conn of conns) conn.sendRaw(frame);
  }

  function marginCallFrame(figures: Figures): Buffer {
    const level = figures.marginLevel!.toNumber(2);
    return encodeMessage('margin_call', {
      data: {
        margin_level: level,
        equity: figures.equity.toNumber(2),
        margin_used: figures.marginUsed.toNumber(2),
        message: `Margin call: your margin level is ${level.toFixed(2)}%. Positions are closed automatically from ${ctx.config.stopOutLevel}%, largest loss first.`,
      },
    });
  }

  function toPositionDto(position: LivePosition): PositionDto {
    const value = { currentPrice: position.currentPrice, unrealizedPnl: position.unrealized, margin: position.margin };
    return positionDto(position.state, value, position.pair);
  }

  return {
    registerSockets: (app) => sockets.register(app),

    async start() {
      const live = new LiveBook(market.pairs.list(), onAccountChanged);
      book = live;
      streams = new PnlStreams(live, pacing, ctx.log);
      prices = new PriceFanout(sockets.authenticated, (symbol) => market.pairs.get(symbol), pacing, ctx.log);
      risk = new RiskEngine({
        book: live,
        service,
        marginCallLevel: ctx.config.marginCallLevel,
        stopOutLevel: ctx.config.stopOutLevel,
        // docs/operations.md#one-process-or-many: in a multi-node deployment only the price-source leader closes positions.
        runsStopOuts: () => market.isLeader(),
        onMarginCall,
        clock: ctx.clock,
        log: ctx.log,
      });

      // Follow executions before loading the book, so none committed meanwhile is missed;
      // they are applied, in order, once the book is loaded.
      pending = [];
      unsubscribers.push(
        ctx.bus.subscribe('execution', (event) => inOrder(() => onExecution(event))),
        ctx.bus.subscribe('message', ({ topic, payload }) => {
          if (topic === ORDER_UPDATE_TOPIC) return onOrderUpdate(payload as OrderUpdatePayload);
          if (topic === POSITION_PROTECTION_TOPIC)
            return inOrder(() => onPositionProtection(payload as PositionProtectionPayload));
          if (topic !== BALANCE_ADJUSTED_TOPIC) return;
          const { accountId, balance_minor } = payload as BalanceAdjustedPayload;
          inOrder(() => live.setBalance(accountId, balance_minor));
        }),
        ctx.bus.subscribe('session_revoked', ({ sessionId }) => sockets.closeSession(sessionId)),
        ctx.bus.subscribe('user_disabled', ({ userId }) => sockets.closeUser(userId)),
        ctx.bus.subscribe('resync', () => resync()),
        market.prices.onTick((quote) => {
          live.onTick(quote);
          prices?.onTick(quote);
        }),
      );
      for (const quote of market.prices.all()) live.seedPrice(quote);
      // docs/operations.md#deposits: balances another process changes from here on are reloaded.
      const accountChanges = new AccountReloader({
        db: ctx.db,
        bus: ctx.bus,
        log: ctx.log,
        book: live,
        paused: () => pending !== null,
      });
      await accountChanges.mark();
      for (const entry of await service.loadOpenBook()) live.loadAccount(entry);
      const buffered = pending;
      pending = null;
      for (const apply of buffered) apply();
      sockets.start();
      started = true;
      accountChanges.start();
      unsubscribers.push(() => accountChanges.stop());
      // Accounts already at risk when the server starts are handled now, not at their next tick.
      for (const account of live.accountsWithPositions()) risk.evaluate(account);
    },

    async stop() {
      started = false;
      clearTimeout(resyncRetry);
      for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
      await resyncing;
      sockets.stop();
      streams?.stop();
      prices?.stop();
      await risk?.stop();
    },

    accountFigures(accountId) {
      const account = book?.account(accountId);
      return account && book ? book.figures(account) : undefined;
    },

    accountSnapshot(accountId) {
      const account = book?.account(accountId);
      if (!account || !book) return undefined;
      return { figures: book.figures(account), positions: [...account.positions.values()].map((p) => p.state) };
    },
  };
}
