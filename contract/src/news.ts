import { z } from 'zod';
import { text } from './common.js';

/** GET /api/news/ and /api/news/trading/: 30 articles unless asked, never more than 100 (docs/screens.md#constants, docs/api.md#news-calls). */
export const NEWS_LIMIT_DEFAULT = 30;
export const NEWS_LIMIT_MAX = 100;
/** How many pairs one /api/news/trading/ call may ask for. */
export const NEWS_PAIRS_MAX = 20;

export const sentimentSchema = z.enum(['positive', 'negative', 'neutral']);
export type Sentiment = z.infer<typeof sentimentSchema>;

export const newsCategorySchema = z.enum(['forex', 'pair', 'general']);
export type NewsCategory = z.infer<typeof newsCategorySchema>;

export const publisherSchema = z.object({
  name: z.string(),
  homepage_url: z.string().optional(),
  logo_url: z.string().optional(),
});
export type Publisher = z.infer<typeof publisherSchema>;

/**
 * A news article in the Polygon news shape (docs/api.md#news-calls). Text fields are plain text (HTML is
 * stripped on the server); `article_url`, `image_url` and the publisher's URLs are http(s) only.
 * `author` is an empty string when the source names none.
 */
export const articleSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  article_url: z.string(),
  image_url: z.string().nullable(),
  /** ISO 8601 UTC. */
  published_utc: z.string(),
  publisher: publisherSchema,
  author: z.string(),
  sentiment: sentimentSchema,
  /** Polygon tickers, forex ones as `C:EURUSD`. */
  tickers: z.array(z.string()),
  category: newsCategorySchema,
  /** Catalogue symbol (`EURUSD`) the article is about, if one. */
  related_pair: z.string().nullable(),
});
export type Article = z.infer<typeof articleSchema>;

const LIMIT_MESSAGE = `must be a whole number from 1 to ${NEWS_LIMIT_MAX}`;

/** `limit` as it arrives in a query string. */
export const newsLimitParam = text()
  .regex(/^\d{1,4}$/, LIMIT_MESSAGE)
  .transform(Number)
  .pipe(z.number().int().min(1, LIMIT_MESSAGE).max(NEWS_LIMIT_MAX, LIMIT_MESSAGE))
  .default(NEWS_LIMIT_DEFAULT);

/** `refresh=true` bypasses the per-source cache. */
export const newsRefreshParam = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1')
  .default(false);

/** GET /api/news/?limit=&refresh= */
export const newsQuerySchema = z.strictObject({ limit: newsLimitParam, refresh: newsRefreshParam });
export type NewsQuery = z.infer<typeof newsQuerySchema>;

/**
 * GET /api/news/trading/?pairs=&limit=&refresh=. `pairs` is a comma list of catalogue symbols
 * (`EURUSD,GBPUSD`; `EUR/USD` is accepted too); the server answers 400 naming an unknown one.
 * Without `pairs` the first three active catalogue pairs are used, as the dashboard does.
 */
export const tradingNewsQuerySchema = z.strictObject({
  pairs: text()
    .max(400, 'is too long')
    .transform((v) => [
      ...new Set(
        v
          .split(',')
          .map((s) => s.trim().toUpperCase().replace('/', ''))
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.string()).max(NEWS_PAIRS_MAX, `must name at most ${NEWS_PAIRS_MAX} pairs`))
    .optional(),
  limit: newsLimitParam,
  refresh: newsRefreshParam,
});
export type TradingNewsQuery = z.infer<typeof tradingNewsQuerySchema>;

/**
 * GET /api/news/ answer: its own shape at the top level, no envelope (docs/api.md#envelope,
 * docs/api.md#news-calls; the web reads `articles`).
 */
export const newsResponseSchema = z.object({
  articles: z.array(articleSchema),
  /** Number of articles in this answer. */
  count: z.number().int(),
});
export type NewsResponse = z.infer<typeof newsResponseSchema>;

/**
 * GET /api/news/trading/ answer: its own shape at the top level, no envelope (docs/api.md#envelope,
 * docs/api.md#news-calls; the web reads `combined`).
 */
export const tradingNewsResponseSchema = z.object({
  /** All asked pairs' articles merged, de-duplicated, newest first, at most `limit`. */
  combined: z.array(articleSchema),
  /** Each asked pair's own articles, newest first, at most `limit` each. */
  by_pair: z.record(z.string(), z.array(articleSchema)),
});
export type TradingNewsResponse = z.infer<typeof tradingNewsResponseSchema>;

export const newsCacheTypeSchema = z.enum(['all', 'general', 'trading']);
export type NewsCacheType = z.infer<typeof newsCacheTypeSchema>;

/** POST /api/news/clear-cache/ `{type}` (all when omitted). */
export const clearNewsCacheRequestSchema = z.strictObject({ type: newsCacheTypeSchema.default('all') });
export type ClearNewsCacheRequest = z.infer<typeof clearNewsCacheRequestSchema>;

/** Its `data` (in the usual envelope): how many cache entries were dropped. */
export const clearNewsCacheResponseSchema = z.object({ cleared: z.number().int() });
export type ClearNewsCacheResponse = z.infer<typeof clearNewsCacheResponseSchema>;
