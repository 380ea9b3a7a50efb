import { JOURNAL_PAGE_SIZE, type JournalEntryDto } from '@pipdesk/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button, Card, CommitOnPauseInput, Field, Pagination, Select, Spinner } from '../../components';
import { digitsLookup, ErrorBox, usePlatformData } from '../trading';
import { fetchJournal, performanceKeys, useJournalTags } from './api';
import { JournalEntry } from './JournalEntry';
import {
  clearedJournalFilters,
  hasJournalFilters,
  journalApiQuery,
  journalPaginationText,
  readJournalFilters,
  readJournalPage,
  withJournalFilter,
  withJournalPage,
} from './journalFilters';
import { mergeTags, unionTags } from './tags';

export const JOURNAL_LOAD_FAILED = 'Failed to load the journal';
export const JOURNAL_EMPTY_TEXT = 'No closed trades yet: every trade you close appears here, to note, tag and rate.';
export const JOURNAL_NO_MATCH_TEXT = 'No closed trades match these filters.';
/** Typing a tag filter waits this long before the list follows, as the Orders page's pair filter. */
export const TAG_FILTER_DEBOUNCE_MS = 400;

/**
 * The trader's own tags, for the suggestions: the journal's tag list (most used first), then
 * any tag on the pages seen in this visit or just saved that the list does not have yet (a
 * failed or late tag list still leaves the trader their visible tags).
 */
function useKnownTags(entries: readonly JournalEntryDto[] | undefined) {
  const tagList = useJournalTags();
  const [seen, setSeen] = useState<string[]>([]);
  useEffect(() => {
    if (!entries) return;
    setSeen((now) => {
      const next = unionTags(now, ...entries.map((e) => e.tags));
      return next.length === now.length ? now : next;
    });
  }, [entries]);
  const known = unionTags(tagList.data ?? [], seen);
  const learn = (tags: readonly string[]) => {
    setSeen((now) => unionTags(now, tags));
    // A new tag changes the most-used order: ask for the list again.
    void tagList.refetch();
  };
  return { known, learn };
}

/**
 * The trade journal: closed trades newest first, 20 a page, filtered by pair and tag (both in
 * the address, like the Orders page's filters), each entry editable in place.
 */
export function JournalCard({ symbols }: { symbols: readonly string[] }) {
  const [params, setParams] = useSearchParams();
  const filters = readJournalFilters(params);
  const page = readJournalPage(params);
  const apiQuery = journalApiQuery(filters, page);
  const platform = usePlatformData();
  const digits = digitsLookup(platform.data?.fx_pairs);
  const tagListId = useId();

  const journal = useQuery({
    queryKey: performanceKeys.journalPage(apiQuery),
    queryFn: ({ signal }) => fetchJournal(apiQuery, signal),
    placeholderData: keepPreviousData,
  });
  const { known, learn } = useKnownTags(journal.data?.results);

  const count = journal.data?.count ?? 0;
  const totalPages = Math.max(1, Math.ceil(count / JOURNAL_PAGE_SIZE));
  // A shared link to a page past the end lands on the last page.
  const beyondEnd = journal.isSuccess && !journal.isPlaceholderData && page > totalPages;
  useEffect(() => {
    if (beyondEnd) setParams(withJournalPage(params, totalPages), { replace: true });
  }, [beyondEnd, params, setParams, totalPages]);

  // Every pair the trader can trade, and any pair already in the address or the statistics.
  const pairOptions = mergeTags(
    platform.data?.fx_pairs.map((p) => p.symbol) ?? [],
    symbols,
    filters.symbol ? [filters.symbol] : [],
  );
  const texts = journalPaginationText(page, count);
  const filtered = hasJournalFilters(filters);

  return (
    <Card title="Trade Journal" aria-label="Trade Journal" className="journal-card">
      <div className="journal-filters">
        <Field label="Pair">
          <Select
            value={filters.symbol}
            onChange={(e) => setParams(withJournalFilter(params, 'symbol', e.target.value), { replace: true })}
          >
            <option value="">All pairs</option>
            {pairOptions.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
        <CommitOnPauseInput
          label="Tag"
          className="journal-filters__tag"
          value={filters.tag}
          onCommit={(v) => setParams(withJournalFilter(params, 'tag', v), { replace: true })}
          delayMs={TAG_FILTER_DEBOUNCE_MS}
          placeholder="e.g. breakout"
          maxLength={32}
          list={tagListId}
        />
        <datalist id={tagListId}>
          {known.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        {filtered && (
          <div className="journal-filters__actions">
            <Button variant="ghost" onClick={() => setParams(clearedJournalFilters(params), { replace: true })}>
              Clear Filters
            </Button>
          </div>
        )}
      </div>

      {journal.isError && !journal.data ? (
        <ErrorBox message={JOURNAL_LOAD_FAILED} onRetry={() => void journal.refetch()} retrying={journal.isFetching} />
      ) : journal.isPending ? (
        <div className="perf-loading" role="status">
          <Spinner /> <span>Loading journal...</span>
        </div>
      ) : (
        <>
          {journal.isError && (
            <ErrorBox message={JOURNAL_LOAD_FAILED} onRetry={() => void journal.refetch()} retrying={journal.isFetching} />
          )}
          {journal.data.results.length === 0 ? (
            <p className="perf-empty">{filtered ? JOURNAL_NO_MATCH_TEXT : JOURNAL_EMPTY_TEXT}</p>
          ) : (
            <ol className="journal-list" aria-label="Closed trades" aria-busy={journal.isFetching || undefined}>
              {journal.data.results.map((entry) => (
                <li key={entry.trade.id}>
                  <JournalEntry entry={entry} digits={digits} knownTags={known} onSaved={(e) => learn(e.tags)} />
                </li>
              ))}
            </ol>
          )}
          {count > 0 && (
            <Pagination
              label="Journal pages"
              page={page}
              totalPages={totalPages}
              texts={texts}
              busy={journal.isPlaceholderData}
              onPage={(p) => setParams(withJournalPage(params, p))}
            />
          )}
        </>
      )}
    </Card>
  );
}
