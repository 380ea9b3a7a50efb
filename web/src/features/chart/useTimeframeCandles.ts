import { type Candle, CHART_DEFAULT_LIMIT, PRICE_SOCKET_TIMEFRAME, TIMEFRAME_MINUTES, type Timeframe } from '@pipdesk/contract';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { MINUTE_MS, mergeCandle } from '../market/candles';
import type { PriceStream } from '../market/priceStream';
import { fetchTimeframeCandles, marketKeys } from '../market/queries';

/** Candles asked for at a time: the first screen, and each step back in history. */
export const TIMEFRAME_PAGE = CHART_DEFAULT_LIMIT;

type Pages = readonly (readonly Candle[])[];

/**
 * The candles shown after `pages` replaced `before`: older pages put in front of what is shown
 * (live candles included); any other change starts over from the pages.
 */
function follow(before: { pages: Pages | undefined; candles: readonly Candle[] }, pages: Pages | undefined): readonly Candle[] {
  const old = before.pages;
  if (old && pages && pages.length > old.length) {
    const added = pages.length - old.length;
    if (old.every((page, i) => page === pages[i + added])) {
      const first = before.candles[0]?.time ?? Number.POSITIVE_INFINITY;
      // `before` is exclusive, but a candle twice would make the chart library throw: keep strictly older ones.
      const older = pages
        .slice(0, added)
        .flat()
        .filter((c) => c.time < first);
      return [...older, ...before.candles];
    }
  }
  return pages?.flat() ?? [];
}

export interface TimeframeCandles {
  candles: readonly Candle[];
  isPending: boolean;
  isError: boolean;
  refetch: () => void;
  /** Loads the page before the oldest candle; does nothing while one loads or once history ran out. */
  loadOlder: () => void;
  /** An empty answer said there is nothing older. */
  historyEnd: boolean;
}

/**
 * A timeframe's candles (DESIGN §18): the newest `TIMEFRAME_PAGE` first, older pages with
 * `before` on `loadOlder()`, and the live candle from the pair's price socket subscribed with
 * the timeframe (gap filled after a reconnect from the newest candle's time). `timeframe` null:
 * nothing is asked.
 */
export function useTimeframeCandles(symbol: string, timeframe: Timeframe | null, stream: PriceStream | null): TimeframeCandles {
  // The socket carries the timeframe shown; without one, the spec's one-minute candles.
  useEffect(() => {
    stream?.setTimeframe(timeframe ?? PRICE_SOCKET_TIMEFRAME);
  }, [stream, timeframe]);

  const query = useInfiniteQuery({
    queryKey: marketKeys.timeframeChart(symbol, timeframe ?? 'm1'),
    queryFn: ({ pageParam, signal }) =>
      fetchTimeframeCandles(symbol, timeframe ?? 'm1', { before: pageParam ?? undefined, limit: TIMEFRAME_PAGE }, signal),
    initialPageParam: null as number | null,
    // Newer candles come from the socket, never from another page.
    getNextPageParam: () => undefined,
    // An empty page means the history ends there: no more asking.
    getPreviousPageParam: (oldest) => oldest[0]?.time,
    enabled: timeframe !== null,
    // Kept live by the socket: a refetch would throw away the pages scrolled back to.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });

  const pages = timeframe ? query.data?.pages : undefined;
  const [state, setState] = useState({ pages, candles: follow({ pages: undefined, candles: [] }, pages) });
  let current = state;
  if (state.pages !== pages) {
    current = { pages, candles: follow(state, pages) };
    setState(current);
  }

  useEffect(() => {
    if (!stream || !timeframe || !pages) return;
    const period = TIMEFRAME_MINUTES[timeframe] * MINUTE_MS;
    return stream.onChartUpdate((candle) =>
      setState((s) => {
        if (s.pages !== pages) return s;
        const candles = mergeCandle(s.candles, candle, Number.POSITIVE_INFINITY, period);
        return candles === s.candles ? s : { pages, candles };
      }),
    );
  }, [stream, timeframe, pages]);

  const newest = timeframe && pages ? (current.candles.at(-1)?.time ?? null) : null;
  useEffect(() => {
    if (timeframe) stream?.setLastChartTime(newest);
  }, [stream, timeframe, newest]);

  const flagsRef = useRef(query);
  flagsRef.current = query;
  const loadOlder = useCallback(() => {
    const q = flagsRef.current;
    if (!q.data || !q.hasPreviousPage || q.isFetchingPreviousPage || q.isFetching) return;
    // cancelRefetch false: a call while one is on its way joins it instead of asking again.
    void q.fetchPreviousPage({ cancelRefetch: false });
  }, []);

  return {
    candles: current.candles,
    isPending: timeframe !== null && query.isPending,
    isError: query.isError,
    refetch: () => void query.refetch(),
    loadOlder,
    historyEnd: query.data !== undefined && !query.hasPreviousPage,
  };
}
