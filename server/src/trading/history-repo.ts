import type { Ordering, OrderSide, OrderStatus, OrderType } from '@pipdesk/contract';
import { type Expression, type SqlBool, sql } from 'kysely';
import type { OrderRow, Q, TradeRow } from './repo.js';

// The trader's order and trade history: recent lists, the filtered and ordered orders page,
// and the keyset pages of the CSV export (docs/api.md#order-list, docs/orders.md#csv-export).

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

/**
 * The page of orders that follows `after` in `ordering` (keyset pagination: each page is one
 * short query, whatever the depth), ordered exactly as `listOrders`. The CSV export streams
 * every matching order this way (docs/orders.md#csv-export).
 */
export async function ordersAfter(
  q: Q,
  accountId: number,
  f: OrderFilters,
  ordering: Ordering,
  after: OrderRow | undefined,
  limit: number,
): Promise<OrderRow[]> {
  const descending = ordering.startsWith('-');
  const column = ORDERING_COLUMNS[ordering.replace('-', '') as keyof typeof ORDERING_COLUMNS];
  const direction = descending ? 'desc' : 'asc';
  const beyond = descending ? '<' : '>';
  let query = filteredOrders(q, accountId, f).selectAll();
  if (after) {
    query = query.where((eb) => {
      // (created_at, id) beyond the last row's.
      const tail = eb.or([
        eb('created_at', beyond, Number(after.created_at)),
        eb.and([eb('created_at', '=', Number(after.created_at)), eb('id', beyond, Number(after.id))]),
      ]);
      if (column === 'created_at') return tail;
      const last = column === 'quantity_centilots' ? after.quantity_centilots : after.average_fill_price_e10;
      if (last === null) {
        // Null fill prices sort last in both directions: only nulls follow a null.
        return eb.and([eb(column, 'is', null), tail]);
      }
      const terms: Expression<SqlBool>[] = [eb(column, beyond, Number(last)), eb.and([eb(column, '=', Number(last)), tail])];
      if (column === 'average_fill_price_e10') terms.push(eb(column, 'is', null));
      return eb.or(terms);
    });
  }
  query =
    column === 'average_fill_price_e10'
      ? query.orderBy(column, (ob) => (descending ? ob.desc() : ob.asc()).nullsLast())
      : query.orderBy(column, direction);
  if (column !== 'created_at') query = query.orderBy('created_at', direction);
  return query.orderBy('id', direction).limit(limit).execute();
}
