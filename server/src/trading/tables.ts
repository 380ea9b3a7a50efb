import type { OrderReason, OrderSide, OrderStatus, OrderType, TimeInForce } from '@pipdesk/contract';
import type { Generated } from 'kysely';

/**
 * Storage conventions of this module: lots as integer hundredths (`*_centilots`), prices as
 * integers of 10^-10 (`*_e10`), money as integer cents (`*_minor`), times as epoch ms.
 */
export interface OrdersTable {
  id: Generated<number>;
  account_id: number;
  pair_id: number;
  symbol: string;
  order_type: OrderType;
  side: OrderSide;
  quantity_centilots: number;
  filled_quantity_centilots: number;
  /** The limit price of a LIMIT, the trigger price of a STOP or STOP_LIMIT; null for market orders. */
  price_e10: number | null;
  average_fill_price_e10: number | null;
  status: OrderStatus;
  rejection_reason: string | null;
  reason: OrderReason;
  position_id: number | null;
  /** On a close: the price the trader saw (the record only; never executed at). */
  client_price_e10: number | null;
  submitted_at: number;
  created_at: number;
  updated_at: number;
  /** docs/orders.md: GTC, or GTD with `expires_at` (epoch ms). Market orders are GTC. */
  time_in_force: TimeInForce;
  expires_at: number | null;
  /** STOP_LIMIT only: the limit it rests at once its stop triggered. */
  limit_price_e10: number | null;
  /** STOP_LIMIT: when its stop triggered (it stays PENDING). */
  triggered_at: number | null;
  /** The protection the order sets on the position it leaves open (docs/orders.md#protection-on-positions). */
  stop_loss_e10: number | null;
  take_profit_e10: number | null;
  /** Whole pips, 5 to 1,000. */
  trailing_stop_pips: number | null;
}

/** An execution. Immutable once written (a correction would be a new ledger entry). */
export interface TradesTable {
  id: Generated<number>;
  account_id: number;
  order_id: number;
  position_id: number;
  pair_id: number;
  symbol: string;
  side: OrderSide;
  quantity_centilots: number;
  price_e10: number;
  /** Cents booked to the ledger by this execution. */
  realized_pnl_minor: number;
  executed_at: number;
}

/** A netting position: at most one OPEN per account and pair (a partial unique index). */
export interface PositionsTable {
  id: Generated<number>;
  account_id: number;
  pair_id: number;
  symbol: string;
  /** Signed: + long, − short, 0 once closed; always the sum of its signed fills. */
  quantity_centilots: number;
  average_entry_price_e10: number;
  realized_pnl_minor: number;
  status: 'OPEN' | 'CLOSED';
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  /** The position's protection (docs/orders.md#protection-on-positions); null when none, always null once closed. */
  stop_loss_e10: number | null;
  take_profit_e10: number | null;
  /** Whole pips, 5 to 1,000. */
  trailing_stop_pips: number | null;
  /**
   * Bumped by every change a trader or a fill makes to the protection, never by a trailing write
   * (docs/order-engine.md#the-engine); 0 when the position opens.
   */
  protection_version: Generated<number>;
}

/** Idempotency-Key records of order placement (docs/trading-rules.md#idempotency), written in the order's own transaction. */
export interface IdempotencyKeysTable {
  id: Generated<number>;
  user_id: number;
  idempotency_key: string;
  /** sha256 of the canonical request, to tell a retry from another order under the same key. */
  request_hash: string;
  response_status: number;
  response_body: string;
  created_at: number;
}

/** Tables of the trading module. */
export interface TradingTables {
  orders: OrdersTable;
  trades: TradesTable;
  positions: PositionsTable;
  idempotency_keys: IdempotencyKeysTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends TradingTables {}
}
