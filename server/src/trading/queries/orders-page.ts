import { ORDERS_PAGE_SIZE, type OrderDto, type OrdersQuery } from '@pipdesk/contract';
import { findTraderAccount } from '../../accounts/index.js';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import * as history from '../history-repo.js';
import { orderDto } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, UserId } from '../types.js';

export interface OrdersPageData {
  count: number;
  page: number;
  pageSize: number;
  results: OrderDto[];
}

/** `YYYY-MM-DD` is a whole UTC day (inclusive at both ends); an ISO date-time is an instant. */
export function dateBound(text: string, side: 'from' | 'to'): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const start = Date.parse(`${text}T00:00:00.000Z`);
    return side === 'from' ? start : start + 86_400_000 - 1;
  }
  // A date-time without a zone is UTC, like the dates.
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
}

/** The orders/ filters of a query (the orders page and the CSV export); 400 when `date_from` is after `date_to`. */
export function orderFilters(query: OrdersQuery): history.OrderFilters {
  const filters: history.OrderFilters = {
    ...(query.fx_pair ? { symbolContains: query.fx_pair.toUpperCase().replace(/[/\s-]/g, '') } : {}),
    ...(query.side ? { side: query.side } : {}),
    ...(query.status ? { status: query.status } : {}),
    ...(query.order_type ? { orderType: query.order_type } : {}),
    ...(query.date_from ? { createdFrom: dateBound(query.date_from, 'from') } : {}),
    ...(query.date_to ? { createdTo: dateBound(query.date_to, 'to') } : {}),
  };
  if (filters.createdFrom !== undefined && filters.createdTo !== undefined && filters.createdFrom > filters.createdTo) {
    throw errors.validation('date_from: must not be after date_to', [
      { field: 'date_from', message: 'must not be after date_to' },
    ]);
  }
  return filters;
}

/** One page of the trader's orders, filtered and ordered as the orders screen asks. */
export async function listOrders(
  deps: Pick<TradingDeps, 'db' | 'pricing'>,
  userId: UserId,
  query: OrdersQuery,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
): Promise<OrdersPageData> {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? ORDERS_PAGE_SIZE;
  const filters = orderFilters(query);
  const read = await repo.readSnapshot(deps.db, async (q) => {
    const account = await findTraderAccount(q, userId, accountId);
    if (!account) return { count: 0, rows: [] };
    const id = Number(account.id);
    const count = await history.countOrders(q, id, filters);
    const offset = (page - 1) * pageSize;
    const rows = await history.listOrders(q, id, filters, query.ordering ?? '-created_at', offset, pageSize, count);
    return { count, rows };
  });
  return { count: read.count, page, pageSize, results: read.rows.map((o) => orderDto(o, deps.pricing.pair(o.symbol))) };
}
