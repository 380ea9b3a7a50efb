import type { OrderDto, PositionDto } from '@pipdesk/contract';
import type { TradingDeps } from './deps.js';
import { ENGINE_TOPIC, type EngineChange } from './engine/ports.js';
import type { Execution } from './execution.js';
import { executionEngineChanges } from './presenter.js';
import type { ExecutionEvent } from './types.js';

// Every bus message the trading commands publish goes out from here.

/** Bus 'message' topic published after a negative balance adjustment. */
export const BALANCE_ADJUSTED_TOPIC = 'trading.balance_adjusted';

/** The payload of a `BALANCE_ADJUSTED_TOPIC` message. */
export interface BalanceAdjustedPayload {
  userId: number;
  accountId: number;
  /** The balance after the adjustment (cents). */
  balance_minor: number;
  /** The adjustment (cents). */
  amount_minor: number;
}

/**
 * Announces a committed execution (or a stored rejection) on bus topic 'execution', which
 * every node's live book and trading sockets follow.
 */
export function publishExecution(
  deps: Pick<TradingDeps, 'bus' | 'log'>,
  userId: number,
  accountId: number,
  payload: ExecutionEvent,
): void {
  try {
    deps.bus.publish('execution', { userId, accountId, payload });
  } catch (err) {
    // The execution is committed; a failing listener must not turn it into an error answer.
    deps.log.error({ err }, 'publishing an execution failed');
  }
}

/**
 * Everything a committed execution announces: the 'execution' event (sockets, live books) and
 * what it changed for the trigger engine (a pending order gone, a position's protection).
 */
export function publishExecutionEffects(
  deps: Pick<TradingDeps, 'bus' | 'log'>,
  userId: number,
  accountId: number,
  execution: Execution,
  payload: ExecutionEvent,
): void {
  publishExecution(deps, userId, accountId, payload);
  publishEngineChanges(deps, executionEngineChanges(execution, userId));
}

/** Announces a negative balance adjustment (bus topic 'message', `BALANCE_ADJUSTED_TOPIC`). */
export function publishBalanceAdjusted(deps: Pick<TradingDeps, 'bus'>, payload: BalanceAdjustedPayload): void {
  deps.bus.publish('message', { topic: BALANCE_ADJUSTED_TOPIC, payload });
}

/**
 * Bus 'message' topic of every change of a trader's order that is not an execution (placed,
 * modified, triggered, cancelled, expired, rejected at placement); each node forwards it to
 * the trader's trading sockets as `order_update`. An execution's own `order_update` is made
 * from its 'execution' event, so an order never costs two bus messages.
 */
export const ORDER_UPDATE_TOPIC = 'trading.order_update';

/** The payload of an `ORDER_UPDATE_TOPIC` message. */
export interface OrderUpdatePayload {
  userId: number;
  accountId: number;
  order: OrderDto;
}

/** Bus 'message' topic of a position whose protection the trader changed (PATCH positions/{id}/): live books follow it. */
export const POSITION_PROTECTION_TOPIC = 'trading.position_protection';

/** The payload of a `POSITION_PROTECTION_TOPIC` message. */
export interface PositionProtectionPayload {
  userId: number;
  accountId: number;
  positionId: number;
  /** Exact decimal text, or null. */
  stopLoss: string | null;
  takeProfit: string | null;
  trailingStopPips: number | null;
  /** The position as the call answered it. */
  position: PositionDto;
}

/** Publishes after commit; a failing listener must not turn a committed change into an error answer. */
function publishMessage(deps: Pick<TradingDeps, 'bus' | 'log'>, topic: string, payload: unknown): void {
  try {
    deps.bus.publish('message', { topic, payload });
  } catch (err) {
    deps.log.error({ err, topic }, 'publishing a trading message failed');
  }
}

export function publishOrderUpdate(deps: Pick<TradingDeps, 'bus' | 'log'>, payload: OrderUpdatePayload): void {
  publishMessage(deps, ORDER_UPDATE_TOPIC, payload);
}

export function publishPositionProtection(deps: Pick<TradingDeps, 'bus' | 'log'>, payload: PositionProtectionPayload): void {
  publishMessage(deps, POSITION_PROTECTION_TOPIC, payload);
}

/** Tells every node's trigger engine what changed (`ENGINE_TOPIC`, one message per change), after commit. */
export function publishEngineChanges(deps: Pick<TradingDeps, 'bus' | 'log'>, changes: readonly EngineChange[]): void {
  for (const change of changes) publishMessage(deps, ENGINE_TOPIC, change);
}
