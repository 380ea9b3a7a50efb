import type { Article, NewsCacheType, TradingNewsResponse } from '@pipdesk/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import { errors } from '../errors.js';
import { forexTicker } from './recognize.js';
import { type NewsCatalogue, type NewsSource, SourceError } from './source.js';
import { urlKey } from './text.js';

/** Per-source state for /api/health/. */
export interface SourceHealth {
  ok: boolean;
  last_error: string | null;
  last_success_at: string | null;
}

interface CacheEntry {
  articles: Article[];
  expiresAt: number;
}

/** A failed source is asked again after at most this long, so a dead feed does not slow every call. */
const FAILURE_RETRY_MS = 30_000;

export interface NewsServiceDeps {
  /** In order of preference: when two sources carry one story, the first one's copy is kept. */
  sources: NewsSource[];
  catalogue: NewsCatalogue;
  clock: Clock;
  log: FastifyBaseLogger;
  cacheTtlMs: number;
  sourceTimeoutMs: number;
}

/**
 * Merges the news sources: each source's answer is cached on its own with a TTL, a failing or
 * slow source (cut off at its timeout) never fails a call, and articles are de-duplicated by URL
 * and listed newest first. Caches live in this process only: they are caches, any node can
 * rebuild them.
 */
export class NewsService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<Article[]>>();
  private readonly state = new Map<string, SourceHealth>();
  private readonly stopping = new AbortController();

  constructor(private readonly deps: NewsServiceDeps) {
    for (const source of deps.sources) this.state.set(source.id, { ok: true, last_error: null, last_success_at: null });
  }

  /** GET /api/news/: every source's general news, newest first. */
  async general(options: { limit: number; refresh: boolean }): Promise<Article[]> {
    const lists = await Promise.all(this.deps.sources.map((source) => this.load(source, undefined, options.refresh)));
    return mergeArticles(lists, options.limit);
  }

  /**
   * GET /api/news/trading/: each pair's news (a source that can ask per pair is asked per pair;
   * the others' general news is filtered by the pair's ticker), and all of them combined.
   * Unknown symbols are a 400 naming them; no pairs means the first three active catalogue pairs.
   */
  async trading(options: { pairs?: string[]; limit: number; refresh: boolean }): Promise<TradingNewsResponse> {
    const symbols = this.resolvePairs(options.pairs);
    const byPair: Record<string, Article[]> = {};
    await Promise.all(
      symbols.map(async (symbol) => {
        const ticker = forexTicker(symbol);
        const lists = await Promise.all(
          this.deps.sources.map(async (source) => {
            const articles = await this.load(source, source.forPair ? symbol : undefined, options.refresh);
            // Even a per-pair answer is checked: a "compatible" API may ignore the ticker filter.
            return articles.filter((a) => a.tickers.includes(ticker));
          }),
        );
        byPair[symbol] = mergeArticles(lists, options.limit);
      }),
    );
    const ordered: Record<string, Article[]> = {};
    for (const symbol of symbols) ordered[symbol] = byPair[symbol] ?? [];
    return { combined: mergeArticles(Object.values(ordered), options.limit), by_pair: ordered };
  }

  /** POST /api/news/clear-cache/: drops general entries, per-pair entries, or both; answers how many. */
  clearCache(type: NewsCacheType): number {
    let cleared = 0;
    for (const key of [...this.cache.keys()]) {
      const isTrading = key.startsWith('trading|');
      if (type === 'all' || (type === 'trading') === isTrading) {
        this.cache.delete(key);
        cleared++;
      }
    }
    return cleared;
  }

  health(): Record<string, SourceHealth> {
    return Object.fromEntries([...this.state].map(([id, health]) => [id, { ...health }]));
  }

  /** Cancels whatever is still being fetched (server shutdown). */
  stop(): void {
    this.stopping.abort();
  }

  private resolvePairs(asked: string[] | undefined): string[] {
    const catalogue = this.deps.catalogue.list();
    if (!asked || asked.length === 0) {
      return catalogue
        .filter((p) => p.isActive)
        .slice(0, 3)
        .map((p) => p.symbol);
    }
    const known = new Set(catalogue.map((p) => p.symbol));
    const unknown = asked.filter((s) => !known.has(s));
    if (unknown.length > 0) {
      const message = `pairs: unknown currency pair${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`;
      throw errors.validation(message, [{ field: 'pairs', message: `unknown currency pair ${unknown.join(', ')}` }]);
    }
    return asked;
  }

  /** One source's articles, general (`symbol` undefined) or for one pair, from the cache when fresh. */
  private load(source: NewsSource, symbol: string | undefined, refresh: boolean): Promise<Article[]> {
    const key = symbol ? `trading|${source.id}|${symbol}` : `general|${source.id}`;
    const cached = this.cache.get(key);
    if (!refresh && cached && cached.expiresAt > this.deps.clock.now()) return Promise.resolve(cached.articles);
    // Concurrent calls share one fetch; a refresh joins one already under way (it is fresh too).
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.fetchFromSource(source, symbol, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async fetchFromSource(source: NewsSource, symbol: string | undefined, key: string): Promise<Article[]> {
    const timeoutMs = this.deps.sourceTimeoutMs;
    // Our own timer, cleared when the fetch settles: Node may collect an unreferenced
    // `AbortSignal.timeout` inside `AbortSignal.any` before it fires (nodejs/node#57736),
    // which left a slow source hanging for its whole delay.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = AbortSignal.any([deadline.signal, this.stopping.signal]);
    const health = this.state.get(source.id) ?? { ok: true, last_error: null, last_success_at: null };
    try {
      const work = symbol && source.forPair ? source.forPair(symbol, signal) : source.latest(signal);
      const articles = await untilAborted(work, signal, timeoutMs);
      const now = this.deps.clock.now();
      this.cache.set(key, { articles, expiresAt: now + this.deps.cacheTtlMs });
      this.state.set(source.id, { ok: true, last_error: null, last_success_at: new Date(now).toISOString() });
      return articles;
    } catch (err) {
      const message = err instanceof SourceError ? err.message : `failed (${(err as Error)?.message ?? String(err)})`;
      this.deps.log.warn({ source: source.id, ...(symbol ? { pair: symbol } : {}), error: message }, 'news source failed');
      this.state.set(source.id, { ...health, ok: false, last_error: message });
      // Keep serving what the source said last time, and ask again soon rather than on every call.
      const stale = this.cache.get(key)?.articles ?? [];
      const retryIn = Math.min(FAILURE_RETRY_MS, this.deps.cacheTtlMs);
      this.cache.set(key, { articles: stale, expiresAt: this.deps.clock.now() + retryIn });
      return stale;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Resolves with `work`, or rejects with a timeout when `signal` fires first (for sources that ignore it). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, timeoutMs: number): Promise<T> {
  if (signal.aborted) return Promise.reject(new SourceError(`timed out after ${timeoutMs} ms`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SourceError(`timed out after ${timeoutMs} ms`));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * Merges article lists: one copy per story (same URL up to tracking parameters, or same id;
 * the earlier list's copy wins), newest first, at most `limit`.
 */
export function mergeArticles(lists: readonly Article[][], limit: number): Article[] {
  const seenUrls = new Set<string>();
  const seenIds = new Set<string>();
  const merged: { article: Article; at: number }[] = [];
  for (const list of lists) {
    for (const article of list) {
      const key = urlKey(article.article_url);
      if (seenUrls.has(key) || seenIds.has(article.id)) continue;
      seenUrls.add(key);
      seenIds.add(article.id);
      merged.push({ article, at: Date.parse(article.published_utc) || 0 });
    }
  }
  merged.sort((a, b) => b.at - a.at || (a.article.id < b.article.id ? -1 : a.article.id > b.article.id ? 1 : 0));
  return merged.slice(0, limit).map((m) => m.article);
}
