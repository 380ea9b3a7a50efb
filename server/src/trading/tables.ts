import type { OrderReason, OrderSide, OrderStatus, OrderType } from '@pipdesk/contract';
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
  /** Requested price; null for market orders. */
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
}

/** Idempotency-Key records of order placement (DESIGN §9), written in the order's own transaction. */
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
