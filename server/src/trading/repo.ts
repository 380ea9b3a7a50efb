import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { dbKindOf, prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { priceFromE10 } from './math.js';
import type { StoredOrderStatus } from './order-status.js';
import type { IdempotencyKeysTable, OrdersTable, PositionsTable, TradesTable } from './tables.js';
import { accountId, type PositionState, positionId } from './types.js';

/**
 * Any Kysely handle: the database itself or a transaction. Writes run inside `writeTransaction`.
 * The queries of the order path are prepared (built and compiled once, see db/prepared.ts).
 * Trading accounts and the ledger belong to the accounts module: read and lock them through
 * `accounts/repo.ts`, never here.
 */
export type Q = Kysely<Database>;

export type OrderRow = Selectable<OrdersTable>;
export type TradeRow = Selectable<TradesTable>;
export type PositionRow = Selectable<PositionsTable>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;
/** A new order row: its status comes from the order status table (order-status.ts), never a literal. */
export type NewOrderRow = Omit<Insertable<OrdersTable>, 'status'> & { status: StoredOrderStatus };

/** The exact state of a stored position (what the live book keeps and execution events carry). */
export function positionStateFromRow(row: PositionRow): PositionState {
  return {
    id: positionId(row.id),
    accountId: accountId(row.account_id),
    pairId: Number(row.pair_id),
    symbol: row.symbol,
    quantityCentilots: Number(row.quantity_centilots),
    averageEntryPrice: priceFromE10(row.average_entry_price_e10).toString(),
    status: row.status,
    realizedPnlMinor: Number(row.realized_pnl_minor),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    closedAt: row.closed_at === null ? null : Number(row.closed_at),
    stopLoss: row.stop_loss_e10 === null ? null : priceFromE10(row.stop_loss_e10).toString(),
    takeProfit: row.take_profit_e10 === null ? null : priceFromE10(row.take_profit_e10).toString(),
    trailingStopPips: row.trailing_stop_pips === null ? null : Number(row.trailing_stop_pips),
    protectionVersion: Number(row.protection_version),
  };
}

/**
 * Runs reads on one consistent snapshot, so a dashboard never shows a balance from after an
 * execution beside positions from before it. SQLite: a deferred transaction (WAL snapshot);
 * PostgreSQL: REPEATABLE READ, read only.
 */
export async function readSnapshot<T>(db: Db, fn: (q: Q) => Promise<T>): Promise<T> {
  const tx = db.kysely.transaction();
  return db.kind === 'postgres' ? tx.setIsolationLevel('repeatable read').setAccessMode('read only').execute(fn) : tx.execute(fn);
}

/**
 * `status = 'OPEN'` written into the SQL, never bound: SQLite compares a bound value with the
 * partial index's `WHERE status = 'OPEN'` and then re-prepares the statement on every run
 * (parse and plan again, most of the query's cost).
 */
const OPEN = sql.lit<'OPEN'>('OPEN');
/** The same for the partial index of armed orders (`orders_pending_idx`). */
const PENDING = sql.lit<'PENDING'>('PENDING');

const openPositionsOfAccount = prepare<{ accountId: number }, PositionRow>('trading.openPositionsOfAccount', (q, value) =>
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

const POSITION_COLUMNS = [
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
  'stop_loss_e10',
  'take_profit_e10',
  'trailing_stop_pips',
] as const;

const positionInsert = preparedInsert('trading.insertPosition', 'positions', POSITION_COLUMNS);

const ORDER_COLUMNS = [
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
  'time_in_force',
  'expires_at',
  'limit_price_e10',
  'triggered_at',
  'stop_loss_e10',
  'take_profit_e10',
  'trailing_stop_pips',
] as const;

const orderInsert = preparedInsert('trading.insertOrder', 'orders', ORDER_COLUMNS);

const TRADE_COLUMNS = [
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
] as const;

const tradeInsert = preparedInsert('trading.insertTrade', 'trades', TRADE_COLUMNS);

const idempotencyKeyInsert = preparedInsert('trading.insertIdempotencyKey', 'idempotency_keys', [
  'user_id',
  'idempotency_key',
  'request_hash',
  'response_status',
  'response_body',
  'created_at',
]);

/** What an execution changes on a position (its protection included: docs/orders.md#protection-on-positions). */
export type PositionChanges = Pick<
  PositionRow,
  | 'quantity_centilots'
  | 'average_entry_price_e10'
  | 'realized_pnl_minor'
  | 'status'
  | 'updated_at'
  | 'closed_at'
  | 'stop_loss_e10'
  | 'take_profit_e10'
  | 'trailing_stop_pips'
  | 'protection_version'
>;

const POSITION_CHANGE_COLUMNS = [
  'quantity_centilots',
  'average_entry_price_e10',
  'realized_pnl_minor',
  'status',
  'updated_at',
  'closed_at',
  'stop_loss_e10',
  'take_profit_e10',
  'trailing_stop_pips',
  'protection_version',
] as const satisfies ReadonlyArray<keyof PositionChanges>;

const positionUpdate = prepare<PositionChanges & { id: number }, never>('trading.updatePosition', (q, value) =>
  q
    .updateTable('positions')
    .set(Object.fromEntries(POSITION_CHANGE_COLUMNS.map((c) => [c, value(c)])))
    .where('id', '=', value('id')),
);

export async function insertPosition(trx: Q, row: Insertable<PositionsTable>): Promise<number> {
  return Number((await positionInsert.execute(trx, row))[0]!.id);
}

export async function updatePosition(trx: Q, id: number, changes: PositionChanges): Promise<void> {
  await positionUpdate.execute(trx, { ...changes, id });
}

export async function insertOrder(trx: Q, row: NewOrderRow): Promise<number> {
  return Number((await orderInsert.execute(trx, row))[0]!.id);
}

export async function insertTrade(trx: Q, row: Insertable<TradesTable>): Promise<number> {
  return Number((await tradeInsert.execute(trx, row))[0]!.id);
}

/** How a fill writes its position: a new one, or the changes to the one it fills into. */
export type FillPositionWrite =
  | { kind: 'insert'; row: Insertable<PositionsTable> }
  | { kind: 'update'; id: number; changes: PositionChanges };

/** Writes the fill's position: its id. */
export async function writePosition(trx: Q, write: FillPositionWrite): Promise<number> {
  if (write.kind === 'insert') return insertPosition(trx, write.row);
  await updatePosition(trx, write.id, write.changes);
  return write.id;
}

/** A filled MARKET order, but for its position's id (its fill writes the position in the same statement). */
export type NewFillOrder = Omit<NewOrderRow, 'position_id'>;
/** A fill's trade, but for its order's and position's ids. */
export type NewFillTrade = Omit<Insertable<TradesTable>, 'order_id' | 'position_id'>;

type FillOrderColumn = Exclude<(typeof ORDER_COLUMNS)[number], 'position_id'>;
type FillTradeColumn = Exclude<(typeof TRADE_COLUMNS)[number], 'order_id' | 'position_id'>;
type TradeValues = { [C in FillTradeColumn as `trade_${C}`]: NewFillTrade[C] };
type PositionValues<W> = W extends { kind: 'insert' }
  ? { [C in (typeof POSITION_COLUMNS)[number] as `position_${C}`]: Insertable<PositionsTable>[C] }
  : { [C in keyof PositionChanges as `position_${C}`]: PositionChanges[C] } & { position_id: number };
type FillValues<K extends FillPositionWrite['kind']> = NewFillOrder & TradeValues & PositionValues<{ kind: K }>;

const FILL_ORDER_COLUMNS = ORDER_COLUMNS.filter((c): c is FillOrderColumn => c !== 'position_id');
const FILL_TRADE_COLUMNS = TRADE_COLUMNS.filter((c): c is FillTradeColumn => c !== 'order_id' && c !== 'position_id');

/**
 * On PostgreSQL, a MARKET order's fill as CTEs of one statement (one round trip instead of three
 * on the order path: docs/order-engine.md#round-trips): the position written (`fill_position`,
 * inserted or updated), the FILLED order (`fill_order`) and its trade (`fill_trade`), both
 * pointing at that position. Each table's values are named with a prefix (`position_…`,
 * `trade_…`) beside the order's own. Other modules may add CTEs after these that read
 * `fill_trade`'s id (trading/fill-statement.ts). SQLite has no data-modifying CTE and runs the
 * three statements.
 */
export function withFill<K extends FillPositionWrite['kind']>(
  q: Q,
  kind: K,
  value: <N extends keyof FillValues<K> & string>(name: N) => FillValues<K>[N],
) {
  const v = (name: string) => value(name as keyof FillValues<K> & string) as never;
  /** The columns' values under their names with `prefix`. */
  const row = <T>(columns: readonly string[], prefix = '') =>
    Object.fromEntries(columns.map((c) => [c, v(`${prefix}${c}`)])) as unknown as T;
  return q
    .with('fill_position', (db) =>
      kind === 'insert'
        ? db.insertInto('positions').values(row<Insertable<PositionsTable>>(POSITION_COLUMNS, 'position_')).returning('id')
        : db
            .updateTable('positions')
            .set(row<PositionChanges>(POSITION_CHANGE_COLUMNS, 'position_'))
            .where('id', '=', v('position_id'))
            .returning('id'),
    )
    .with('fill_order', (db) =>
      db
        .insertInto('orders')
        .values((eb) => ({
          ...row<NewFillOrder>(FILL_ORDER_COLUMNS),
          position_id: eb.selectFrom('fill_position').select('id'),
        }))
        .returning('id'),
    )
    .with('fill_trade', (db) =>
      db
        .insertInto('trades')
        .values((eb) => ({
          ...row<NewFillTrade>(FILL_TRADE_COLUMNS, 'trade_'),
          position_id: eb.selectFrom('fill_position').select('id'),
          order_id: eb.selectFrom('fill_order').select('id'),
        }))
        .returning(['id', 'order_id', 'position_id']),
    );
}

/** The fill's statement's values (see `withFill`). */
export function fillValues(position: FillPositionWrite, order: NewFillOrder, trade: NewFillTrade): Record<string, unknown> {
  const values: Record<string, unknown> = { ...order };
  for (const c of FILL_TRADE_COLUMNS) values[`trade_${c}`] = trade[c];
  const fields: Record<string, unknown> = position.kind === 'insert' ? position.row : position.changes;
  for (const [c, x] of Object.entries(fields)) values[`position_${c}`] = x;
  if (position.kind === 'update') values.position_id = position.id;
  return values;
}

/** What a fill's statement answers: the trade's id, and its order's and position's. */
export type FillIds = { id: number; order_id: number; position_id: number };

const fillNewPosition = prepare<FillValues<'insert'>, FillIds>('trading.fillNewPosition', (q, value) =>
  withFill(q, 'insert', value).selectFrom('fill_trade').selectAll(),
);
const fillPosition = prepare<FillValues<'update'>, FillIds>('trading.fillPosition', (q, value) =>
  withFill(q, 'update', value).selectFrom('fill_trade').selectAll(),
);

/** A fill's ids as the execution uses them. */
export const fillIdsFromRow = (row: FillIds) => ({
  positionId: Number(row.position_id),
  orderId: Number(row.order_id),
  tradeId: Number(row.id),
});

/** A MARKET order's fill: its position written, the FILLED order and its trade; their ids. */
export async function writeFill(
  trx: Q,
  position: FillPositionWrite,
  order: NewFillOrder,
  trade: NewFillTrade,
): Promise<{ positionId: number; orderId: number; tradeId: number }> {
  if (dbKindOf(trx) === 'postgres') {
    const values = fillValues(position, order, trade);
    const [row] =
      position.kind === 'insert'
        ? await fillNewPosition.execute(trx, values as FillValues<'insert'>)
        : await fillPosition.execute(trx, values as FillValues<'update'>);
    return fillIdsFromRow(row!);
  }
  const positionId = await writePosition(trx, position);
  const orderId = await insertOrder(trx, { ...order, position_id: positionId });
  const tradeId = await insertTrade(trx, { ...trade, order_id: orderId, position_id: positionId });
  return { positionId, orderId, tradeId };
}

// ------------------------------------------------------------------ pending orders and protection (docs/orders.md)

/** An order by id, whoever's (the trigger executor's read; calls scoped to a trader use `findOrder`). */
const orderById = prepare<{ id: number }, OrderRow>('trading.orderById', (q, value) =>
  q.selectFrom('orders').selectAll().where('id', '=', value('id')),
);

export async function findOrderById(q: Q, id: number): Promise<OrderRow | undefined> {
  return (await orderById.execute(q, { id }))[0];
}

/** An order of this account only: another trader's id is simply not found. */
export async function findOrder(q: Q, accountId: number, id: number): Promise<OrderRow | undefined> {
  return q.selectFrom('orders').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** A position by id, whoever's (the trigger executor's read). */
const positionById = prepare<{ id: number }, PositionRow>('trading.positionById', (q, value) =>
  q.selectFrom('positions').selectAll().where('id', '=', value('id')),
);

export async function findPositionById(q: Q, id: number): Promise<PositionRow | undefined> {
  return (await positionById.execute(q, { id }))[0];
}

/** How a PENDING order leaves PENDING (filled, rejected, cancelled, expired); its status comes from the status table. */
export type PendingOrderSettlement = {
  status: StoredOrderStatus;
  filled_quantity_centilots: number;
  average_fill_price_e10: number | null;
  rejection_reason: string | null;
  position_id: number | null;
  updated_at: number;
};

const pendingOrderSettle = prepare<PendingOrderSettlement & { id: number }, { id: number }>(
  'trading.settlePendingOrder',
  (q, value) =>
    q
      .updateTable('orders')
      .set({
        status: value('status'),
        filled_quantity_centilots: value('filled_quantity_centilots'),
        average_fill_price_e10: value('average_fill_price_e10'),
        rejection_reason: value('rejection_reason'),
        position_id: value('position_id'),
        updated_at: value('updated_at'),
      })
      .where('id', '=', value('id'))
      .where('status', '=', PENDING)
      .returning('id'),
);

/**
 * Moves a PENDING order out of PENDING, guarded by `status = 'PENDING'`: false when it was no
 * longer PENDING (another path won; the caller writes nothing else).
 */
export async function settlePendingOrder(trx: Q, id: number, settlement: PendingOrderSettlement): Promise<boolean> {
  return (await pendingOrderSettle.execute(trx, { ...settlement, id })).length === 1;
}

/** What a modification of a PENDING order may change. */
export type PendingOrderChanges = Pick<
  OrderRow,
  | 'price_e10'
  | 'limit_price_e10'
  | 'time_in_force'
  | 'expires_at'
  | 'stop_loss_e10'
  | 'take_profit_e10'
  | 'trailing_stop_pips'
  | 'updated_at'
>;

/** Changes a PENDING order, guarded by `status = 'PENDING'`; the stored row after, or undefined when it was no longer PENDING. */
export async function updatePendingOrder(trx: Q, id: number, changes: PendingOrderChanges): Promise<OrderRow | undefined> {
  return trx
    .updateTable('orders')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', PENDING)
    .returningAll()
    .executeTakeFirst();
}

const stopLimitTriggeredMark = prepare<{ id: number; at: number }, { id: number }>('trading.markStopLimitTriggered', (q, value) =>
  q
    .updateTable('orders')
    .set({ triggered_at: value('at'), updated_at: value('at') })
    .where('id', '=', value('id'))
    .where('status', '=', PENDING)
    .where('order_type', '=', sql.lit('STOP_LIMIT'))
    .where('triggered_at', 'is', null)
    .returning('id'),
);

/** Records that a STOP_LIMIT's stop fired (it stays PENDING); false when it was no longer PENDING or already triggered. */
export async function markStopLimitTriggered(trx: Q, id: number, at: number): Promise<boolean> {
  return (await stopLimitTriggeredMark.execute(trx, { id, at })).length === 1;
}

/** A position's protection as stored. */
export type PositionProtection = Pick<PositionRow, 'stop_loss_e10' | 'take_profit_e10' | 'trailing_stop_pips'>;

/** Sets an OPEN position's protection (a trader's change: its `protection_version` is bumped); the row after, or undefined when it is no longer OPEN. */
export async function updatePositionProtection(
  trx: Q,
  id: number,
  protection: PositionProtection,
  updatedAt: number,
): Promise<PositionRow | undefined> {
  return trx
    .updateTable('positions')
    .set((eb) => ({ ...protection, updated_at: updatedAt, protection_version: eb('protection_version', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', OPEN)
    .returningAll()
    .executeTakeFirst();
}

const trailingStopSave = prepare<{ id: number; stopLoss: number; version: number }, { id: number }>(
  'trading.saveTrailingStop',
  (q, value) =>
    q
      .updateTable('positions')
      .set({ stop_loss_e10: value('stopLoss') })
      .where('id', '=', value('id'))
      .where('status', '=', OPEN)
      // The protection the engine moved is still the stored one: a trader's or a fill's change since then wins.
      .where('protection_version', '=', value('version'))
      // While it trails; or after a change that took the trailing away and left the stop loss out
      // (version ≥ 1), the stop the engine kept where it trailed to. Never one untouched since it opened without trailing.
      .where((eb) => eb.or([eb('trailing_stop_pips', 'is not', null), eb('protection_version', '>', 0)]))
      // Only ever tighter (a LONG's stop up, a SHORT's down): a stop the trader set meanwhile is never loosened.
      .where((eb) =>
        eb.or([
          eb('stop_loss_e10', 'is', null),
          eb.and([eb('quantity_centilots', '>', 0), eb('stop_loss_e10', '<', value('stopLoss'))]),
          eb.and([eb('quantity_centilots', '<', 0), eb('stop_loss_e10', '>', value('stopLoss'))]),
        ]),
      )
      .returning('id'),
);

/**
 * Writes a trailing stop that moved (or that a change leaving the stop loss out kept), for the
 * protection version the engine holds; false when the position is gone, never trailed, already has
 * a tighter stop, or its protection was changed since that version (docs/order-engine.md#the-engine).
 */
export async function saveTrailingStop(trx: Q, id: number, stopLossE10: number, version: number): Promise<boolean> {
  return (await trailingStopSave.execute(trx, { id, stopLoss: stopLossE10, version })).length === 1;
}

const pendingOrdersOfAccount = prepare<{ accountId: number }, OrderRow>('trading.pendingOrdersOfAccount', (q, value) =>
  q.selectFrom('orders').selectAll().where('account_id', '=', value('accountId')).where('status', '=', PENDING).orderBy('id'),
);

/** The account's PENDING orders, oldest first (`symbol`: on that pair only). */
export async function pendingOrders(q: Q, accountId: number, symbol?: string): Promise<OrderRow[]> {
  const rows = await pendingOrdersOfAccount.execute(q, { accountId });
  return symbol === undefined ? rows : rows.filter((r) => r.symbol === symbol);
}

/** Every PENDING order of every account, oldest first: what the trigger engine arms at start. */
export async function allPendingOrders(q: Q): Promise<OrderRow[]> {
  return q.selectFrom('orders').selectAll().where('status', '=', PENDING).orderBy('id').execute();
}

/** Every OPEN position with protection, oldest first: what the trigger engine arms at start. */
export async function allProtectedPositions(q: Q): Promise<PositionRow[]> {
  // Written as the partial index `positions_protected_idx` is, so both databases use it.
  return q
    .selectFrom('positions')
    .selectAll()
    .where(
      sql<boolean>`status = 'OPEN' and (stop_loss_e10 is not null or take_profit_e10 is not null or trailing_stop_pips is not null)`,
    )
    .orderBy('id')
    .execute();
}

const idempotencyKeyOfUser = prepare<{ userId: number; key: string }, IdempotencyRow>(
  'trading.idempotencyKeyOfUser',
  (q, value) =>
    q
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('user_id', '=', value('userId'))
      .where('idempotency_key', '=', value('key')),
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

/** Every OPEN position of every account, oldest first: the live cache's starting point. */
export async function allOpenPositions(q: Q): Promise<PositionRow[]> {
  return q.selectFrom('positions').selectAll().where('status', '=', OPEN).orderBy('id').execute();
}

/** The OPEN positions of these accounts (at most a few hundred ids), oldest first. */
export async function openPositionsOfAccounts(q: Q, accountIds: readonly number[]): Promise<PositionRow[]> {
  if (accountIds.length === 0) return [];
  return q
    .selectFrom('positions')
    .selectAll()
    .where('status', '=', OPEN)
    .where('account_id', 'in', accountIds)
    .orderBy('id')
    .execute();
}
