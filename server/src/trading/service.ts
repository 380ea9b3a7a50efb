import type {
  ModifyPositionResponse,
  OrderResponse,
  OrdersQuery,
  PairTradingDto,
  PerformanceDto,
  PlatformDataDto,
  UserDto,
} from '@pipdesk/contract';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
import type { MarketModule } from '../market/index.js';
import { AccountMarkets } from './account-markets.js';
import type { ChallengeRulesSource } from './challenge.js';
import { cancelOrder } from './commands/cancel-order.js';
import { type ClosePositionOptions, type ClosePositionResult, closePosition } from './commands/close-position.js';
import { type ModifyOrderInput, modifyOrder } from './commands/modify-order.js';
import { type ModifyPositionInput, modifyPosition } from './commands/modify-position.js';
import { type PlaceOrderInput, type PlaceOrderResult, placeMarketOrder } from './commands/place-market-order.js';
import { type PlacePendingOrderInput, type PlacePendingOrderResult, placePendingOrder } from './commands/place-pending-order.js';
import { protectNegativeBalance } from './commands/protect-negative-balance.js';
import { purgeIdempotencyKeys } from './commands/purge-idempotency-keys.js';
import { type ResetAccountInput, type ResetAccountResult, resetAccount } from './commands/reset-account.js';
import { createTriggerExecutor } from './commands/triggers.js';
import type { TradingDeps } from './deps.js';
import type { TriggerExecutor } from './engine/ports.js';
import { InFlightKeys } from './idempotency.js';
import { Pricing } from './math.js';
import { performanceOfUser } from './performance/service.js';
import { loadOpenBook } from './queries/open-book.js';
import { exportOrdersCsv } from './queries/orders-export.js';
import { listOrders, type OrdersPageData } from './queries/orders-page.js';
import { pairTrading } from './queries/pair-trading.js';
import { platformData } from './queries/platform-data.js';
import { accountId, type OpenBookAccount, optionalAccountId, orderId, positionId, type UserId, userId } from './types.js';
import { createWriteBatcher } from './write-batcher.js';

// The trading service: a thin facade over the commands (commands/), the read models
// (queries/), the execution (execution.ts) and the answers (presenter.ts).

export type { ClosePositionOptions, ClosePositionResult } from './commands/close-position.js';
export type { ModifyOrderInput } from './commands/modify-order.js';
export type { ModifyPositionInput } from './commands/modify-position.js';
export type { PlaceOrderInput, PlaceOrderResult } from './commands/place-market-order.js';
export type { PlacePendingOrderInput, PlacePendingOrderResult } from './commands/place-pending-order.js';
export type { ResetAccountInput, ResetAccountResult } from './commands/reset-account.js';
export {
  BALANCE_ADJUSTED_TOPIC,
  ORDER_UPDATE_TOPIC,
  type OrderUpdatePayload,
  POSITION_PROTECTION_TOPIC,
  type PositionProtectionPayload,
} from './events.js';
export { dateBound, type OrdersPageData } from './queries/orders-page.js';
export type { ExecutionEvent, OpenBookAccount, PositionState } from './types.js';

// ------------------------------------------------------------------ the seam with live/ (docs/ARCHITECTURE.md)

/**
 * The calls take plain numbers (ids from the live book and tests) and brand them here. A trailing
 * `account` is the account the caller named (docs/accounts.md#choosing-the-account), already checked
 * to be theirs; left out, the trader's primary account.
 */
