import type { Ordering, OrderSide, OrderStatus, OrderType } from '@pipdesk/contract';
import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import type {} from './history-tables.js';
import type { OrderRow, Q, TradeRow } from './repo.js';

// The trader's order and trade history: recent lists, the filtered and ordered orders page,
// and the keyset pages of the CSV export (docs/api.md#order-list, docs/orders.md#csv-export).
// Each read costs the same with 100,000 orders as with 100 (docs/orders.md#history-at-any-size).

/** The newest orders (of one pair when `symbol` is given): a seek on `orders_history_idx`, or `orders_pair_history_idx` for one pair. */
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

/**
 * The filters but the dates, as terms over the columns `orders` and `order_counts` share: a
 * count and its pages are written through the same predicate, so they cannot disagree. Side,
 * status and type are the contract's enum values, written into the SQL (never user text): then
 * SQLite can see that `status = 'PENDING'` matches the partial index of armed orders.
 */
function filterTerms(f: OrderFilters): Expression<SqlBool>[] {
  const terms: Expression<SqlBool>[] = [];
  if (f.symbolContains) {
    // LIKE with the text's own wildcards escaped: "contains", never a pattern.
    const escaped = f.symbolContains.replace(/[\\%_]/g, (c) => `\\${c}`);
    terms.push(sql<SqlBool>`symbol like ${`%${escaped}%`} escape '\\'`);
  }
  if (f.side) terms.push(sql<SqlBool>`side = ${sql.lit(f.side)}`);
  if (f.status) terms.push(sql<SqlBool>`status = ${sql.lit(f.status)}`);
  if (f.orderType) terms.push(sql<SqlBool>`order_type = ${sql.lit(f.orderType)}`);
  return terms;
}

function filteredOrders(q: Q, accountId: number, f: OrderFilters) {
  let query = q.selectFrom('orders').where('account_id', '=', accountId);
  for (const term of filterTerms(f)) query = query.where(term);
  if (f.createdFrom !== undefined) query = query.where('created_at', '>=', f.createdFrom);
  if (f.createdTo !== undefined) query = query.where('created_at', '<=', f.createdTo);
  return query;
}

/**
 * How many of the account's orders match, exactly (docs/orders.md#history-at-any-size). Without a
 * date bound: the sum of the account's matching `order_counts` rows (a few dozen, kept by triggers
 * in every order's own transaction). With one, on `orders_history_idx` (it holds every filter
 * column, so the table is not read): the orders in the range are counted, or, when the range
 * likely holds most of the account's history, the orders outside it are counted and taken from
 * the kept total, so "everything since a year ago" costs what the few orders before it cost.
 * The guess (orders spread evenly between the account's first and last) only picks the cheaper
 * side; both sides give the same exact figure in the same snapshot.
 */
export async function countOrders(q: Q, accountId: number, f: OrderFilters): Promise<number> {
  if (f.createdFrom === undefined && f.createdTo === undefined) return countOf(countQuery(q, accountId, f));
  const { first, last } = await historySpan(q, accountId);
  if (first === null || last === null) return 0;
  const from = Math.max(f.createdFrom ?? first, first);
  const to = Math.min(f.createdTo ?? last, last);
  if (from > to) return 0;
  const likelyInside = last === first ? 1 : (to - from) / (last - first);
  if (likelyInside <= 0.5) return countOf(countQuery(q, accountId, f));
  const rest = { ...f, createdFrom: undefined, createdTo: undefined };
  let outside = 0;
  if (f.createdFrom !== undefined && f.createdFrom > first) {
    outside += await countOf(countQuery(q, accountId, { ...rest, createdTo: f.createdFrom - 1 }));
  }
  if (f.createdTo !== undefined && f.createdTo < last) {
    outside += await countOf(countQuery(q, accountId, { ...rest, createdFrom: f.createdTo + 1 }));
  }
  return (await countOf(countQuery(q, accountId, rest))) - outside;
}

async function countOf(query: ReturnType<typeof countQuery>): Promise<number> {
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n ?? 0);
}

