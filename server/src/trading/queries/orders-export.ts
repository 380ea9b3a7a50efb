import type { OrderDto, OrdersQuery } from '@pipdesk/contract';
import { findTraderAccount } from '../../accounts/index.js';
import type { TradingDeps } from '../deps.js';
import * as history from '../history-repo.js';
import { orderDto } from '../presenter.js';
import type { OrderRow } from '../repo.js';
import type { AccountId, UserId } from '../types.js';
import { orderFilters } from './orders-page.js';

/** Rows read per query: each page is one short read, so an export never holds the database. */
export const EXPORT_PAGE_SIZE = 500;

/** The CSV columns, in order: the order's fields as the orders/ call answers them. */
export const EXPORT_COLUMNS = [
  'id',
  'created_at',
  'symbol',
  'order_type',
  'side',
  'quantity',
  'filled_quantity',
  'price',
  'limit_price',
  'average_fill_price',
  'status',
  'time_in_force',
  'expires_at',
  'triggered_at',
  'stop_loss',
  'take_profit',
  'trailing_stop_pips',
  'reason',
  'rejection_reason',
  'position_id',
  'current_price',
  'submitted_at',
  'updated_at',
] as const;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvLine(fields: ReadonlyArray<string | number | null>): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function orderLine(o: OrderDto): string {
  return csvLine([
    o.id,
    o.created_at,
    o.fx_pair_symbol,
    o.order_type,
    o.side,
    o.quantity,
    o.filled_quantity,
    o.price,
    o.limit_price,
    o.average_fill_price,
    o.status,
    o.time_in_force,
    o.expires_at,
    o.triggered_at,
    o.stop_loss,
    o.take_profit,
    o.trailing_stop_pips,
    o.reason,
    o.rejection_reason,
    o.position_id,
    o.current_price,
    o.submitted_at,
    o.updated_at,
  ]);
}

/**
 * Every order of the trader matching the orders/ filters, as CSV text chunks (docs/orders.md#csv-export):
 * one header row, then the orders in the query's `ordering` (page and page_size are ignored).
 * The filters are checked at once (400 before anything is sent); rows are then read page by
 * page with keyset pagination and yielded as they come, never all held in memory.
 */
export function exportOrdersCsv(
  deps: Pick<TradingDeps, 'db' | 'pricing'>,
  userId: UserId,
  query: OrdersQuery,
  pageSize = EXPORT_PAGE_SIZE,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  named?: AccountId,
): AsyncGenerator<string> {
  const filters = orderFilters(query);
  const ordering = query.ordering ?? '-created_at';
  return (async function* () {
    yield csvLine(EXPORT_COLUMNS);
    const account = await findTraderAccount(deps.db.kysely, userId, named);
    if (!account) return;
    const accountId = Number(account.id);
    let after: OrderRow | undefined;
    for (;;) {
      const rows = await history.ordersAfter(deps.db.kysely, accountId, filters, ordering, after, pageSize);
      if (rows.length > 0) yield rows.map((o) => orderLine(orderDto(o, deps.pricing.pair(o.symbol)))).join('');
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1];
    }
  })();
}
