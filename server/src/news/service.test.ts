import type { Article } from '@pipdesk/contract';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { AppError } from '../errors.js';
import { FeedSource } from './feeds.js';
import { TEST_PAIRS } from './fixtures/fake-market.js';
import { type FeedServer, fixture, startFeedServer } from './fixtures/feed-server.js';
import { PolygonSource } from './polygon.js';
import { mergeArticles, NewsService } from './service.js';
import { DEFAULT_SOURCE_LIMITS, type NewsSource, SourceError } from './source.js';

const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);
const catalogue = { list: () => TEST_PAIRS };

function article(id: string, minutesAgo: number, extra: Partial<Article> = {}): Article {
  return {
    id,
    title: `Story ${id}`,
    description: '',
    article_url: `https://news.example/${id}`,
    image_url: null,
    published_utc: new Date(NOW - minutesAgo * 60_000).toISOString(),
    publisher: { name: 'Example' },
    author: '',
    sentiment: 'neutral',
    tickers: [],
    category: 'general',
    related_pair: null,
    ...extra,
  };
}

/** A scripted source that counts its calls; `answer` can be swapped between calls. */
function scripted(id: string, answer: () => Promise<Article[]>, perPair?: (symbol: string) => Promise<Article[]>) {
  const calls: string[] = [];
  const source: NewsSource & { calls: string[]; answer: () => Promise<Article[]> } = {
    id,
    calls,
    answer,
    latest: () => {
      calls.push('latest');
      return source.answer();
    },
    ...(perPair
      ? {
          forPair: (symbol: string) => {
            calls.push(symbol);
            return perPair(symbol);
          },
        }
      : {}),
  };
  return source;
}

function service(sources: NewsSource[], options: { clock?: ManualClock; timeoutMs?: number; ttlSeconds?: number } = {}) {
  const warnings: unknown[] = [];
  const log = { warn: (obj: unknown) => warnings.push(obj) } as unknown as FastifyBaseLogger;
  const clock = options.clock ?? new ManualClock(NOW);
  return {
    warnings,
    clock,
    news: new NewsService({
      sources,
      catalogue,
      clock,
      log,
      cacheTtlMs: (options.ttlSeconds ?? 300) * 1000,
      sourceTimeoutMs: options.timeoutMs ?? 1000,
    }),
  };
}

