import type { Ordering, OrderSide, OrderStatus, OrderType } from '@pipdesk/contract';
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { lockForUpdate } from '../db/transaction.js';
import type { IdempotencyKeysTable, OrdersTable, PositionsTable, TradesTable } from './tables.js';

/**
 * Any Kysely handle: the database itself or a transaction. Writes run inside `writeTransaction`.
 * The queries of the order path are prepared (built and compiled once, see db/prepared.ts).
 */
type Q = Kysely<Database>;

export type OrderRow = Selectable<OrdersTable>;
export type TradeRow = Selectable<TradesTable>;
export type PositionRow = Selectable<PositionsTable>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/**
 * Runs reads on one consistent snapshot, so a dashboard never shows a balance from after an
 * execution beside positions from before it. SQLite: a deferred transaction (WAL snapshot);
 * PostgreSQL: REPEATABLE READ, read only.
 */
export async function readSnapshot<T>(db: Db, fn: (q: Q) => Promise<T>): Promise<T> {
  const tx = db.kysely.transaction();
  return db.kind === 'postgres' ? tx.setIsolationLevel('repeatable read').setAccessMode('read only').execute(fn) : tx.execute(fn);
}

/** The account row by one of its keys, with `FOR UPDATE` on PostgreSQL. */
const accountForUpdate = (column: 'user_id' | 'id') =>
  prepare<{ key: number }, Selectable<Database['trading_accounts']>>((q, value, kind) =>
    lockForUpdate(kind, q.selectFrom('trading_accounts').selectAll().where(column, '=', value('key'))),
  );

const accountByUserForUpdate = accountForUpdate('user_id');
const accountByIdForUpdate = accountForUpdate('id');

/**
 * The trader's account, locked for the rest of the transaction: `FOR UPDATE` on PostgreSQL
 * (SQLite's BEGIN IMMEDIATE already serializes writers). Every execution takes it first, so
 * one trader's concurrent orders never spend the same free margin.
 */
export async function lockAccountByUser(trx: Q, userId: number) {
  return (await accountByUserForUpdate.execute(trx, { key: userId }))[0];
}

export async function lockAccountById(trx: Q, accountId: number) {
  return (await accountByIdForUpdate.execute(trx, { key: accountId }))[0];
}

export async function findAccountAndProfile(q: Q, userId: number) {
  return q
    .selectFrom('trader_profiles')
    .leftJoin('trading_accounts', 'trading_accounts.profile_id', 'trader_profiles.id')
    .select([
      'trader_profiles.id as profile_id',
      'trading_accounts.id as account_id',
      'trading_accounts.balance_minor',
      'trading_accounts.leverage',
      'trading_accounts.currency',
      'trading_accounts.status',
    ])
    .where('trader_profiles.user_id', '=', userId)
    .executeTakeFirst();
}

