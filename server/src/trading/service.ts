import {
  type ClosePositionResponse,
  Dec,
  executionPrice,
  isLotStep,
  marginUsd,
  ORDERS_PAGE_SIZE,
  type OrderDto,
  type OrderReason,
  type OrderSide,
  type OrdersQuery,
  type PairTradingDto,
  type PlaceMarketOrderResponse,
  type PlatformDataDto,
  type PositionDto,
  RECENT_ORDERS_LIMIT,
  RECENT_TRADES_LIMIT,
  type TradingAccountDto,
  type UserDto,
} from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import { postLedgerEntry } from '../accounts/repo.js';
import type { AppContext } from '../core/context.js';
import type { Database } from '../db/schema.js';
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import { pairDto } from '../market/catalogue.js';
import type { MarketModule, Pair } from '../market/index.js';
import {
  iso,
  lotsFromCentilotsNumber,
  money,
  moneyFromMinor,
  orderDto,
  positionDto,
  positionStateFromRow,
  priceToE10,
  tradeDto,
  tradingAccountDto,
} from './dto.js';
import {
  IDEMPOTENCY_KEY_TTL_MS,
  InFlightKeys,
  keyReused,
  replayedFailure,
  requestHash,
  type StoredAnswer,
} from './idempotency.js';
import { applyFill, centilotsFromLots, lotsFromCentilots, Pricing, toMinor, valueAccount, valuePosition } from './math.js';
import { INITIAL_ORDER_STATUS, transition } from './order-status.js';
import type { OrderFilters, OrderRow, PositionRow } from './repo.js';
import * as repo from './repo.js';
import {
  type ExecutionEvent,
  type OpenBookAccount,
  type PositionState,
  accountId as toAccountId,
  positionId as toPositionId,
} from './types.js';
import { createWriteBatcher } from './write-batcher.js';

export type { ExecutionEvent, OpenBookAccount, PositionState } from './types.js';

// ------------------------------------------------------------------ the seam with live/ (T2)

export interface PlaceOrderInput {
  symbol: string;
  side: OrderSide;
  /** Lots. */
  quantity: number;
}

export type PlaceOrderResult = PlaceMarketOrderResponse;
export type ClosePositionResult = ClosePositionResponse;

export interface TradingService {
  /**
   * Executes a market order for the trader. Throws AppError: 400 invalid input (nothing
   * stored), 409 no trading account / key in flight, 422 business rejection (the REJECTED
   * order is stored and the error carries `{data:{order}}`) or key reused with another body.
   */
  placeMarketOrder(userId: number, input: PlaceOrderInput, idempotencyKey?: string): Promise<PlaceOrderResult>;
  /**
   * Closes the whole position at the current bid (long) or ask (short). 404 when it is not
   * the trader's, 409 when already closed, 422 when no price (stored REJECTED).
   * `reason: 'stop_out'` marks the order as the risk engine's and works on a suspended account.
   */
  closePosition(
    userId: number,
    positionId: number,
    options: { currentPrice?: number; reason: 'client' | 'stop_out' },
  ): Promise<ClosePositionResult>;
  /** All OPEN positions of all accounts with account balance/leverage: loaded once at start by the live cache. */
  loadOpenBook(): Promise<OpenBookAccount[]>;
  /**
   * Negative balance protection after a stop-out: once the account has no open position left
   * and its balance is below 0, a ledger adjustment brings it back to 0 (and bus topic
   * 'message' carries `{topic:'trading.balance_adjusted', payload:{userId, accountId,
   * balance_minor, amount_minor}}`). Returns the adjustment in cents (0 if none).
   */
  protectNegativeBalance(accountId: number): Promise<number>;
}

/** Bus 'message' topic published after a negative balance adjustment. */
export const BALANCE_ADJUSTED_TOPIC = 'trading.balance_adjusted';

// ------------------------------------------------------------------ the rest of the service

export interface OrdersPageData {
  count: number;
  page: number;
  pageSize: number;
  results: OrderDto[];
}