describe('news service', () => {
  it('merges sources newest first, one copy per URL (tracking parameters ignored), the earlier source winning', async () => {
    const a = scripted('a', async () => [
      article('a1', 30, { article_url: 'https://www.news.example/shared?utm_source=rss', title: 'From A' }),
      article('a2', 5),
    ]);
    const b = scripted('b', async () => [
      article('b1', 10),
      article('b2', 1, { article_url: 'https://news.example/shared', title: 'From B' }),
    ]);
    const { news } = service([a, b]);
    const articles = await news.general({ limit: 30, refresh: false });
    expect(articles.map((x) => x.id)).toEqual(['a2', 'b1', 'a1']);
    expect(articles.find((x) => x.id === 'a1')?.title).toBe('From A');
    expect(await news.general({ limit: 2, refresh: false })).toHaveLength(2);
  });

  it('caches each source for the TTL, bypasses it on refresh, and clears it on request', async () => {
    let version = 1;
    const a = scripted('a', async () => [article(`v${version}`, 1)]);
    const { news, clock } = service([a], { ttlSeconds: 300 });
    expect((await news.general({ limit: 30, refresh: false }))[0]?.id).toBe('v1');
    version = 2;
    clock.advance(299_000);
    expect((await news.general({ limit: 30, refresh: false }))[0]?.id).toBe('v1');
    expect(a.calls).toHaveLength(1);
    expect((await news.general({ limit: 30, refresh: true }))[0]?.id).toBe('v2');
    expect(a.calls).toHaveLength(2);
    version = 3;
    clock.advance(301_000);
    expect((await news.general({ limit: 30, refresh: false }))[0]?.id).toBe('v3');
    version = 4;
    expect(news.clearCache('trading')).toBe(0);
    expect((await news.general({ limit: 30, refresh: false }))[0]?.id).toBe('v3');
    expect(news.clearCache('general')).toBe(1);
    expect((await news.general({ limit: 30, refresh: false }))[0]?.id).toBe('v4');
    expect(a.calls).toHaveLength(4);
  });

  it('shares one fetch among concurrent calls', async () => {
    let release: (value: Article[]) => void = () => {};
    const a = scripted('a', () => new Promise<Article[]>((resolve) => (release = resolve)));
    const { news } = service([a]);
    const calls = [news.general({ limit: 30, refresh: false }), news.general({ limit: 30, refresh: false })];
    release([article('x', 1)]);
    const [one, two] = await Promise.all(calls);
    expect(one).toEqual(two);
    expect(a.calls).toHaveLength(1);
  });

  it('never fails a call for a failing or slow source; logs it, shows it in health, keeps its last articles', async () => {
    let failing = false;
    const flaky = scripted('flaky', async () => {
      if (failing) throw new SourceError('HTTP 500 Internal Server Error');
      return [article('f1', 20)];
    });
    // Ignores its abort signal entirely: the service's own timeout must still cut it off.
    const stuck = scripted('stuck', () => new Promise<Article[]>(() => {}));
    const good = scripted('good', async () => [article('g1', 2)]);
    const { news, warnings, clock } = service([flaky, stuck, good], { timeoutMs: 150 });

    const started = Date.now();
    const first = await news.general({ limit: 30, refresh: false });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(first.map((a) => a.id)).toEqual(['g1', 'f1']);
    expect(news.health()).toEqual({
      flaky: { ok: true, last_error: null, last_success_at: '2026-01-05T12:00:00.000Z' },
      stuck: { ok: false, last_error: 'timed out after 150 ms', last_success_at: null },
      good: { ok: true, last_error: null, last_success_at: '2026-01-05T12:00:00.000Z' },
    });
    expect(warnings).toContainEqual({ source: 'stuck', error: 'timed out after 150 ms' });

    failing = true;
    clock.advance(60_000);
    const second = await news.general({ limit: 30, refresh: true });
    // The failed source's last good answer is still served.
    expect(second.map((a) => a.id)).toEqual(['g1', 'f1']);
    expect(news.health().flaky).toEqual({
      ok: false,
      last_error: 'HTTP 500 Internal Server Error',
      last_success_at: '2026-01-05T12:00:00.000Z',
    });

    // A failed source is asked again after 30 s, not on every call.
    const before = flaky.calls.length;
    await news.general({ limit: 30, refresh: false });
    expect(flaky.calls.length).toBe(before);
    clock.advance(31_000);
    failing = false;
    await news.general({ limit: 30, refresh: false });
    expect(flaky.calls.length).toBe(before + 1);
    expect(news.health().flaky?.ok).toBe(true);
  });

  it('answers each pair from per-pair sources and from the others filtered by ticker, plus everything combined', async () => {
    const perPair = scripted(
      'api',
      async () => [],
      async (symbol) => [article(`api-${symbol}`, 3, { tickers: [`C:${symbol}`] })],
    );
    const general = scripted('wire', async () => [
      article('wire-eur', 10, { tickers: ['C:EURUSD'], related_pair: 'EURUSD', category: 'pair' }),
      article('wire-jpy', 1, { tickers: ['C:USDJPY'], related_pair: 'USDJPY', category: 'pair' }),
      article('both', 7, { tickers: ['C:EURUSD', 'C:GBPUSD'] }),
      article('none', 0),
    ]);
    const { news } = service([perPair, general]);
    const answer = await news.trading({ pairs: ['EURUSD', 'GBPUSD'], limit: 30, refresh: false });
    expect(Object.keys(answer.by_pair)).toEqual(['EURUSD', 'GBPUSD']);
    expect(answer.by_pair.EURUSD?.map((a) => a.id)).toEqual(['api-EURUSD', 'both', 'wire-eur']);
    expect(answer.by_pair.GBPUSD?.map((a) => a.id)).toEqual(['api-GBPUSD', 'both']);
    expect(answer.combined.map((a) => a.id)).toEqual(['api-EURUSD', 'api-GBPUSD', 'both', 'wire-eur']);
    expect(perPair.calls).toEqual(['EURUSD', 'GBPUSD']);
    // The general source was fetched once for both pairs.
    expect(general.calls).toEqual(['latest']);

    const limited = await news.trading({ pairs: ['EURUSD', 'GBPUSD'], limit: 1, refresh: false });
    expect(limited.combined).toHaveLength(1);
    expect(limited.by_pair.EURUSD).toHaveLength(1);

    // Per-pair entries are the trading cache.
    expect(news.clearCache('trading')).toBe(2);
    expect(news.clearCache('all')).toBe(1);
  });

  it('uses the first three active pairs when none are asked, and names unknown pairs in a 400', async () => {
    const { news } = service([scripted('a', async () => [])]);
    expect(Object.keys((await news.trading({ limit: 5, refresh: false })).by_pair)).toEqual(['EURUSD', 'GBPUSD', 'USDJPY']);
    const failure = await news
      .trading({ pairs: ['EURUSD', 'FOOBAR', 'XXXYYY'], limit: 5, refresh: false })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ status: 400, message: 'pairs: unknown currency pairs FOOBAR, XXXYYY' });
  });

  it('keeps ids unique across merged lists', () => {
    const merged = mergeArticles([[article('same', 1)], [article('same', 2, { article_url: 'https://other.example/x' })]], 30);
    expect(merged).toHaveLength(1);
  });
});

