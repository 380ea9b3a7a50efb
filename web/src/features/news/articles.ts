import type { Article, Sentiment } from '@pipdesk/contract';

/** docs/screens.md#constants: the News page shows 30 articles; the dashboard and pair panels 5; the dashboard asks for the first 3 pairs. */
export const NEWS_PAGE_ARTICLES = 30;
export const NEWS_PANEL_ITEMS = 5;
export const DASHBOARD_NEWS_PAIRS = 3;
/** docs/screens.md#constants: up to 5 tickers per article, then "+N more". */
export const MAX_TICKERS_SHOWN = 5;

/** docs/screens.md#error-texts, word for word. */
export const NEWS_FAILED_TEXT = 'Failed to load news articles. Please try again.';

/** The tickers a list shows and how many it leaves for "+N more". */
export function visibleTickers(tickers: readonly string[], max = MAX_TICKERS_SHOWN): { shown: string[]; more: number } {
  return { shown: tickers.slice(0, max), more: Math.max(0, tickers.length - max) };
}

/** A Polygon ticker as a trader reads it: `C:EURUSD` → `EUR/USD`; anything else unchanged. */
export function tickerLabel(ticker: string): string {
  const fx = /^C:([A-Z]{3})([A-Z]{3})$/.exec(ticker);
  return fx ? `${fx[1]}/${fx[2]}` : ticker;
}

/** `EURUSD` → `EUR/USD`. */
export function pairLabel(symbol: string): string {
  return /^[A-Z]{6}$/.test(symbol) ? `${symbol.slice(0, 3)}/${symbol.slice(3)}` : symbol;
}

/**
 * The address a link or image may use: http(s) only. The server already drops anything else;
 * this keeps a `javascript:` or `data:` URL from ever reaching an attribute if one slips through.
 */
export function safeUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url, window.location.origin);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** What the image tile says when there is no picture: the pair, else the first currency ticker, else the publisher's initials. */
export function imageFallbackLabel(article: Pick<Article, 'related_pair' | 'tickers' | 'publisher'>): string {
  if (article.related_pair) return pairLabel(article.related_pair);
  const fx = article.tickers.find((t) => t.startsWith('C:'));
  if (fx) return tickerLabel(fx);
  const initials = article.publisher.name
    .split(/\s+/)
    .filter((word) => /^[\p{L}\p{N}]/u.test(word))
    .slice(0, 2)
    .map((word) => [...word][0]?.toUpperCase())
    .join('');
  return initials || 'News';
}

export const SENTIMENT_TEXT: Record<Sentiment, string> = {
  positive: 'Positive',
  negative: 'Negative',
  neutral: 'Neutral',
};