export async function findAccountByUser(q: Q, userId: number) {
  return q.selectFrom('trading_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/**
 * `status = 'OPEN'` written into the SQL, never bound: SQLite compares a bound value with the
 * partial index's `WHERE status = 'OPEN'` and then re-prepares the statement on every run
 * (parse and plan again, most of the query's cost).
 */
const OPEN = sql.lit<'OPEN'>('OPEN');

const openPositionsOfAccount = prepare<{ accountId: number }, PositionRow>((q, value) =>
  q.selectFrom('positions').selectAll().where('account_id', '=', value('accountId')).where('status', '=', OPEN),
);

export async function openPositions(q: Q, accountId: number): Promise<PositionRow[]> {
  return openPositionsOfAccount.execute(q, { accountId });
}

export async function openPositionsOnPair(q: Q, accountId: number, symbol: string): Promise<PositionRow[]> {
  return q
    .selectFrom('positions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', OPEN)
    .where('symbol', '=', symbol)
    .execute();
}

/** A position of this account only: another trader's id is simply not found. */
export async function findPosition(q: Q, accountId: number, id: number): Promise<PositionRow | undefined> {
  return q.selectFrom('positions').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** An insert of every column but the id, answering the new id. */
function preparedInsert<T extends 'positions' | 'orders' | 'trades' | 'idempotency_keys'>(
  table: T,
  columns: ReadonlyArray<keyof Insertable<Database[T]> & string>,
) {
  return prepare<Insertable<Database[T]>, { id: number }>((q, value) =>
    // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot type an insert into a table chosen by a type parameter
    (q as Kysely<any>)
      .insertInto(table)
      .values(Object.fromEntries(columns.map((c) => [c, value(c)])))
      .returning('id'),
  );
}

const positionInsert = preparedInsert('positions', [
  'account_id',
  'pair_id',
  'symbol',
  'quantity_centilots',
  'average_entry_price_e10',
  'realized_pnl_minor',
  'status',
  'created_at',
  'updated_at',
  'closed_at',
]);

const orderInsert = preparedInsert('orders', [
  'account_id',
  'pair_id',
  'symbol',
  'order_type',
  'side',
  'quantity_centilots',
  'filled_quantity_centilots',
  'price_e10',
  'average_fill_price_e10',
  'status',
  'rejection_reason',
  'reason',
  'position_id',
  'client_price_e10',
  'submitted_at',
  'created_at',
  'updated_at',
]);

const tradeInsert = preparedInsert('trades', [
  'account_id',
  'order_id',
  'position_id',
  'pair_id',
  'symbol',
  'side',
  'quantity_centilots',
  'price_e10',
  'realized_pnl_minor',
  'executed_at',
]);

const idempotencyKeyInsert = preparedInsert('idempotency_keys', [
  'user_id',
  'idempotency_key',
  'request_hash',
  'response_status',
  'response_body',
  'created_at',
]);

/** What an execution changes on a position. */
export type PositionChanges = Pick<
  PositionRow,
  'quantity_centilots' | 'average_entry_price_e10' | 'realized_pnl_minor' | 'status' | 'updated_at' | 'closed_at'
>;

const positionUpdate = prepare<PositionChanges & { id: number }, never>((q, value) =>
  q
    .updateTable('positions')
    .set({
      quantity_centilots: value('quantity_centilots'),
      average_entry_price_e10: value('average_entry_price_e10'),
      realized_pnl_minor: value('realized_pnl_minor'),
      status: value('status'),
      updated_at: value('updated_at'),
      closed_at: value('closed_at'),
    })
    .where('id', '=', value('id')),
);

export async function insertPosition(trx: Q, row: Insertable<PositionsTable>): Promise<number> {
  return Number((await positionInsert.execute(trx, row))[0]!.id);
}

export async function updatePosition(trx: Q, id: number, changes: PositionChanges): Promise<void> {
  await positionUpdate.execute(trx, { ...changes, id });
}

export async function insertOrder(trx: Q, row: Insertable<OrdersTable>): Promise<number> {
  return Number((await orderInsert.execute(trx, row))[0]!.id);
}

export async function insertTrade(trx: Q, row: Insertable<TradesTable>): Promise<number> {
  return Number((await tradeInsert.execute(trx, row))[0]!.id);
}

export async function recentOrders(q: Q, accountId: number, limit: number, symbol?: string): Promise<OrderRow[]> {
  let query = q.selectFrom('orders').selectAll().where('account_id', '=', accountId);
  if (symbol) query = query.where('symbol', '=', symbol);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function recentTrades(q: Q, accountId: number, limit: number): Promise<TradeRow[]> {
  return q.selectFrom('trades').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').limit(limit).execute();
}

export interface OrderFilters {
  /** Upper-case text the symbol must contain. */
  symbolContains?: string;
  side?: OrderSide;
  status?: OrderStatus;
  orderType?: OrderType;
  /** Inclusive lower bound on created_at (epoch ms). */
  createdFrom?: number;
  /** Inclusive upper bound on created_at (epoch ms). */
  createdTo?: number;
}

function filteredOrders(q: Q, accountId: number, f: OrderFilters) {
  let query = q.selectFrom('orders').where('account_id', '=', accountId);
  if (f.symbolContains) {
    // LIKE with the text's own wildcards escaped: "contains", never a pattern.
    const escaped = f.symbolContains.replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where(sql<boolean>`symbol like ${`%${escaped}%`} escape '\\'`);
  }
  if (f.side) query = query.where('side', '=', f.side);
  if (f.status) query = query.where('status', '=', f.status);
  if (f.orderType) query = query.where('order_type', '=', f.orderType);
  if (f.createdFrom !== undefined) query = query.where('created_at', '>=', f.createdFrom);
  if (f.createdTo !== undefined) query = query.where('created_at', '<=', f.createdTo);
  return query;
}

export async function countOrders(q: Q, accountId: number, f: OrderFilters): Promise<number> {
  const row = await filteredOrders(q, accountId, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const ORDERING_COLUMNS = {
  created_at: 'created_at',
  quantity: 'quantity_centilots',
  average_fill_price: 'average_fill_price_e10',
} as const;

/** One page of orders. Ties break on id in the same direction, so pages never overlap; null fill prices sort last. */
export async function listOrders(
  q: Q,
  accountId: number,
  f: OrderFilters,
  ordering: Ordering,
  offset: number,
  limit: number,
): Promise<OrderRow[]> {
  const descending = ordering.startsWith('-');
  const column = ORDERING_COLUMNS[ordering.replace('-', '') as keyof typeof ORDERING_COLUMNS];
  const direction = descending ? 'desc' : 'asc';
  let query = filteredOrders(q, accountId, f).selectAll();
  query =
    column === 'average_fill_price_e10'
      ? query.orderBy(column, (ob) => (descending ? ob.desc() : ob.asc()).nullsLast())
      : query.orderBy(column, direction);
  if (column !== 'created_at') query = query.orderBy('created_at', direction);
  return query.orderBy('id', direction).offset(offset).limit(limit).execute();
}

const idempotencyKeyOfUser = prepare<{ userId: number; key: string }, IdempotencyRow>((q, value) =>
  q.selectFrom('idempotency_keys').selectAll().where('user_id', '=', value('userId')).where('idempotency_key', '=', value('key')),
);

export async function findIdempotencyKey(q: Q, userId: number, key: string): Promise<IdempotencyRow | undefined> {
  return (await idempotencyKeyOfUser.execute(q, { userId, key }))[0];
}

export async function insertIdempotencyKey(trx: Q, row: Insertable<IdempotencyKeysTable>): Promise<void> {
  await idempotencyKeyInsert.execute(trx, row);
}

export async function deleteIdempotencyKeysBefore(q: Q, before: number): Promise<number> {
  const r = await q.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Every OPEN position with its account: the live cache's starting point. */
export async function openBook(q: Q) {
  const accounts = await q
    .selectFrom('trading_accounts')
    .select(['id', 'user_id', 'balance_minor', 'leverage', 'status'])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('positions')
          .select('positions.id')
          .whereRef('positions.account_id', '=', 'trading_accounts.id')
          .where('positions.status', '=', OPEN),
      ),
    )
    .orderBy('id')
    .execute();
  const positions = await q.selectFrom('positions').selectAll().where('status', '=', OPEN).orderBy('id').execute();
  return { accounts, positions };
}
