import {
  type ClosePositionResponse,
  Dec,
  type OrderDto,
  type PlaceMarketOrderResponse,
  type PositionDto,
  type TradeDto,
  type TradingAccountDto,
} from '@pipdesk/contract';
import { type AppError, errors } from '../errors.js';
import type { Pair } from '../market/index.js';
import type { EngineChange, ProtectionState, RestingOrderState } from './engine/ports.js';
import type { Execution, FilledExecution, RejectedExecution } from './execution.js';
import { type AccountValue, type PositionValue, type Pricing, priceFromE10, valueAccount, valuePosition } from './math.js';
import type { OrderRow, TradeRow } from './repo.js';
import type { ExecutionEvent, PositionState } from './types.js';

/**
 * The one place trading shapes its answers: the REST answers, the execution event the bus
 * carries and the stored answer of an Idempotency-Key. The JSON edge: exact stored values
 * become numbers rounded for display (docs/operations.md#one-process-or-many).
 */

export const iso = (ms: number): string => new Date(ms).toISOString();

export const money = (amount: Dec): number => amount.toNumber(2);
export const moneyFromMinor = (minor: number): number => Dec.scaled(minor, 2).toNumber(2);
export const lotsFromCentilotsNumber = (centilots: number): number => Dec.scaled(centilots, 2).toNumber(2);

const DEFAULT_DIGITS = 5;

// ------------------------------------------------------------------ rows and values → DTOs

export function positionDto(state: PositionState, value: PositionValue | undefined, pair: Pair | undefined): PositionDto {
  const digits = pair?.digits ?? DEFAULT_DIGITS;
  const open = state.status === 'OPEN' && state.quantityCentilots !== 0;
  return {
    id: state.id,
    fx_pair: state.pairId,
    fx_pair_symbol: state.symbol,
    side: state.quantityCentilots > 0 ? 'LONG' : state.quantityCentilots < 0 ? 'SHORT' : 'FLAT',
    quantity: lotsFromCentilotsNumber(state.quantityCentilots),
    status: state.status,
    average_entry_price: Dec.from(state.averageEntryPrice).toNumber(digits),
    current_price: open && value?.currentPrice ? value.currentPrice.toNumber(digits) : null,
    unrealized_pnl: open && value ? money(value.unrealizedPnl) : 0,
    realized_pnl: moneyFromMinor(state.realizedPnlMinor),
    margin_used: open && value ? money(value.margin) : 0,
    created_at: iso(state.createdAt),
    updated_at: iso(state.updatedAt),
    closed_at: state.closedAt === null ? null : iso(state.closedAt),
    stop_loss: state.stopLoss == null ? null : Dec.from(state.stopLoss).toNumber(digits),
    take_profit: state.takeProfit == null ? null : Dec.from(state.takeProfit).toNumber(digits),
    trailing_stop_pips: state.trailingStopPips ?? null,
  };
}

export function orderDto(row: OrderRow, pair: Pair | undefined): OrderDto {
  const digits = pair?.digits ?? DEFAULT_DIGITS;
  const price = (e10: number | null) => (e10 === null ? null : priceFromE10(e10).toNumber(digits));
  return {
    id: Number(row.id),
    fx_pair: Number(row.pair_id),
    fx_pair_symbol: row.symbol,
    order_type: row.order_type,
    side: row.side,
    quantity: lotsFromCentilotsNumber(Number(row.quantity_centilots)),
    filled_quantity: lotsFromCentilotsNumber(Number(row.filled_quantity_centilots)),
    price: price(row.price_e10),
    average_fill_price: price(row.average_fill_price_e10),
    status: row.status,
    rejection_reason: row.rejection_reason,
    reason: row.reason,
    position_id: row.position_id === null ? null : Number(row.position_id),
    current_price: price(row.client_price_e10),
    submitted_at: iso(Number(row.submitted_at)),
    created_at: iso(Number(row.created_at)),
    updated_at: iso(Number(row.updated_at)),
    time_in_force: row.time_in_force,
    expires_at: row.expires_at === null ? null : iso(Number(row.expires_at)),
    limit_price: price(row.limit_price_e10),
    triggered_at: row.triggered_at === null ? null : iso(Number(row.triggered_at)),
    stop_loss: price(row.stop_loss_e10),
    take_profit: price(row.take_profit_e10),
    trailing_stop_pips: row.trailing_stop_pips === null ? null : Number(row.trailing_stop_pips),
  };
}

export function tradeDto(row: TradeRow, pair: Pair | undefined): TradeDto {
  return {
    id: Number(row.id),
    order: Number(row.order_id),
    position: Number(row.position_id),
    fx_pair_symbol: row.symbol,
    side: row.side,
    quantity: lotsFromCentilotsNumber(Number(row.quantity_centilots)),
    price: priceFromE10(row.price_e10).toNumber(pair?.digits ?? DEFAULT_DIGITS),
    realized_pnl: moneyFromMinor(Number(row.realized_pnl_minor)),
    executed_at: iso(Number(row.executed_at)),
  };
}

export function tradingAccountDto(
  account: { id: number; leverage: number; currency: string | null },
  value: AccountValue,
): TradingAccountDto {
  return {
    id: Number(account.id),
    balance: money(value.balance),
    equity: money(value.equity),
    margin_used: money(value.marginUsed),
    free_margin: money(value.freeMargin),
    margin_level: value.marginLevel === null ? null : value.marginLevel.toNumber(2),
    leverage: Number(account.leverage),
    currency: account.currency ?? 'USD',
  };
}

// ------------------------------------------------------------------ answers