export interface TradingServiceImpl extends TradingService {
  readonly pricing: Pricing;
  /** Like placeMarketOrder, telling whether the answer is a stored one replayed for an Idempotency-Key. */
  placeMarketOrderDetailed(
    userId: number,
    input: PlaceOrderInput,
    idempotencyKey?: string,
  ): Promise<{ response: PlaceOrderResult; replayed: boolean }>;
  platformData(user: UserDto): Promise<PlatformDataDto>;
  listOrders(userId: number, query: OrdersQuery): Promise<OrdersPageData>;
  /** The trader part of the pair page: open positions and last orders on the pair, and the account. */
  pairTrading(userId: number, symbol: string): Promise<PairTradingDto>;
  /** Deletes Idempotency-Keys older than their retention; returns how many. */
  purgeIdempotencyKeys(): Promise<number>;
}

type AccountRow = NonNullable<Awaited<ReturnType<typeof repo.lockAccountByUser>>>;

interface ExecutionRequest {
  account: AccountRow;
  pair: Pair;
  side: OrderSide;
  quantityCentilots: number;
  reason: OrderReason;
  /** The open positions of the account (read inside the transaction). */
  positions: PositionRow[];
  /** The position this order must fill into (a close); otherwise the account's open one on the pair, if any. */
  target?: PositionRow;
  clientPrice?: number;
  /** A stop-out proceeds on a suspended account. */
  ignoreAccountStatus?: boolean;
}

type Execution =
  | {
      kind: 'filled';
      order: OrderRow;
      position: PositionState;
      tradeId: number;
      realizedMinor: number;
      price: Dec;
      marginRequired: Dec;
      units: Dec;
      balanceMinor: number;
      executedAt: number;
    }
  | { kind: 'rejected'; order: OrderRow; code: string; message: string; balanceMinor: number };

const REJECTION = {
  notActive: { code: 'ACCOUNT_NOT_ACTIVE', message: 'Trading account is not active' },
  noPrice: (what: string) => ({ code: 'NO_PRICE', message: `No price available for ${what}` }),
  margin: (required: Dec, free: Dec) => ({
    code: 'INSUFFICIENT_MARGIN',
    message: `Insufficient free margin: this order needs ${usd(required)} of margin and ${usd(Dec.max(free, Dec.ZERO))} is free`,
  }),
};

