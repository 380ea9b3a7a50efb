import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { StoredOrderStatus } from './order-status.js';
import type { IdempotencyKeysTable, OrdersTable, PositionsTable, TradesTable } from './tables.js';

/**
 * Any Kysely handle: the database itself or a transaction. Writes run inside `writeTransaction`.
 * The trading repository (repo.ts and the files it gathers) builds on these.
 */
export type Q = Kysely<Database>;

// Rows as both drivers return them: every column of these tables is an integer (SQLite) or an
// int4 or int8 (PostgreSQL, whose int8 db/database.ts reads as a number), so a number column
// needs no `Number(…)`.
export type OrderRow = Selectable<OrdersTable>;
export type TradeRow = Selectable<TradesTable>;
export type PositionRow = Selectable<PositionsTable>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;
/** A new order row: its status comes from the order status table (order-status.ts), never a literal. */
export type NewOrderRow = Omit<Insertable<OrdersTable>, 'status'> & { status: StoredOrderStatus };

/**
 * `status = 'OPEN'` written into the SQL, never bound: SQLite compares a bound value with the
 * partial index's `WHERE status = 'OPEN'` and then re-prepares the statement on every run
 * (parse and plan again, most of the query's cost).
 */
export const OPEN = sql.lit<'OPEN'>('OPEN');
/** The same for the partial index of armed orders (`orders_pending_idx`). */
export const PENDING = sql.lit<'PENDING'>('PENDING');

/** An insert of every column but the id, answering the new id (prepared: db/prepared.ts). */
export function preparedInsert<T extends 'positions' | 'orders' | 'trades' | 'idempotency_keys'>(
  name: string,
  table: T,
  columns: ReadonlyArray<keyof Insertable<Database[T]> & string>,
) {
  return prepare<Insertable<Database[T]>, { id: number }>(name, (q, value) =>
    // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot type an insert into a table chosen by a type parameter
    (q as Kysely<any>)
      .insertInto(table)
      .values(Object.fromEntries(columns.map((c) => [c, value(c)])))
      .returning('id'),
  );
}