/** The account and its open positions valued at current prices (platform data, the pair page). */
export function accountAnswer(
  pricing: Pricing,
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

/** The answer of a filled order (place-market-order; a close answers a part of it). */
export function filledAnswer(
  pricing: Pricing,
  execution: FilledExecution,
  leverage: number,
  pair: Pair,
): PlaceMarketOrderResponse {
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

/** The answer of a close-position call. */
export function closeAnswer(execution: FilledExecution, answer: PlaceMarketOrderResponse, pair: Pair): ClosePositionResponse {
  return {
    profit_loss: moneyFromMinor(execution.realizedMinor),
    close_price: execution.price.toNumber(pair.digits),
    order: answer.order,
    position: answer.position,
  };
}

/** The 422 of a business rejection, carrying the stored REJECTED order. */
export function rejectionError(execution: RejectedExecution, pair: Pair): AppError {
  return errors.orderRejected(execution.code, execution.message, orderDto(execution.order, pair));
}

/** The execution event the bus carries: the DTOs of the REST answer plus what the live book needs. */
export function executionEvent(
  execution: Execution,
  answer: PlaceMarketOrderResponse | null,
  leverage: number,
  pair: Pair,
): ExecutionEvent {
  return execution.kind === 'filled' && answer
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
        account: { balance_minor: execution.balanceMinor, leverage },
        position_state: execution.position,
      }
    : {
        order: orderDto(execution.order, pair),
        position: null,
        execution_details: null,
        trades: [],
        account: { balance_minor: execution.balanceMinor, leverage },
        position_state: null,
      };
}

// ------------------------------------------------------------------ the trigger engine's shapes (engine/ports.ts)

const exactText = (e10: number | null) => (e10 === null ? null : priceFromE10(e10).toString());

/** A PENDING order as the trigger engine holds it. */
export function restingOrderState(row: OrderRow, userId: number): RestingOrderState {
  return {
    orderId: Number(row.id),
    accountId: Number(row.account_id),
    userId,
    symbol: row.symbol,
    side: row.side,
    orderType: row.order_type as RestingOrderState['orderType'],
    price: exactText(row.price_e10 === null ? null : Number(row.price_e10))!,
    limitPrice: exactText(row.limit_price_e10 === null ? null : Number(row.limit_price_e10)),
    triggeredAt: row.triggered_at === null ? null : Number(row.triggered_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    createdAt: Number(row.created_at),
  };
}

/** An OPEN position's protection as the trigger engine holds it; undefined when it has none (or is closed). */
export function protectionState(state: PositionState, userId: number): ProtectionState | undefined {
  if (state.status !== 'OPEN' || state.quantityCentilots === 0) return undefined;
  const protection = protectionFields(state, userId);
  const { stopLoss, takeProfit, trailingStopPips } = protection;
  return stopLoss === null && takeProfit === null && trailingStopPips === null ? undefined : protection;
}

/** The position's protection fields as the engine's shape, none set included. */
function protectionFields(state: PositionState, userId: number): ProtectionState {
  const stopLoss = state.stopLoss ?? null;
  const takeProfit = state.takeProfit ?? null;
  const trailingStopPips = state.trailingStopPips ?? null;
  const version = state.protectionVersion ?? 0;
  return {
    positionId: state.id,
    accountId: state.accountId,
    userId,
    symbol: state.symbol,
    long: state.quantityCentilots > 0,
    stopLoss,
    takeProfit,
    trailingStopPips,
    openedAt: state.createdAt,
    // Absent while 0 (ports.ts): the protection a position opened with.
    ...(version === 0 ? {} : { protectionVersion: version }),
  };
}

/**
 * What a change of a position's protection (a fill, a PATCH) tells the engine; undefined when nothing it
 * holds changed. A new `protection_version` is always told, so the engine acts on the stored version.
 * `stopLossSet` false: the change kept the stored stop loss (a PATCH without `stop_loss`), which may be
 * behind a trailing stop the engine moved (docs/order-engine.md#trailing-stops).
 */
export function protectionChange(
  before: PositionState | undefined,
  after: PositionState,
  userId: number,
  stopLossSet = true,
): EngineChange | undefined {
  const was = before ? protectionState(before, userId) : undefined;
  const now = protectionState(after, userId);
  if (now) {
    const same =
      was &&
      was.long === now.long &&
      was.stopLoss === now.stopLoss &&
      was.takeProfit === now.takeProfit &&
      was.trailingStopPips === now.trailingStopPips &&
      was.protectionVersion === now.protectionVersion;
    if (same) return undefined;
    return stopLossSet ? { kind: 'protection', protection: now } : { kind: 'protection', protection: now, stopLossSet: false };
  }
  // Nothing stored is left, but the engine may hold a stop that trailing moved and did not write
  // yet: with the stop loss left out, it keeps that one (or forgets the position).
  if (was?.trailingStopPips != null && !stopLossSet && after.status === 'OPEN' && after.quantityCentilots !== 0) {
    return { kind: 'protection', protection: protectionFields(after, userId), stopLossSet: false };
  }
  return was ? { kind: 'protection_gone', positionId: after.id, symbol: after.symbol } : undefined;
}

/** What an execution tells the engine: a pending order that left PENDING, a position whose protection changed. */
export function executionEngineChanges(execution: Execution, userId: number): EngineChange[] {
  const changes: EngineChange[] = [];
  const { order } = execution;
  if (order.order_type !== 'MARKET') changes.push({ kind: 'order_gone', orderId: order.id, symbol: order.symbol });
  if (execution.kind === 'filled') {
    const change = protectionChange(execution.before, execution.position, userId);
    if (change) changes.push(change);
  }
  return changes;
}