function usd(amount: Dec): string {
  const [whole, cents] = amount.toFixed(2).split('.');
  return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents} USD`;
}

const fieldError = (field: string, message: string) => errors.validation(`${field}: ${message}`, [{ field, message }]);

export function createTradingService(ctx: AppContext, market: Pick<MarketModule, 'pairs' | 'prices'>): TradingServiceImpl {
  const { db, clock, bus } = ctx;
  const pricing = new Pricing(market.pairs, market.prices);
  const inFlight = new InFlightKeys();
  const writes = createWriteBatcher(db);

  /** DESIGN §3 validation: 400 and nothing stored. */
  function validateOrder(input: PlaceOrderInput): { pair: Pair; quantityCentilots: number } {
    const symbol = input.symbol.trim().toUpperCase();
    const pair = market.pairs.get(symbol);
    if (!pair?.isActive) throw fieldError('symbol', `${symbol} is not a tradable currency pair`);
    if (input.side !== 'BUY' && input.side !== 'SELL') throw fieldError('side', 'must be BUY or SELL');
    if (!isLotStep(input.quantity)) throw fieldError('quantity', 'must be a positive multiple of 0.01');
    const lots = Dec.from(input.quantity);
    if (lots.lt(pair.minLotSize)) throw fieldError('quantity', `must be at least ${pair.minLotSize}`);
    if (lots.gt(pair.maxLotSize)) throw fieldError('quantity', `must be at most ${pair.maxLotSize}`);
    return { pair, quantityCentilots: centilotsFromLots(lots) };
  }

  /**
   * One execution inside the caller's write transaction: the order (FILLED or REJECTED), the
   * trade, the position and the ledger entry, all or nothing.
   */
  async function execute(trx: Kysely<Database>, req: ExecutionRequest): Promise<Execution> {
    const now = clock.now();
    const { account, pair } = req;
    const balanceMinor = Number(account.balance_minor);
    const leverage = Number(account.leverage);
    const baseOrder = {
      account_id: Number(account.id),
      pair_id: pair.id,
      symbol: pair.symbol,
      order_type: 'MARKET' as const,
      side: req.side,
      quantity_centilots: req.quantityCentilots,
      price_e10: null,
      reason: req.reason,
      client_price_e10: req.clientPrice === undefined ? null : priceToE10(Dec.from(req.clientPrice)),
      submitted_at: now,
      created_at: now,
      updated_at: now,
    };
    const reject = async (why: { code: string; message: string }): Promise<Execution> => {
      const row = {
        ...baseOrder,
        filled_quantity_centilots: 0,
        average_fill_price_e10: null,
        status: transition(INITIAL_ORDER_STATUS, 'REJECT'),
        rejection_reason: why.message,
        position_id: null,
      };
      const id = await repo.insertOrder(trx, row);
      return { kind: 'rejected', order: { id, ...row }, code: why.code, message: why.message, balanceMinor };
    };

    if (account.status !== 'ACTIVE' && !req.ignoreAccountStatus) return reject(REJECTION.notActive);
    const quote = pricing.quote(pair.symbol);
    if (!quote) return reject(REJECTION.noPrice(pair.symbol));
    const baseRate = pricing.usdRate(pair.baseCurrency);
    const quoteRate = pricing.usdRate(pair.quoteCurrency);
    if (!baseRate) return reject(REJECTION.noPrice(`${pair.baseCurrency} to USD`));
    if (!quoteRate) return reject(REJECTION.noPrice(`${pair.quoteCurrency} to USD`));

    const existing = req.target ?? req.positions.find((p) => Number(p.pair_id) === pair.id);
    const oldState = existing ? positionStateFromRow(existing) : undefined;
    const price = executionPrice(req.side, quote);
    const lots = lotsFromCentilots(req.quantityCentilots);
    const oldQuantity = lotsFromCentilots(oldState?.quantityCentilots ?? 0);
    const fill = applyFill(
      {
        quantity: oldQuantity,
        averageEntryPrice: oldState ? Dec.from(oldState.averageEntryPrice) : Dec.ZERO,
      },
      req.side === 'BUY' ? lots : lots.neg(),
      price,
    );
    const units = lots.times(pair.contractSize);
    const marginRequired = marginUsd(units, baseRate, leverage);

    if (fill.quantity.abs().gt(oldQuantity.abs())) {
      // Only the added exposure needs free margin (a flip first releases the old side's margin).
      const added = fill.quantity.abs().minus(oldQuantity.abs()).times(pair.contractSize);
      const required = marginUsd(added, baseRate, leverage);
      const figures = valueAccount(balanceMinor, leverage, req.positions.map(positionStateFromRow), pricing);
      if (required.gt(figures.freeMargin)) return reject(REJECTION.margin(required, figures.freeMargin));
    }

    const realizedMinor = toMinor(quoteRate.convert(fill.realized.times(pair.contractSize)));
    const quantityCentilots = centilotsFromLots(fill.quantity);
    const closed = quantityCentilots === 0;
    let position: PositionState;
    if (existing && oldState) {
      position = {
        ...oldState,
        quantityCentilots,
        averageEntryPrice: fill.averageEntryPrice.toString(),
        status: closed ? 'CLOSED' : 'OPEN',
        realizedPnlMinor: oldState.realizedPnlMinor + realizedMinor,
        updatedAt: now,
        closedAt: closed ? now : null,
      };
      await repo.updatePosition(trx, position.id, {
        quantity_centilots: quantityCentilots,
        average_entry_price_e10: priceToE10(fill.averageEntryPrice),
        realized_pnl_minor: position.realizedPnlMinor,
        status: position.status,
        updated_at: now,
        closed_at: position.closedAt,
      });
    } else {
      const id = await repo.insertPosition(trx, {
        account_id: Number(account.id),
        pair_id: pair.id,
        symbol: pair.symbol,
        quantity_centilots: quantityCentilots,
        average_entry_price_e10: priceToE10(fill.averageEntryPrice),
        realized_pnl_minor: 0,
        status: 'OPEN',
        created_at: now,
        updated_at: now,
        closed_at: null,
      });
      position = {
        id: toPositionId(id),
        accountId: toAccountId(account.id),
        pairId: pair.id,
        symbol: pair.symbol,
        quantityCentilots,
        averageEntryPrice: fill.averageEntryPrice.toString(),
        status: 'OPEN',
        realizedPnlMinor: 0,
        createdAt: now,
        updatedAt: now,
        closedAt: null,
      };
    }

    const orderRow = {
      ...baseOrder,
      filled_quantity_centilots: req.quantityCentilots,
      average_fill_price_e10: priceToE10(price),
      status: transition(INITIAL_ORDER_STATUS, 'FILL'),
      rejection_reason: null,
      position_id: position.id as number,
    };
    const orderId = await repo.insertOrder(trx, orderRow);
    const tradeId = await repo.insertTrade(trx, {
      account_id: Number(account.id),
      order_id: orderId,
      position_id: position.id,
      pair_id: pair.id,
      symbol: pair.symbol,
      side: req.side,
      quantity_centilots: req.quantityCentilots,
      price_e10: priceToE10(price),
      realized_pnl_minor: realizedMinor,
      executed_at: now,
    });
    const balanceAfter =
      realizedMinor === 0
        ? balanceMinor
        : await postLedgerEntry(trx, {
            accountId: Number(account.id),
            kind: 'realized_pnl',
            amountMinor: realizedMinor,
            reference: `trade:${tradeId}`,
            now,
          });
    return {
      kind: 'filled',
      order: { id: orderId, ...orderRow },
      position,
      tradeId,
      realizedMinor,
      price,
      marginRequired,
      units,
      balanceMinor: balanceAfter,
      executedAt: now,
    };
  }

  function filledAnswer(execution: Extract<Execution, { kind: 'filled' }>, leverage: number, pair: Pair) {
    const value = valuePosition(execution.position, leverage, pricing);
    return {
      order: orderDto(execution.order, pair),
      position: positionDto(execution.position, value, pair),
      execution_details: {
        execution_price: execution.price.toNumber(pair.digits),
        margin_required: money(execution.marginRequired),
        units: execution.units.toNumber(),
        executed_at: iso(execution.executedAt),
      },
    };
  }

  function publish(
    userId: number,
    account: AccountRow,
    execution: Execution,
    answer: ReturnType<typeof filledAnswer> | null,
    pair: Pair,
  ) {
    const payload: ExecutionEvent =
      execution.kind === 'filled' && answer
        ? {
            ...answer,
            trades:
              execution.realizedMinor === 0
                ? []
                : [
                    {
                      trade_id: execution.tradeId,
                      position_id: execution.position.id,
                      pnl: moneyFromMinor(execution.realizedMinor),
                    },
                  ],
            account: { balance_minor: execution.balanceMinor, leverage: Number(account.leverage) },
            position_state: execution.position,
          }
        : {
            order: orderDto(execution.order, pair),
            position: null,
            execution_details: null,
            trades: [],
            account: { balance_minor: execution.balanceMinor, leverage: Number(account.leverage) },
            position_state: null,
          };
    try {
      bus.publish('execution', { userId, accountId: Number(account.id), payload });
    } catch (err) {
      // The execution is committed; a failing listener must not turn it into an error answer.
      ctx.log.error({ err }, 'publishing an execution failed');
    }
  }

  const rejectionError = (execution: Extract<Execution, { kind: 'rejected' }>, pair: Pair) =>
    errors.unprocessable(execution.message, execution.code, { data: { order: orderDto(execution.order, pair) } });

  const noAccount = () =>
    errors.conflict('Trading Not Available: Please complete your registration process to access trading.', 'NO_TRADING_ACCOUNT');

  async function placeMarketOrderDetailed(userId: number, input: PlaceOrderInput, idempotencyKey?: string) {
    const { pair, quantityCentilots } = validateOrder(input);
    const hash = idempotencyKey
      ? requestHash({ symbol: pair.symbol, side: input.side, quantity: lotsFromCentilotsNumber(quantityCentilots) })
      : '';
    const release = idempotencyKey ? inFlight.acquire(userId, idempotencyKey, hash) : undefined;
    try {
      const outcome = await writes.run(async (trx) => {
        const account = await repo.lockAccountByUser(trx, userId);
        if (!account) throw noAccount();
        if (idempotencyKey) {
          const stored = await repo.findIdempotencyKey(trx, userId, idempotencyKey);
          if (stored) {
            if (stored.request_hash !== hash) throw keyReused();
            const answer: StoredAnswer = { status: stored.response_status, body: JSON.parse(stored.response_body) };
            return { kind: 'replay' as const, answer };
          }
        }
        const positions = await repo.openPositions(trx, Number(account.id));
        const execution = await execute(trx, { account, pair, side: input.side, quantityCentilots, reason: 'client', positions });
        const answer = execution.kind === 'filled' ? filledAnswer(execution, Number(account.leverage), pair) : null;
        if (idempotencyKey) {
          const error = execution.kind === 'rejected' ? rejectionError(execution, pair) : null;
          await repo.insertIdempotencyKey(trx, {
            user_id: userId,
            idempotency_key: idempotencyKey,
            request_hash: hash,
            response_status: error ? error.status : 201,
            response_body: JSON.stringify(
              error ? { success: false, error: error.message, code: error.code, ...error.body } : { success: true, data: answer },
            ),
            created_at: execution.order.created_at,
          });
        }
        return { kind: 'executed' as const, account, execution, answer };
      });
      if (outcome.kind === 'replay') {
        if (outcome.answer.status !== 201) throw replayedFailure(outcome.answer);
        return { response: outcome.answer.body.data as PlaceOrderResult, replayed: true };
      }
      const { account, execution, answer } = outcome;
      publish(userId, account, execution, answer, pair);
      if (execution.kind === 'rejected') throw rejectionError(execution, pair);
      return { response: answer!, replayed: false };
    } finally {
      release?.();
    }
  }

  async function closePosition(
    userId: number,
    positionId: number,
    options: { currentPrice?: number; reason: 'client' | 'stop_out' },
  ): Promise<ClosePositionResult> {
    const notFound = () => errors.notFound('Position not found', 'POSITION_NOT_FOUND');
    if (!Number.isSafeInteger(positionId) || positionId <= 0) throw notFound();
    const outcome = await writes.run(async (trx) => {
      const account = await repo.lockAccountByUser(trx, userId);
      if (!account) throw notFound();
      const positions = await repo.openPositions(trx, Number(account.id));
      const target =
        positions.find((p) => Number(p.id) === positionId) ?? (await repo.findPosition(trx, Number(account.id), positionId));
      if (!target) throw notFound();
      if (target.status !== 'OPEN' || Number(target.quantity_centilots) === 0) {
        throw errors.conflict('Position is already closed', 'POSITION_CLOSED');
      }
      const pair = market.pairs.get(target.symbol);
      if (!pair) throw errors.unavailable(`Currency pair ${target.symbol} is missing from the catalogue`);
      const quantity = Number(target.quantity_centilots);
      const execution = await execute(trx, {
        account,
        pair,
        side: quantity > 0 ? 'SELL' : 'BUY',
        quantityCentilots: Math.abs(quantity),
        reason: options.reason === 'stop_out' ? 'stop_out' : 'close',
        positions,
        target,
        ...(options.currentPrice === undefined ? {} : { clientPrice: options.currentPrice }),
        ignoreAccountStatus: options.reason === 'stop_out',
      });
      const answer = execution.kind === 'filled' ? filledAnswer(execution, Number(account.leverage), pair) : null;
      return { account, pair, execution, answer };
    });
    const { account, pair, execution, answer } = outcome;
    publish(userId, account, execution, answer, pair);
    if (execution.kind === 'rejected') throw rejectionError(execution, pair);
    return {
      profit_loss: moneyFromMinor(execution.realizedMinor),
      close_price: execution.price.toNumber(pair.digits),
      order: answer!.order,
      position: answer!.position,
    };
  }

  function accountAnswer(
    account: { id: number; balance_minor: number; leverage: number; currency: string | null },
    states: PositionState[],
  ): { account: TradingAccountDto; positions: PositionDto[] } {
    const leverage = Number(account.leverage);
    const value = valueAccount(Number(account.balance_minor), leverage, states, pricing);
    return {
      account: tradingAccountDto(account, value),
      positions: states.map((s) => positionDto(s, value.positions.get(s.id), pricing.pair(s.symbol))),
    };
  }

  const activePairs = () =>
    market.pairs
      .list()
      .filter((p) => p.isActive)
      .map(pairDto);

  async function platformData(user: UserDto): Promise<PlatformDataDto> {
    const fx_pairs = activePairs();
    const empty = { open_positions: [], recent_orders: [], recent_trades: [], trading_mode: 'live' as const };
    const read = await repo.readSnapshot(db, async (q) => {
      const row = await repo.findAccountAndProfile(q, user.id);
      if (row?.account_id === null || row === undefined) return { row, positions: [], orders: [], trades: [] };
      const id = Number(row.account_id);
      // One after the other: a snapshot is one connection, so parallel queries would only queue.
      const positions = await repo.openPositions(q, id);
      const orders = await repo.recentOrders(q, id, RECENT_ORDERS_LIMIT);
      const trades = await repo.recentTrades(q, id, RECENT_TRADES_LIMIT);
      return { row, positions, orders, trades };
    });
    const { row } = read;
    if (!row) return { trader_profile: null, trading_account: null, fx_pairs, ...empty };
    const trader_profile = { id: Number(row.profile_id), user };
    if (row.account_id === null) return { trader_profile, trading_account: null, fx_pairs, ...empty };
    const { account, positions: open } = accountAnswer(
      {
        id: Number(row.account_id),
        balance_minor: Number(row.balance_minor),
        leverage: Number(row.leverage),
        currency: row.currency,
      },
      read.positions.map(positionStateFromRow),
    );
    return {
      trader_profile,
      trading_account: account,
      fx_pairs,
      open_positions: open,
      recent_orders: read.orders.map((o) => orderDto(o, pricing.pair(o.symbol))),
      recent_trades: read.trades.map((t) => tradeDto(t, pricing.pair(t.symbol))),
      trading_mode: 'live',
    };
  }

  async function pairTrading(userId: number, symbol: string): Promise<PairTradingDto> {
    const read = await repo.readSnapshot(db, async (q) => {
      const account = await repo.findAccountByUser(q, userId);
      if (!account) return undefined;
      const positions = await repo.openPositions(q, Number(account.id));
      const orders = await repo.recentOrders(q, Number(account.id), RECENT_ORDERS_LIMIT, symbol);
      return { account, positions, orders };
    });
    if (!read) return { positions: [], recent_orders: [], trading_account: null };
    const answer = accountAnswer(read.account, read.positions.map(positionStateFromRow));
    const pair = pricing.pair(symbol);
    return {
      positions: answer.positions.filter((p) => p.fx_pair_symbol === symbol),
      recent_orders: read.orders.map((o) => orderDto(o, pair)),
      trading_account: answer.account,
    };
  }

  async function listOrders(userId: number, query: OrdersQuery): Promise<OrdersPageData> {
    const page = query.page ?? 1;
    const pageSize = query.page_size ?? ORDERS_PAGE_SIZE;
    const filters: OrderFilters = {
      ...(query.fx_pair ? { symbolContains: query.fx_pair.toUpperCase().replace(/[/\s-]/g, '') } : {}),
      ...(query.side ? { side: query.side } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.order_type ? { orderType: query.order_type } : {}),
      ...(query.date_from ? { createdFrom: dateBound(query.date_from, 'from') } : {}),
      ...(query.date_to ? { createdTo: dateBound(query.date_to, 'to') } : {}),
    };
    if (filters.createdFrom !== undefined && filters.createdTo !== undefined && filters.createdFrom > filters.createdTo) {
      throw fieldError('date_from', 'must not be after date_to');
    }
    const read = await repo.readSnapshot(db, async (q) => {
      const account = await repo.findAccountByUser(q, userId);
      if (!account) return { count: 0, rows: [] };
      const id = Number(account.id);
      const count = await repo.countOrders(q, id, filters);
      const rows = await repo.listOrders(q, id, filters, query.ordering ?? '-created_at', (page - 1) * pageSize, pageSize);
      return { count, rows };
    });
    return { count: read.count, page, pageSize, results: read.rows.map((o) => orderDto(o, pricing.pair(o.symbol))) };
  }

  async function loadOpenBook(): Promise<OpenBookAccount[]> {
    const { accounts, positions } = await repo.openBook(db.kysely);
    const byAccount = new Map<number, PositionState[]>();
    for (const p of positions) {
      const state = positionStateFromRow(p);
      const list = byAccount.get(state.accountId) ?? [];
      list.push(state);
      byAccount.set(state.accountId, list);
    }
    return accounts.map((a) => ({
      accountId: toAccountId(a.id),
      userId: Number(a.user_id),
      balanceMinor: Number(a.balance_minor),
      leverage: Number(a.leverage),
      status: a.status,
      positions: byAccount.get(Number(a.id)) ?? [],
    }));
  }

  async function protectNegativeBalance(accountIdValue: number): Promise<number> {
    const result = await writes.run(async (trx) => {
      const account = await repo.lockAccountById(trx, accountIdValue);
      if (!account || Number(account.balance_minor) >= 0) return null;
      if ((await repo.openPositions(trx, accountIdValue)).length > 0) return null;
      const amount = -Number(account.balance_minor);
      const balance = await postLedgerEntry(trx, {
        accountId: accountIdValue,
        kind: 'negative_balance_adjustment',
        amountMinor: amount,
        reference: 'stop_out',
        now: clock.now(),
      });
      return { userId: Number(account.user_id), amount, balance };
    });
    if (!result) return 0;
    bus.publish('message', {
      topic: BALANCE_ADJUSTED_TOPIC,
      payload: { userId: result.userId, accountId: accountIdValue, balance_minor: result.balance, amount_minor: result.amount },
    });
    return result.amount;
  }

  async function purgeIdempotencyKeys(): Promise<number> {
    return writeTransaction(db, (trx) => repo.deleteIdempotencyKeysBefore(trx, clock.now() - IDEMPOTENCY_KEY_TTL_MS));
  }

  return {
    pricing,
    placeMarketOrder: async (userId, input, key) => (await placeMarketOrderDetailed(userId, input, key)).response,
    placeMarketOrderDetailed,
    closePosition,
    loadOpenBook,
    protectNegativeBalance,
    platformData,
    listOrders,
    pairTrading,
    purgeIdempotencyKeys,
  };
}

/** `YYYY-MM-DD` is a whole UTC day (inclusive at both ends); an ISO date-time is an instant. */
export function dateBound(text: string, side: 'from' | 'to'): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const start = Date.parse(`${text}T00:00:00.000Z`);
    return side === 'from' ? start : start + 86_400_000 - 1;
  }
  // A date-time without a zone is UTC, like the dates.
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
}
