import { JOURNAL_PAGE_SIZE, JOURNAL_TAG_MAX_LENGTH } from '@pipdesk/contract';
import type { QueryValue } from '../../api';

/**
 * The journal's filters as they live in the address (so a filtered journal can be shared and
 * reloaded), named as the journal call names them (docs/api.md#performance-and-the-trade-journal).
 */
export interface JournalFilters {
  /** A pair's symbol (EURUSD), or '' for every pair. */
  symbol: string;
  /** One of the trader's tags, or '' for every trade. */
  tag: string;
}

export const NO_JOURNAL_FILTERS: JournalFilters = { symbol: '', tag: '' };

const SYMBOL = /^[A-Za-z]{6}$/;

/** The filters in an address; anything the call would refuse (a hand-edited link) counts as no filter. */
export function readJournalFilters(params: URLSearchParams): JournalFilters {
  const symbol = (params.get('symbol') ?? '').trim();
  const tag = (params.get('tag') ?? '').trim();
  return {
    symbol: SYMBOL.test(symbol) ? symbol.toUpperCase() : '',
    tag: tag.length <= JOURNAL_TAG_MAX_LENGTH ? tag : '',
  };
}

/** The page in an address: a positive integer, else 1. */
export function readJournalPage(params: URLSearchParams): number {
  const raw = params.get('page') ?? '';
  return /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
}

export function hasJournalFilters(filters: JournalFilters): boolean {
  return filters.symbol !== '' || filters.tag !== '';
}

/** The address after changing one filter: back to page 1; an empty filter leaves the address. */
export function withJournalFilter(params: URLSearchParams, key: keyof JournalFilters, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete('page');
  if (value === '') next.delete(key);
  else next.set(key, value);
  return next;
}

export function withJournalPage(params: URLSearchParams, page: number): URLSearchParams {
  const next = new URLSearchParams(params);
  if (page <= 1) next.delete('page');
  else next.set('page', String(page));
  return next;
}

export function clearedJournalFilters(params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete('symbol');
  next.delete('tag');
  next.delete('page');
  return next;
}

/** The journal call's query: only the parameters it knows (it refuses any other). */
export function journalApiQuery(filters: JournalFilters, page: number): Record<string, QueryValue> {
  return { page, symbol: filters.symbol || undefined, tag: filters.tag || undefined };
}

/** "Page X of Y" and "Showing a to b of n trades", as the Orders page words its pages. */
export function journalPaginationText(page: number, count: number): { pages: string; showing: string } {
  const totalPages = Math.max(1, Math.ceil(count / JOURNAL_PAGE_SIZE));
  const first = count === 0 ? 0 : Math.min((page - 1) * JOURNAL_PAGE_SIZE + 1, count);
  const last = Math.min(page * JOURNAL_PAGE_SIZE, count);
  return {
    pages: `Page ${page} of ${totalPages}`,
    showing: `Showing ${first} to ${last} of ${count} ${count === 1 ? 'trade' : 'trades'}`,
  };
}
