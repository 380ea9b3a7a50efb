import type { BalanceAdjustedPayload, OrderDto, OrderUpdatePayload, PositionProtectionPayload } from '@pipdesk/contract';
import type { BusMessage, BusMessageTopic } from '../realtime/bus.js';
import type { TradingDeps } from './deps.js';
import { ENGINE_TOPIC, type EngineChange } from './engine/ports.js';
import type { Execution } from './execution.js';
import { executionEngineChanges } from './presenter.js';
import type { ExecutionEvent } from './types.js';

// Every bus message the trading commands publish goes out from here; the topics and their
// payloads are the contract's bus map (contract/src/bus-events.ts).

export type { BalanceAdjustedPayload, OrderUpdatePayload, PositionProtectionPayload } from '@pipdesk/contract';

/** Bus 'message' topic published after a negative balance adjustment or an academy reset: live books follow the balance. */
export const BALANCE_ADJUSTED_TOPIC = 'trading.balance_adjusted' satisfies BusMessageTopic;

/**
 * Bus 'message' topic of every change of a trader's order that is not an execution (placed,
 * modified, triggered, cancelled, expired, rejected at placement); each node forwards it to
 * the trader's trading sockets as `order_update`. An execution's own `order_update` is made
 * from its 'execution' event, so an order never costs two bus messages.
 */
export const ORDER_UPDATE_TOPIC = 'trading.order_update' satisfies BusMessageTopic;

/** Bus 'message' topic of a position whose protection the trader changed (PATCH positions/{id}/): live books follow it. */
export const POSITION_PROTECTION_TOPIC = 'trading.position_protection' satisfies BusMessageTopic;

/**
 * Announces a committed execution (or a stored rejection) on bus topic 'execution', which
 * every node's live book and trading sockets follow.
 */
export function publishExecution(
  deps: Pick<TradingDeps, 'bus' | 'log' | 'metrics'>,
  userId: number,
  accountId: number,
  payload: ExecutionEvent,
): void {
  recordOrderEvent(deps, userId, accountId, payload.order.status === 'REJECTED' ? 'rejected' : 'filled', payload.order);
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
  deps: Pick<TradingDeps, 'bus' | 'log' | 'metrics'>,
  userId: number,
  accountId: number,
  execution: Execution,
  payload: ExecutionEvent,
): void {
  publishExecution(deps, userId, accountId, payload);
  publishEngineChanges(deps, executionEngineChanges(execution, userId));
}

/** Announces a negative balance adjustment (bus topic 'message', `BALANCE_ADJUSTED_TOPIC`). */
export function publishBalanceAdjusted(deps: Pick<TradingDeps, 'bus' | 'log'>, payload: BalanceAdjustedPayload): void {
  // The account's reset to zero after a stop-out (docs/operations.md#logs).
  deps.log.info(
    { userId: payload.userId, accountId: payload.accountId, amountMinor: payload.amount_minor },
    'negative balance reset to zero',
  );
  deps.bus.publish('message', { topic: BALANCE_ADJUSTED_TOPIC, payload });
}

/** Publishes after commit; a failing listener must not turn a committed change into an error answer. */
function publishMessage(deps: Pick<TradingDeps, 'bus' | 'log'>, message: BusMessage): void {
  try {
    deps.bus.publish('message', message);
  } catch (err) {
    deps.log.error({ err, topic: message.topic }, 'publishing a trading message failed');
  }
}

export function publishOrderUpdate(deps: Pick<TradingDeps, 'bus' | 'log' | 'metrics'>, payload: OrderUpdatePayload): void {
  recordOrderEvent(deps, payload.userId, payload.accountId, updateOutcome(payload.order), payload.order);
  publishMessage(deps, { topic: ORDER_UPDATE_TOPIC, payload });
}

export function publishPositionProtection(deps: Pick<TradingDeps, 'bus' | 'log'>, payload: PositionProtectionPayload): void {
  publishMessage(deps, { topic: POSITION_PROTECTION_TOPIC, payload });
}

/** Tells every node's trigger engine what changed (`ENGINE_TOPIC`, one message per change), after commit. */
export function publishEngineChanges(deps: Pick<TradingDeps, 'bus' | 'log'>, changes: readonly EngineChange[]): void {
  for (const change of changes) publishMessage(deps, { topic: ENGINE_TOPIC, payload: change });
}

/** What an `order_update` tells of its order (placed, modified, triggered, cancelled, expired, rejected). */
function updateOutcome(order: OrderDto): string {
  switch (order.status) {
    case 'PENDING':
      if (order.updated_at === order.created_at) return 'placed';
      return order.triggered_at === order.updated_at ? 'triggered' : 'modified';
    case 'PARTIALLY_FILLED':
    case 'FILLED':
      return 'filled';
    default:
      return order.status.toLowerCase();
  }
}

/**
 * One log line and one count per order event (docs/operations.md#logs and #metrics), on the
 * node that made it (never on the nodes that hear it from the bus), after commit.
 */
function recordOrderEvent(
  deps: Pick<TradingDeps, 'log' | 'metrics'>,
  userId: number,
  accountId: number,
  outcome: string,
  order: OrderDto,
): void {
  // A rejection counts by its code; anything else by why the order exists (client, stop_out, take_profit…).
  deps.metrics.order(order.order_type, outcome, outcome === 'rejected' ? rejectionCode(order.rejection_reason) : order.reason);
  deps.log.info(
    {
      userId,
      accountId,
      orderId: order.id,
      symbol: order.fx_pair_symbol,
      side: order.side,
      type: order.order_type,
      quantity: order.quantity,
      price: order.average_fill_price ?? order.price,
      reason: order.reason,
      ...(order.rejection_reason ? { rejection: order.rejection_reason } : {}),
      ...(order.position_id === null ? {} : { positionId: order.position_id }),
    },
    `order ${outcome}`,
  );
}

/**
 * The rejection's catalogue code, from the stored text (execution.ts's REJECTION): the text
 * carries amounts, so it cannot be a metric label itself.
 */
function rejectionCode(text: string | null): string {
  if (text?.startsWith('Insufficient')) return 'INSUFFICIENT_MARGIN';
  if (text?.startsWith('No price')) return 'NO_PRICE';
  if (text?.startsWith('Trading account is not active')) return 'ACCOUNT_NOT_ACTIVE';
  return 'OTHER';
}

/** The payload of an account reset: as a balance adjustment, which every node's live book already follows. */
export type AccountResetPayload = BalanceAdjustedPayload;

/**
 * Announces an academy reset's new balance (docs/academy.md#reset) after commit: the live books
 * and the trader's P&L stream follow it as they follow a balance adjustment. The closes and
 * cancels the reset made were announced one by one before it.
 */
export function publishAccountReset(deps: Pick<TradingDeps, 'bus' | 'log'>, payload: AccountResetPayload, by: number): void {
  // One line per reset (docs/operations.md#logs).
  deps.log.info({ userId: payload.userId, accountId: payload.accountId, amountMinor: payload.amount_minor, by }, 'account reset');
  publishMessage(deps, { topic: BALANCE_ADJUSTED_TOPIC, payload });
}
