import {
  type EquityCurveDto,
  type EquityCurveRange,
  type JournalEntryDto,
  type JournalEntryRequest,
  type JournalPage,
  type JournalTagsDto,
  type PerformanceDto,
  performanceOperations,
} from '@pipdesk/contract';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { api, type QueryValue } from '../../api';
import { tradingKeys } from '../trading';

/**
 * Query keys of the performance screen. They sit under the trading keys on purpose: a fill or a
 * close reloads everything under ['trading'] (docs/screens.md#live-data-and-polling), so the
 * statistics, the curve and the journal follow the trader's new closed trade without a reload.
 */
export const performanceKeys = {
  summary: [...tradingKeys.all, 'performance'] as const,
  equityCurve: (range: EquityCurveRange) => [...tradingKeys.all, 'equity-curve', range] as const,
  journal: [...tradingKeys.all, 'journal'] as const,
  journalPage: (query: Record<string, QueryValue>) => [...tradingKeys.all, 'journal', query] as const,
  journalTags: [...tradingKeys.all, 'journal-tags'] as const,
};

export function fetchPerformance(signal?: AbortSignal): Promise<PerformanceDto> {
  return api.call(performanceOperations.performance, {}, { signal });
}

export function fetchEquityCurve(range: EquityCurveRange, signal?: AbortSignal): Promise<EquityCurveDto> {
  return api.call(performanceOperations.equityCurve, { query: { range } }, { signal });
}

/** GET trading/journal/: shaped like orders/, no envelope. */
export function fetchJournal(query: Record<string, QueryValue>, signal?: AbortSignal): Promise<JournalPage> {
  return api.call(performanceOperations.journal, { query }, { signal });
}

/** GET trading/journal/tags/: every tag the trader used, most used first. */
export function fetchJournalTags(signal?: AbortSignal): Promise<JournalTagsDto> {
  return api.call(performanceOperations.journalTags, {}, { signal });
}

/** PUT trading/journal/{tradeId}/ with all three fields: the entry is replaced as the trader sees it. */
export function saveJournalEntry(tradeId: number, entry: Required<JournalEntryRequest>): Promise<JournalEntryDto> {
  return api.call(performanceOperations.updateJournalEntry, { ids: { tradeId }, body: entry });
}

/** The trader's own tags, for the tag chips' suggestions and the tag filter. */
export function useJournalTags() {
  return useQuery({ queryKey: performanceKeys.journalTags, queryFn: ({ signal }) => fetchJournalTags(signal) });
}

export function usePerformance() {
  return useQuery({ queryKey: performanceKeys.summary, queryFn: ({ signal }) => fetchPerformance(signal) });
}

export function useEquityCurve(range: EquityCurveRange) {
  return useQuery({ queryKey: performanceKeys.equityCurve(range), queryFn: ({ signal }) => fetchEquityCurve(range, signal) });
}

/**
 * Puts a saved entry in every cached journal page that shows its trade, so the page shows what
 * was stored (the server trims and de-duplicates tags) without reloading the list.
 */
export function storeSavedEntry(queryClient: QueryClient, saved: JournalEntryDto): void {
  queryClient.setQueriesData<JournalPage>({ queryKey: performanceKeys.journal }, (page) =>
    page ? { ...page, results: page.results.map((e) => (e.trade.id === saved.trade.id ? saved : e)) } : page,
  );
}
