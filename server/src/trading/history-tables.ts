/**
 * How many of an account's orders have each (symbol, side, status, type): the exact `count` of
 * the orders list without reading the history (docs/orders.md#history-at-any-size). Written only
 * by the database's own triggers on `orders` (migration 0012), in each order's transaction.
 */
export interface OrderCountsTable {
  account_id: number;
  symbol: string;
  side: string;
  status: string;
  order_type: string;
  /** May reach 0 (an order moved on); never negative. */
  n: number;
}

export interface HistoryTables {
  order_counts: OrderCountsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends HistoryTables {}
}
