import type { Article, Publisher, Sentiment } from '@pipdesk/contract';
import { z } from 'zod';
import { classify } from './classify.js';
import { fetchLimited } from './fetch.js';
import { forexTicker } from './recognize.js';
import { lexiconSentiment, normalizeSentiment } from './sentiment.js';
import { type NewsCatalogue, type NewsSource, SourceError, type SourceLimits } from './source.js';
import { htmlToText, parseFeedDate, safeHttpUrl, truncate } from './text.js';

/**
 * The documented answer of GET /v2/reference/news. Fields are read leniently (anything may be
 * missing or null in a compatible API); an article without an http(s) URL is dropped later.
 */
const optionalText = z.string().nullish().catch(undefined);
const polygonArticleSchema = z.object({
  id: z.union([z.string(), z.number()]).nullish().catch(undefined),
  publisher: z
    .object({ name: optionalText, homepage_url: optionalText, logo_url: optionalText, favicon_url: optionalText })
    .nullish()
    .catch(undefined),
  title: optionalText,
  author: optionalText,
  published_utc: optionalText,
  article_url: optionalText,
  amp_url: optionalText,
  image_url: optionalText,
  description: optionalText,
  tickers: z.array(z.string()).nullish().catch(undefined),
  keywords: z.array(z.string()).nullish().catch(undefined),
  insights: z
    .array(z.object({ ticker: optionalText, sentiment: optionalText, sentiment_reasoning: optionalText }).catch({}))
    .nullish()
    .catch(undefined),
});
const polygonAnswerSchema = z.object({
  status: z.string().optional(),
  results: z.array(z.unknown()).nullish(),
  error: z.string().optional(),
  message: z.string().optional(),
});

export type PolygonArticle = z.infer<typeof polygonArticleSchema>;

/** How many articles one call asks for: enough for the largest `limit` a client may ask. */
const PAGE_SIZE = 100;

/** A Polygon-compatible news API (NEWS_API_KEY, NEWS_API_URL). */
export class PolygonSource implements NewsSource {
  readonly id = 'polygon';

  constructor(
    private readonly deps: {
      baseUrl: string;
      apiKey: string;
      catalogue: NewsCatalogue;
      limits: SourceLimits;
      timeoutMs: number;
    },
  ) {}

  latest(signal: AbortSignal): Promise<Article[]> {
    return this.query(undefined, signal);
  }

  forPair(symbol: string, signal: AbortSignal): Promise<Article[]> {
    return this.query(symbol, signal);
  }

  private async query(symbol: string | undefined, signal: AbortSignal): Promise<Article[]> {
    const url = new URL(this.deps.baseUrl);
    // Keep a base path if the compatible API lives under one (https://host/polygon/v2/...).
    url.pathname = `${url.pathname.replace(/\/$/, '')}/v2/reference/news`;
    url.search = '';
    if (symbol) url.searchParams.set('ticker', forexTicker(symbol));
    url.searchParams.set('limit', String(Math.min(PAGE_SIZE, this.deps.limits.maxItems)));
    url.searchParams.set('order', 'desc');
    url.searchParams.set('sort', 'published_utc');
    url.searchParams.set('apiKey', this.deps.apiKey);
    const body = await fetchLimited(url.href, {
      signal,
      maxBytes: this.deps.limits.maxBytes,
      accept: 'application/json',
      timeoutMs: this.deps.timeoutMs,
    });
    let json: unknown;
    try {
      json = JSON.parse(body.text);
    } catch {
      throw new SourceError('answer is not JSON');
    }
    const answer = polygonAnswerSchema.safeParse(json);
    if (!answer.success || !answer.data.results) {
      const reason = answer.success ? (answer.data.error ?? answer.data.message ?? answer.data.status) : undefined;
      throw new SourceError(`unexpected answer${reason ? ` (${truncate(String(reason), 120)})` : ''}`);
    }
    const catalogue = this.deps.catalogue.list().filter((p) => p.isActive);
    const articles: Article[] = [];
    for (const raw of answer.data.results.slice(0, this.deps.limits.maxItems)) {
      const parsed = polygonArticleSchema.safeParse(raw);
      if (!parsed.success) continue;
      const article = mapPolygonArticle(parsed.data, catalogue, symbol);
      if (article) articles.push(article);
    }
    return articles;
  }
}

/**
 * Polygon's article shape is ours; this only cleans it: plain text, http(s) URLs, an ISO date,
 * and the sentiment from `insights` (the insight for the asked pair first, else the one most
 * insights agree on), else the lexicon's.
 */
export function mapPolygonArticle(
  raw: PolygonArticle,
  catalogue: Parameters<typeof classify>[1],
  askedSymbol?: string,
): Article | undefined {
  const articleUrl = safeHttpUrl(raw.article_url) ?? safeHttpUrl(raw.amp_url);
  if (!articleUrl) return undefined;
  const publishedAt = parseFeedDate(raw.published_utc);
  if (publishedAt === undefined) return undefined;
  const title = truncate(htmlToText(raw.title ?? ''), 300);
  if (!title) return undefined;
  const description = truncate(htmlToText(raw.description ?? ''), 600);
  const sourceTickers = (raw.tickers ?? []).map((t) => t.trim()).filter((t) => t.length > 0 && t.length <= 32);
  const classification = classify(`${title}. ${description}`, catalogue, sourceTickers);
  const publisher: Publisher = { name: truncate(htmlToText(raw.publisher?.name ?? ''), 100) || hostOf(articleUrl) };
  const homepage = safeHttpUrl(raw.publisher?.homepage_url);
  const logo = safeHttpUrl(raw.publisher?.logo_url);
  if (homepage) publisher.homepage_url = homepage;
  if (logo) publisher.logo_url = logo;
  return {
    id: raw.id === undefined || raw.id === null || raw.id === '' ? articleUrl : String(raw.id),
    title,
    description,
    article_url: articleUrl,
    image_url: safeHttpUrl(raw.image_url) ?? null,
    published_utc: new Date(publishedAt).toISOString(),
    publisher,
    author: truncate(htmlToText(raw.author ?? ''), 120),
    sentiment:
      insightSentiment(raw.insights ?? [], askedSymbol ?? classification.related_pair ?? undefined) ??
      lexiconSentiment(`${title}. ${description}`),
    ...classification,
  };
}

function insightSentiment(
  insights: { ticker?: string | null; sentiment?: string | null }[],
  symbol: string | undefined,
): Sentiment | undefined {
  if (symbol) {
    const wanted = forexTicker(symbol);
    const own = insights.find((i) => i.ticker?.toUpperCase() === wanted);
    const sentiment = normalizeSentiment(own?.sentiment);
    if (sentiment) return sentiment;
  }
  const votes = new Map<Sentiment, number>();
  for (const insight of insights) {
    const sentiment = normalizeSentiment(insight.sentiment);
    if (sentiment) votes.set(sentiment, (votes.get(sentiment) ?? 0) + 1);
  }
  let best: Sentiment | undefined;
  let bestVotes = 0;
  let tie = false;
  for (const [sentiment, count] of votes) {
    if (count > bestVotes) {
      best = sentiment;
      bestVotes = count;
      tie = false;
    } else if (count === bestVotes) {
      tie = true;
    }
  }
  if (best === undefined) return undefined;
  return tie ? 'neutral' : best;
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^www\./, '');
}
