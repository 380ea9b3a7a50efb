import {
  ORDER_SIDES,
  ORDER_STATUSES,
  ORDER_TYPES,
  ORDERING_VALUES,
  ORDERS_PAGE_SIZE,
  type Ordering,
  type OrderSide,
  type OrderStatus,
  type OrderType,
} from '@pipdesk/contract';
import type { QueryValue } from '../../api';
import { ORDER_STATUS_LABELS, ORDER_TYPE_LABELS } from '../trading/format';

/**
 * The Orders page's filters, as they live in the address (so a filtered view can be shared
 * and reloaded): the call's own parameter names, dates as the trader's calendar days.
 */
export interface OrderFilters {
  fx_pair: string;
  side: OrderSide | '';
  status: OrderStatus | '';
  order_type: OrderType | '';
  /** YYYY-MM-DD, a day in the trader's time zone. */
  date_from: string;
  date_to: string;
  ordering: Ordering;
}

export const DEFAULT_ORDERING: Ordering = '-created_at';

export const EMPTY_FILTERS: OrderFilters = {
  fx_pair: '',
  side: '',
  status: '',
  order_type: '',
  date_from: '',
  date_to: '',
  ordering: DEFAULT_ORDERING,
};

export const FILTER_KEYS = ['fx_pair', 'side', 'status', 'order_type', 'date_from', 'date_to', 'ordering'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export const SIDE_OPTIONS: readonly { value: OrderSide | ''; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'BUY', label: 'Buy' },
  { value: 'SELL', label: 'Sell' },
];

export const STATUS_OPTIONS: readonly { value: OrderStatus | ''; label: string }[] = [
  { value: '', label: 'All' },
  ...ORDER_STATUSES.map((s) => ({ value: s, label: ORDER_STATUS_LABELS[s] })),
];

export const TYPE_OPTIONS: readonly { value: OrderType | ''; label: string }[] = [
  { value: '', label: 'All' },
  ...ORDER_TYPES.map((t) => ({ value: t, label: ORDER_TYPE_LABELS[t] })),
];

/** docs/api.md#order-list: default -created_at; also created_at, ±quantity, ±average_fill_price. */
export const SORT_OPTIONS: readonly { value: Ordering; label: string }[] = [
  { value: '-created_at', label: 'Newest first' },
  { value: 'created_at', label: 'Oldest first' },
  { value: '-quantity', label: 'Quantity: high to low' },
  { value: 'quantity', label: 'Quantity: low to high' },
  { value: '-average_fill_price', label: 'Fill price: high to low' },
  { value: 'average_fill_price', label: 'Fill price: low to high' },
];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function oneOf<T extends string>(values: readonly T[], raw: string | null): T | '' {
  const v = (raw ?? '').trim().toUpperCase();
  return (values as readonly string[]).includes(v) ? (v as T) : '';
}

function day(raw: string | null): string {
  const v = (raw ?? '').trim();
  if (!DAY.test(v)) return '';
  // A real calendar day only: 2026-13-01 or 2026-02-30 would roll over into another date.
  const [y, m, d] = v.split('-').map(Number) as [number, number, number];
  const date = new Date(y, m - 1, d);
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d ? v : '';
}

/** The filters in an address; anything unreadable (a hand-edited link) counts as no filter. */
export function readFilters(params: URLSearchParams): OrderFilters {
  const ordering = params.get('ordering') ?? '';
  return {
    fx_pair: (params.get('fx_pair') ?? '').trim().slice(0, 20),
    side: oneOf(ORDER_SIDES, params.get('side')),
    status: oneOf(ORDER_STATUSES, params.get('status')),
    order_type: oneOf(ORDER_TYPES, params.get('order_type')),
    date_from: day(params.get('date_from')),
    date_to: day(params.get('date_to')),
    ordering: (ORDERING_VALUES as readonly string[]).includes(ordering) ? (ordering as Ordering) : DEFAULT_ORDERING,
  };
}

/** The page in an address: a positive integer, else 1. */
export function readPage(params: URLSearchParams): number {
  const raw = params.get('page') ?? '';
  return /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
}

/** Whether any filter (not the sort order) narrows the list. */
export function hasActiveFilters(filters: OrderFilters): boolean {
  return FILTER_KEYS.some((k) => k !== 'ordering' && filters[k] !== '');
}

/** The address after changing one filter: a new filter starts again at page 1; defaults leave the address. */
export function withFilter(params: URLSearchParams, key: FilterKey, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete('page');
  if (value === '' || (key === 'ordering' && value === DEFAULT_ORDERING)) next.delete(key);
  else next.set(key, value);
  return next;
}

/** The address at another page. */
export function withPage(params: URLSearchParams, page: number): URLSearchParams {
  const next = new URLSearchParams(params);
  if (page <= 1) next.delete('page');
  else next.set('page', String(page));
  return next;
}

/** The address without any filter (Clear Filters). */
export function clearedFilters(params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const k of FILTER_KEYS) next.delete(k);
  next.delete('page');
  return next;
}

/** The first (from) or last (to) millisecond of a calendar day in the trader's time zone. */
function localDay(date: string, side: 'from' | 'to'): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return side === 'from' ? new Date(y, m - 1, d).getTime() : new Date(y, m - 1, d + 1).getTime() - 1;
}

/**
 * The orders call's query. The trader picks days on their own calendar, so the dates go out
 * as the exact instants that bound those local days (the server reads a bare date as a UTC day).
 */
export function ordersApiQuery(filters: OrderFilters, page: number): Record<string, QueryValue> {
  return {
    page,
    page_size: ORDERS_PAGE_SIZE,
    fx_pair: filters.fx_pair || undefined,
    side: filters.side || undefined,
    status: filters.status || undefined,
    order_type: filters.order_type || undefined,
    date_from: filters.date_from ? new Date(localDay(filters.date_from, 'from')).toISOString() : undefined,
    date_to: filters.date_to ? new Date(localDay(filters.date_to, 'to')).toISOString() : undefined,
    ordering: filters.ordering === DEFAULT_ORDERING ? undefined : filters.ordering,
  };
}

/** The docs/screens.md#orders-page pagination texts. */
export function paginationText(page: number, count: number, pageSize = ORDERS_PAGE_SIZE): { pages: string; showing: string } {
  const totalPages = Math.max(1, Math.ceil(count / pageSize));
  const first = count === 0 ? 0 : Math.min((page - 1) * pageSize + 1, count);
  const last = Math.min(page * pageSize, count);
  return { pages: `Page ${page} of ${totalPages}`, showing: `Showing ${first} to ${last} of ${count} orders` };
}