export interface TradingService {
  /**
   * Executes a market order for the trader. Throws AppError: 400 invalid input (nothing
   * stored), 409 no trading account / key in flight, 422 business rejection (the REJECTED
   * order is stored and the error carries `{data:{order}}`) or key reused with another body.
   */
  placeMarketOrder(userId: number, input: PlaceOrderInput, idempotencyKey?: string, account?: number): Promise<PlaceOrderResult>;
  /**
   * Closes the whole position at the current bid (long) or ask (short). 404 when it is not
   * the trader's, 409 when already closed, 422 when no price (stored REJECTED).
   * `reason: 'stop_out'` marks the order as the risk engine's and works on a suspended account.
   */
  closePosition(userId: number, positionId: number, options: ClosePositionOptions): Promise<ClosePositionResult>;
  /** All OPEN positions of all accounts with account balance/leverage: loaded once at start by the live cache. */
  loadOpenBook(): Promise<OpenBookAccount[]>;
  /**
   * Negative balance protection after a stop-out: once the account has no open position left
   * and its balance is below 0, a ledger adjustment brings it back to 0 (and bus topic
   * 'message' carries `{topic:'trading.balance_adjusted', payload:{userId, accountId,
   * balance_minor, amount_minor}}`). Returns the adjustment in cents (0 if none).
   */
  protectNegativeBalance(accountId: number): Promise<number>;
  /**
   * The durable executor of the trigger engine (engine/ports.ts): fills, rejects, expires and
   * closes by protection in the same serialized write path as a market order.
   */
  readonly triggers: TriggerExecutor;
}

// ------------------------------------------------------------------ the rest of the service

export interface TradingServiceImpl extends TradingService {
  readonly pricing: Pricing;
  /** Accounts on a market of their own (a replay session's), and the dependencies each one's calls run with. */
  readonly markets: AccountMarkets;
  /** Like placeMarketOrder, telling whether the answer is a stored one replayed for an Idempotency-Key. */
  placeMarketOrderDetailed(
    userId: number,
    input: PlaceOrderInput,
    idempotencyKey?: string,
    account?: number,
  ): Promise<{ response: PlaceOrderResult; replayed: boolean }>;
  platformData(user: UserDto, account?: number): Promise<PlatformDataDto>;
  listOrders(userId: UserId, query: OrdersQuery, account?: number): Promise<OrdersPageData>;
  /** The trader part of the pair page: open positions and last orders on the pair, and the account. */
  pairTrading(userId: UserId, symbol: string, account?: number): Promise<PairTradingDto>;
  /** Deletes Idempotency-Keys older than their retention; returns how many. */
  purgeIdempotencyKeys(): Promise<number>;
  /** Places a LIMIT, STOP or STOP_LIMIT order (docs/orders.md); tells whether the answer is a replayed one. */
  placePendingOrderDetailed(
    userId: number,
    input: PlacePendingOrderInput,
    idempotencyKey?: string,
    account?: number,
  ): Promise<{ response: PlacePendingOrderResult; replayed: boolean }>;
  /** Changes a PENDING order: 404 not the trader's, 409 unless PENDING, 400 naming the field. */
  modifyOrder(userId: number, orderId: number, input: ModifyOrderInput, account?: number): Promise<OrderResponse>;
  /**
   * Cancels a PENDING order: 404 not the trader's, 409 unless PENDING. `by: 'evaluation'` is an
   * ended attempt's own cancel on its read-only account (docs/evaluations.md).
   */
  cancelOrder(userId: number, orderId: number, account?: number, by?: 'client' | 'evaluation'): Promise<OrderResponse>;
  /** Sets or clears an open position's protection: 404 not the trader's, 409 when closed, 400 naming the field. */
  modifyPosition(
    userId: number,
    positionId: number,
    input: ModifyPositionInput,
    account?: number,
  ): Promise<ModifyPositionResponse>;
  /** Every order matching the orders/ filters as CSV text chunks (header first); 400 on bad filters, thrown at once. */
  exportOrders(userId: UserId, query: OrdersQuery, account?: number): AsyncGenerator<string>;
  /** The statistics of one of the trader's accounts (docs/performance.md), valued on the account's own market. */
  accountPerformance(userId: number, account: number): Promise<PerformanceDto>;
  /** The academy's reset of a trader's account (docs/academy.md#reset); tells whether the answer is a replayed one. */
  resetAccount(input: ResetAccountInput, idempotencyKey?: string): Promise<{ response: ResetAccountResult; replayed: boolean }>;
}

