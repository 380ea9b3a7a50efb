// The server's event bus (docs/ARCHITECTURE.md#many-processes): every topic a node publishes
// and every node hears, with the type of its payload, declared once, as the sockets' messages
// are (socket-codec.ts). With Redis each topic is the channel `prefix + topic` carrying its
// payload as JSON, so the nodes of two releases (a rolling upgrade,
// docs/deployment.md#upgrades-with-migrations) hear each other only while these shapes hold.
import type { Alert, AlertCondition } from './charting.js';
import type { OrderDto, PositionDto } from './trading.js';

/**
 * Shapes the server alone defines that some events carry as they are (JSON-safe): the map
 * takes them as parameters, so they stay declared once, beside the code that makes them.
 */
export interface BusServerShapes {
  /** What a committed execution or a stored rejection tells (the server's `ExecutionEvent`). */
  execution: object;
  /** A change of the order engine's state (the server's `EngineChange`, docs/order-engine.md#the-engine). */
  engineChange: object;
}

/** `trading.balance_adjusted`: an account's balance set by the server (negative balance protection, an academy reset). */
export interface BalanceAdjustedPayload {
  userId: number;
  accountId: number;
  /** The balance after the adjustment (cents). */
  balance_minor: number;
  /** The adjustment (cents). */
  amount_minor: number;
}

/**
 * `trading.order_update`: a change of a trader's order that is not an execution (placed,
 * modified, triggered, cancelled, expired, rejected at placement); each node forwards it to
 * the trader's trading sockets as `order_update` (docs/api.md#trading-socket).
 */
export interface OrderUpdatePayload {
  userId: number;
  accountId: number;
  order: OrderDto;
}

/** `trading.position_protection`: a position whose protection the trader changed (docs/orders.md#protection-on-positions). */
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

/** An ACTIVE price alert as the evaluating node holds it (docs/charting.md#alerts). */
export interface ArmedAlertState {
  id: number;
  userId: number;
  symbol: string;
  condition: AlertCondition;
  /** The price × 10^10, as stored (exact). */
  priceE10: number;
  /** Epoch ms; null for none. */
  expiresAt: number | null;
  /** Bumped by every change: a late, older change never replaces a newer one. */
  version: number;
}

/**
 * `alerts.change`: an alert was created or changed (`armed`) or deleted (`gone`), after the
 * commit; the node that evaluates alerts (the price-source leader) follows it.
 */
export type AlertChangePayload = { kind: 'armed'; alert: ArmedAlertState } | { kind: 'gone'; alertId: number };

/**
 * `alerts.update`: alerts that fired or expired, one message per written batch; each node sends
 * every trader of it `alert_update` on their trading sockets (docs/api.md#trading-socket).
 */
export interface AlertUpdatePayload {
  updates: Array<{ userId: number; alert: Alert }>;
}

/**
 * `evaluations.attempt_changed`: an evaluation attempt started, failed, passed, moved to its next
 * phase or recorded a day start (docs/evaluations.md): every node reads it again.
 */
export interface AttemptChangedPayload {
  attemptId: number;
}

/** The topics a module publishes inside the bus's `message` event, `topic → payload`. */
export interface BusMessageMap<S extends BusServerShapes = BusServerShapes> {
  'trading.balance_adjusted': BalanceAdjustedPayload;
  'trading.order_update': OrderUpdatePayload;
  'trading.position_protection': PositionProtectionPayload;
  'trading.engine': S['engineChange'];
  'alerts.change': AlertChangePayload;
  'alerts.update': AlertUpdatePayload;
  'evaluations.attempt_changed': AttemptChangedPayload;
}

/** A `message` event, `{topic, payload}`, discriminated by `topic`: the union over `K` (every topic by default). */
export type BusMessage<M, K extends keyof M = keyof M> = { [T in K]: { topic: T; payload: M[T] } }[K];

/** Every event of the bus, `topic → payload`. */
export interface BusEventMap<S extends BusServerShapes = BusServerShapes> {
  /** A price tick from the node that owns the price source. */
  tick: { symbol: string; bid: number; ask: number; timestamp: number };
  /** A trader's order was executed (or rejected) on some node. */
  execution: { userId: number; accountId: number; payload: S['execution'] };
  /** A session ended (logout, family revocation): sockets authenticated with it close. */
  session_revoked: { sessionId: string };
  /** A user was disabled: every socket of theirs closes. */
  user_disabled: { userId: number };
  /** A module's own event (`BusMessageMap`), one channel for all of them. */
  message: BusMessage<BusMessageMap<S>>;
  /**
   * A node's Redis link came back after an outage (docs/operations.md#redis-outages-and-leadership):
   * what travelled while it was down is lost, so every node reloads its in-memory state from
   * the database. Raised by the Redis bus itself, never by a module; `node` names the node.
   */
  resync: { node: string };
}