describe('news service over real HTTP sources', () => {
  let server: FeedServer;
  beforeAll(async () => {
    server = await startFeedServer({
      '/rss.xml': { body: fixture('rss-media.xml') },
      '/atom.xml': { body: fixture('atom.xml') },
      '/broken.xml': { body: fixture('broken.xml') },
      '/slow.xml': { body: fixture('atom.xml'), delayMs: 10_000 },
      '/v2/reference/news': { body: fixture('polygon-news.json'), contentType: 'application/json' },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers from the good feeds and the API while a broken and a slow feed fail on their own', async () => {
    const clock = new ManualClock(NOW);
    // The good feeds answer at once and the slow one after 10 s: a timeout well between the two, so a
    // busy machine's slow answer from a good feed is not taken for the slow feed's.
    const deps = { catalogue, clock, limits: DEFAULT_SOURCE_LIMITS, timeoutMs: 1_500 };
    const sources: NewsSource[] = [
      new PolygonSource({ baseUrl: server.url, apiKey: 'k', catalogue, limits: DEFAULT_SOURCE_LIMITS, timeoutMs: 1_500 }),
      ...['/rss.xml', '/atom.xml', '/broken.xml', '/slow.xml'].map((p) => new FeedSource(`${server.url}${p}`, deps)),
    ];
    const { news, warnings } = service(sources, { clock, timeoutMs: 1_500 });
    const started = Date.now();
    const articles = await news.general({ limit: 100, refresh: false });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(articles).toHaveLength(3 + 6 + 3);
    const times = articles.map((a) => Date.parse(a.published_utc));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const health = news.health();
    expect(health.polygon?.ok).toBe(true);
    expect(health[`feed:${server.url.slice(7)}/broken.xml`]).toMatchObject({
      ok: false,
      last_error: expect.stringMatching(/^invalid XML/),
    });
    expect(health[`feed:${server.url.slice(7)}/slow.xml`]).toMatchObject({ ok: false, last_error: 'timed out after 1500 ms' });
    expect(warnings).toHaveLength(2);

    const trading = await news.trading({ pairs: ['EURUSD', 'GBPUSD'], limit: 5, refresh: false });
    expect(trading.by_pair.EURUSD?.map((a) => a.title)).toContain('EUR/USD rallies as ECB keeps rates on hold');
    expect(trading.by_pair.GBPUSD?.map((a) => a.title)).toEqual(
      expect.arrayContaining(['Cable slips after weak UK retail sales', 'Sterling tumbles as UK inflation surprises']),
    );
  });
});
