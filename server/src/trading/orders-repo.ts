import { type Insertable, sql } from 'kysely';
import { prepare } from '../db/prepared.js';
import type { StoredOrderStatus } from './order-status.js';
import { type NewOrderRow, type OrderRow, PENDING, preparedInsert, type Q } from './rows.js';
import type { TradesTable } from './tables.js';

/** The columns an order is written with (all but its id). */
export const ORDER_COLUMNS = [
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

/** The columns a trade is written with (all but its id). */
export const TRADE_COLUMNS = [
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

export async function insertOrder(trx: Q, row: NewOrderRow): Promise<number> {
  return (await orderInsert.execute(trx, row))[0]!.id;
}

export async function insertTrade(trx: Q, row: Insertable<TradesTable>): Promise<number> {
  return (await tradeInsert.execute(trx, row))[0]!.id;
}

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

// ------------------------------------------------------------------ pending orders (docs/orders.md)

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
