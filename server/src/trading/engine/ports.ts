import type { OrderSide } from '@pipdesk/contract';

// The seam between the order engine (trading/engine/: in memory, runs on the price-source
// leader) and the rest of trading (the commands that write the database). The engine decides
// WHAT triggers on a tick; the executor does it durably, through the same serialized write
// path as a market order, and reports whether it won. Rules: docs/order-engine.md.
// Prices here are exact decimal text (as PositionState.averageEntryPrice), so the shapes
// cross nodes on the bus unchanged.

/** A PENDING order as the engine holds it (LIMIT, STOP or STOP_LIMIT). */
export interface RestingOrderState {
  orderId: number;
  accountId: number;
  userId: number;
  symbol: string;
  side: OrderSide;
  orderType: 'LIMIT' | 'STOP' | 'STOP_LIMIT';
  /** The LIMIT's limit price, or the STOP / STOP_LIMIT's trigger price. */
  price: string;
  /** STOP_LIMIT only: the limit it rests at once triggered. */
  limitPrice: string | null;
  /** STOP_LIMIT only: epoch ms when its stop triggered (it then rests as a LIMIT at limitPrice). */
  triggeredAt: number | null;
  /** GTD: epoch ms; null for GTC. */
  expiresAt: number | null;
  /** Epoch ms; older first when several trigger on one tick. */
  createdAt: number;
}

/** An OPEN position's protection as the engine holds it. A position with none is not in the engine. */
export interface ProtectionState {
  positionId: number;
  accountId: number;
  userId: number;
  symbol: string;
  /** The side it closes at: a LONG closes at bid, a SHORT at ask. */
  long: boolean;
  stopLoss: string | null;
  takeProfit: string | null;
  /** Trailing distance in pips (5 to 1,000); null for none. */
  trailingStopPips: number | null;
  /** Epoch ms the position opened; older first when several trigger on one tick. */
  openedAt: number;
  /**
   * The position's `protection_version`: bumped by every change a trader or a fill makes to its
   * protection, never by a trailing write (docs/order-engine.md#the-engine). Absent while 0 (and
   * in states built by hand).
   */
  protectionVersion?: number;
}

/** The tick a trigger fired on: every fill is at this bid or ask, never the requested price. */
export interface TriggerQuote {
  symbol: string;
  /** Exact decimal text at the pair's digits. */
  bid: string;
  ask: string;
  timestamp: number;
  /** The engine's clock when the tick arrived (epoch ms); the fill is rejected NO_PRICE when it is older than the stale limit at execution. */
  receivedAt?: number;
}

export type ProtectionReason = 'stop_loss' | 'take_profit' | 'trailing_stop';

/** What an attempt came to: `stale` when the order or position was no longer PENDING / OPEN (another path won). */
export type TriggerOutcome = 'filled' | 'rejected' | 'expired' | 'stale';

/**
 * Executes what the engine decided, durably. Every method runs in one write transaction
 * guarded by the current status (`… WHERE status = 'PENDING'` / the position still OPEN), so a
 * cancel racing a trigger has exactly one winner and a crash never fills twice; each publishes
 * its bus events (execution, order_update) itself.
 */
export interface TriggerExecutor {
  /** Fills a PENDING order at the tick's ask (BUY) or bid (SELL); margin-checked now: REJECTED with the reason when it would overspend. */
  fillPendingOrder(orderId: number, quote: TriggerQuote): Promise<TriggerOutcome>;
  /** A STOP_LIMIT's stop triggered: sets `triggered_at` (it stays PENDING and rests as a LIMIT). */
  markStopLimitTriggered(orderId: number, at: number): Promise<TriggerOutcome>;
  /**
   * Closes the whole position with a MARKET order whose `reason` names the trigger, at the tick's bid (LONG) or ask (SHORT).
   * `protectionVersion`: the version of the protection the engine acted on; `stale` when the stored one differs
   * (a trader or a fill changed it meanwhile). Left out: not compared.
   */
  closeByProtection(
    positionId: number,
    reason: ProtectionReason,
    quote: TriggerQuote,
    protectionVersion?: number,
  ): Promise<TriggerOutcome>;
  /** A GTD order reached `expires_at`: PENDING → EXPIRED. */
  expireOrder(orderId: number): Promise<TriggerOutcome>;
  /**
   * Writes trailing stops that moved (the engine calls it at most once a second per position), each only
   * while the stored protection is still the version it moved in (`protectionVersion`, absent while 0).
   */
  saveTrailingStops(moves: ReadonlyArray<{ positionId: number; stopLoss: string; protectionVersion?: number }>): Promise<void>;
  /** Everything the engine holds, from the database: a new leader loads it before its first tick. */
  loadArmed(): Promise<{ orders: RestingOrderState[]; protections: ProtectionState[] }>;
}

/**
 * Bus 'message' topic by which every node (the leader's engine included) learns that an
 * order's or a position's engine state changed: placed, modified, cancelled, filled, expired,
 * a position opened, changed protection, or closed. Published by the commands after commit.
 */
export const ENGINE_TOPIC = 'trading.engine';

export type EngineChange =
  /** A PENDING order to hold (new or modified). */
  | { kind: 'order'; order: RestingOrderState }
  /** An order left PENDING (filled, cancelled, expired, rejected). */
  | { kind: 'order_gone'; orderId: number; symbol: string }
  /**
   * A position's protection (set, changed, or its side changed by a fill). `stopLossSet: false` when the
   * change left the stop loss as stored (a PATCH without `stop_loss`): the engine keeps a trailing stop it
   * moved further (docs/order-engine.md#trailing-stops); it may then carry no protection at all (a
   * PATCH that cleared the rest): the engine keeps that stop, or forgets the position when it has none.
   * Absent or true: the stop loss is the one given.
   */
  | { kind: 'protection'; protection: ProtectionState; stopLossSet?: boolean }
  /** A position has no protection any more (cleared, or the position closed). */
  | { kind: 'protection_gone'; positionId: number; symbol: string };