/** The times of the account's first and last orders: two seeks on `orders_history_idx`, one round trip. */
async function historySpan(q: Q, accountId: number): Promise<{ first: number | null; last: number | null }> {
  const edge = (direction: 'asc' | 'desc') =>
    q.selectFrom('orders').select('created_at').where('account_id', '=', accountId).orderBy('created_at', direction).limit(1);
  const row = await q.selectNoFrom([edge('asc').as('first'), edge('desc').as('last')]).executeTakeFirstOrThrow();
  return {
    first: row.first,
    last: row.last,
  };
}

/**
 * One count query (exported so a test can read its plan): the sum of `order_counts` without a
 * date bound, a count over `orders_history_idx` with one.
 */
export function countQuery(q: Q, accountId: number, f: OrderFilters) {
  if (f.createdFrom === undefined && f.createdTo === undefined) {
    let query = q.selectFrom('order_counts').where('account_id', '=', accountId);
    for (const term of filterTerms(f)) query = query.where(term);
    return query.select((eb) => eb.fn.sum<number | string | null>('n').as('n'));
  }
  return filteredOrders(q, accountId, f).select((eb) => eb.fn.countAll<number | string>().as('n'));
}

const ORDERING_COLUMNS = {
  created_at: 'created_at',
  quantity: 'quantity_centilots',
  average_fill_price: 'average_fill_price_e10',
} as const;

type OrderingColumn = (typeof ORDERING_COLUMNS)[keyof typeof ORDERING_COLUMNS];

function orderingOf(ordering: Ordering): { column: OrderingColumn; descending: boolean } {
  return {
    column: ORDERING_COLUMNS[ordering.replace('-', '') as keyof typeof ORDERING_COLUMNS],
    descending: ordering.startsWith('-'),
  };
}

/**
 * Sorts `query` in `ordering` (`reversed`: exactly backwards). Ties break on created_at, then id,
 * in the same direction, so the order is total and pages never overlap; null fill prices sort
 * last (first when reversed).
 */
function sorted<O>(
  query: SelectQueryBuilder<Database, 'orders', O>,
  column: OrderingColumn,
  descending: boolean,
  reversed = false,
): SelectQueryBuilder<Database, 'orders', O> {
  const down = descending !== reversed;
  const direction = down ? 'desc' : 'asc';
  let out =
    column === 'average_fill_price_e10'
      ? query.orderBy(column, (ob) => {
          const o = down ? ob.desc() : ob.asc();
          return reversed ? o.nullsFirst() : o.nullsLast();
        })
      : query.orderBy(column, direction);
  if (column !== 'created_at') out = out.orderBy('created_at', direction);
  return out.orderBy('id', direction);
}

/**
 * One page of orders: rows `offset` to `offset + limit` of the `total` that match (the exact count
 * of the same filters). The ids are read first, from the index alone for the default order, then
 * only the page's rows. A page past the middle is read from the other end (the same rows,
 * walked backwards), so the last page costs what the first does and none walks more than half.
 */
export async function listOrders(
  q: Q,
  accountId: number,
  f: OrderFilters,
  ordering: Ordering,
  offset: number,
  limit: number,
  total: number,
): Promise<OrderRow[]> {
  if (offset >= total || limit <= 0) return [];
  return pageQuery(q, accountId, f, ordering, offset, limit, total).execute();
}

/** The query `listOrders` runs for a page that has rows (exported so a test can read its plan). */
export function pageQuery(
  q: Q,
  accountId: number,
  f: OrderFilters,
  ordering: Ordering,
  offset: number,
  limit: number,
  total: number,
) {
  const { column, descending } = orderingOf(ordering);
  const end = Math.min(offset + limit, total);
  const fromEnd = total - end < offset;
  const ids = sorted(filteredOrders(q, accountId, f).select('id'), column, descending, fromEnd)
    .offset(fromEnd ? total - end : offset)
    .limit(end - offset);
  return sorted(q.selectFrom('orders').selectAll().where('id', 'in', ids), column, descending);
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
        eb('created_at', beyond, after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', beyond, after.id)]),
      ]);
      if (column === 'created_at') return tail;
      const last = column === 'quantity_centilots' ? after.quantity_centilots : after.average_fill_price_e10;
      if (last === null) {
        // Null fill prices sort last in both directions: only nulls follow a null.
        return eb.and([eb(column, 'is', null), tail]);
      }
      const terms: Expression<SqlBool>[] = [eb(column, beyond, last), eb.and([eb(column, '=', last), tail])];
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