export function createTradingService(
  ctx: AppContext,
  market: Pick<MarketModule, 'pairs' | 'prices'>,
  /** The order rules of evaluation accounts (docs/evaluations.md); none without evaluations. */
  challengeRules?: ChallengeRulesSource,
): TradingServiceImpl {
  // The feed's stale limit: no fill on an older quote (docs/trading-rules.md#no-fill-on-a-stale-quote).
  const pricing = new Pricing(market.pairs, market.prices, ctx.config.externalFeedStaleMs);
  const deps: TradingDeps = {
    db: ctx.db,
    clock: ctx.clock,
    keyClock: ctx.clock,
    bus: ctx.bus,
    log: ctx.log,
    metrics: ctx.metrics,
    pricing,
    pairs: market.pairs,
    writes: createWriteBatcher(ctx.db),
    inFlight: new InFlightKeys(),
    ...(challengeRules ? { challengeRules } : {}),
  };
  const markets = new AccountMarkets(deps, ctx.config.stopOutLevel);
  /**
   * A call that names an account runs with that account's market (account-markets.ts): the live
   * one, or a replay session's. A call that names none is the primary account's, on the live
   * market, exactly as before (docs/replay.md#the-accounts-market).
   */
  const on = <T>(account: number | undefined, run: (d: TradingDeps) => Promise<T>): Promise<T> =>
    account === undefined ? run(deps) : markets.depsFor(account).then(run);
  /** An order on an account with its own market must be on one of its pairs. */
  const tradable = async (account: number | undefined, symbol: unknown): Promise<void> => {
    if (account === undefined) return;
    const market = await markets.marketOf(account);
    if (market && typeof symbol === 'string' && !market.symbols.includes(symbol.trim().toUpperCase())) {
      throw errors.validation(`symbol: this practice account trades ${market.symbols.join(', ')} only`);
    }
  };
  return {
    pricing,
    markets,
    placeMarketOrder: async (user, input, key, account) =>
      (
        await on(account, (d) =>
          tradable(account, input.symbol).then(() => placeMarketOrder(d, userId(user), input, key, optionalAccountId(account))),
        )
      ).response,
    placeMarketOrderDetailed: (user, input, key, account) =>
      on(account, (d) =>
        tradable(account, input.symbol).then(() => placeMarketOrder(d, userId(user), input, key, optionalAccountId(account))),
      ),
    closePosition: (user, position, options) =>
      on(options.accountId, (d) => closePosition(d, userId(user), positionId(position), options)),
    loadOpenBook: () => loadOpenBook(deps),
    protectNegativeBalance: (account) => protectNegativeBalance(deps, accountId(account)),
    platformData: (user, account) => on(account, (d) => platformData(d, user, optionalAccountId(account))),
    listOrders: (user, query, account) => on(account, (d) => listOrders(d, user, query, optionalAccountId(account))),
    pairTrading: (user, symbol, account) => on(account, (d) => pairTrading(d, user, symbol, optionalAccountId(account))),
    purgeIdempotencyKeys: () => purgeIdempotencyKeys(deps),
    triggers: createTriggerExecutor(deps),
    placePendingOrderDetailed: (user, input, key, account) =>
      on(account, (d) =>
        tradable(account, input.symbol).then(() => placePendingOrder(d, userId(user), input, key, optionalAccountId(account))),
      ),
    modifyOrder: (user, order, input, account) =>
      on(account, (d) => modifyOrder(d, userId(user), orderId(order), input, optionalAccountId(account))),
    cancelOrder: (user, order, account, by) =>
      on(account, (d) => cancelOrder(d, userId(user), orderId(order), optionalAccountId(account), by)),
    modifyPosition: (user, position, input, account) =>
      on(account, (d) => modifyPosition(d, userId(user), positionId(position), input, optionalAccountId(account))),
    exportOrders: (user, query, account) => exportOrdersCsv(deps, user, query, undefined, optionalAccountId(account)),
    accountPerformance: (user, account) => on(account, (d) => performanceOfUser(d, userId(user), accountId(account))),
    resetAccount: (input, key) => resetAccount(deps, input, key),
  };
}
