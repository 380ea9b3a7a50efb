import { type Article, type NewsResponse, newsOperations, type TradingNewsResponse } from '@pipdesk/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api';

// The market wire writes new articles as prices move; a screen left open picks them up.
const NEWS_REFETCH_MS = 5 * 60_000;
const NEWS_STALE_MS = 60_000;

/** GET /api/news/: the answer is in the spec's shape at the top level, not in the envelope. */
export function fetchNews(limit: number, refresh: boolean, signal?: AbortSignal): Promise<NewsResponse> {
  return api.call(newsOperations.news, { query: { limit: String(limit), refresh: refresh ? 'true' : undefined } }, { signal });
}

/** GET /api/news/trading/: `{combined, by_pair}` at the top level. No pairs: the server picks the first three active ones. */
export function fetchTradingNews(
  pairs: readonly string[],
  limit: number,
  refresh: boolean,
  signal?: AbortSignal,
): Promise<TradingNewsResponse> {
  const query = {
    pairs: pairs.length > 0 ? pairs.join(',') : undefined,
    limit: String(limit),
    refresh: refresh ? ('true' as const) : undefined,
  };
  return api.call(newsOperations.tradingNews, { query }, { signal });
}

export const newsKeys = {
  general: (limit: number) => ['news', 'general', limit] as const,
  trading: (pairs: readonly string[], limit: number) => ['news', 'trading', pairs.join(','), limit] as const,
};

/** A list of articles with a Refresh that asks the server to skip its cache (`refresh=true`). */
export interface NewsList {
  articles: Article[] | undefined;
  isPending: boolean;
  /** The last load or refresh failed. */
  failed: boolean;
  refreshing: boolean;
  /** Fetches again bypassing the server's cache and shows the answer. */
  refresh: () => void;
  /** Tries the ordinary load again after a failure. */
  retry: () => void;
}

/**
 * One list of articles: loaded (and kept fresh) from the server's cache, with a Refresh that
 * asks past the cache and puts the answer in the same place.
 */
function useRefreshableNews<T>(
  key: readonly unknown[],
  load: (refresh: boolean, signal?: AbortSignal) => Promise<T>,
  articlesOf: (answer: T) => Article[],
): NewsList {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => load(false, signal),
    staleTime: NEWS_STALE_MS,
    refetchInterval: NEWS_REFETCH_MS,
  });
  const refresh = useMutation({
    mutationFn: () => load(true),
    onSuccess: (answer) => queryClient.setQueryData(key, answer),
  });
  return {
    articles: query.data === undefined ? undefined : articlesOf(query.data),
    isPending: query.isPending,
    failed: query.isError || refresh.isError,
    refreshing: refresh.isPending,
    refresh: () => refresh.mutate(),
    retry: () => {
      refresh.reset();
      void query.refetch();
    },
  };
}

/** The News page's articles. */
export function useNews(limit: number): NewsList {
  return useRefreshableNews(
    newsKeys.general(limit),
    (refresh, signal) => fetchNews(limit, refresh, signal),
    (answer) => answer.articles.slice(0, limit),
  );
}

/**
 * Trading news for some pairs, at most `limit`: that pair's own list when `symbol` names one
 * of them (the pair page), else all of them merged (the dashboard).
 */
export function useTradingNews(pairs: readonly string[], limit: number, symbol?: string): NewsList {
  return useRefreshableNews(
    newsKeys.trading(pairs, limit),
    (refresh, signal) => fetchTradingNews(pairs, limit, refresh, signal),
    (answer) => ((symbol ? answer.by_pair[symbol] : undefined) ?? answer.combined).slice(0, limit),
  );
}
