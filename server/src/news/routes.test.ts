import { articleSchema, errorEnvelopeSchema, newsResponseSchema, tradingNewsResponseSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { signedInTrader } from '../test/traders.js';
import { type FeedServer, fixture, startFeedServer } from './fixtures/feed-server.js';

describe('news calls', () => {
  let feeds: FeedServer;
  let t: TestApp;
  let headers: { authorization: string };

  const get = (url: string, withAuth = true) => t.app.inject({ method: 'GET', url, ...(withAuth ? { headers } : {}) });
  const clear = (payload?: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/news/clear-cache/',
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const countRequests = (path: string) => feeds.requests.filter((r) => r.startsWith(path)).length;

  beforeAll(async () => {
    feeds = await startFeedServer({
      '/rss.xml': { body: fixture('rss-media.xml') },
      '/atom.xml': { body: fixture('atom.xml'), contentType: 'application/atom+xml' },
      '/broken.xml': { body: fixture('broken.xml') },
      '/v2/reference/news': { body: fixture('polygon-news.json'), contentType: 'application/json' },
    });
    t = await startTestApp({
      env: {
        NEWS_FEEDS: `${feeds.url}/rss.xml,${feeds.url}/atom.xml,${feeds.url}/broken.xml`,
        NEWS_API_KEY: 'route-test-key',
        NEWS_API_URL: feeds.url,
        NEWS_SOURCE_TIMEOUT_MS: '2000',
      },
    });
    headers = (await signedInTrader(t)).headers;
  });
  afterAll(async () => {
    await t?.close();
    await feeds?.close();
  });

  it('answers 401 before sign-in', async () => {
    for (const url of ['/api/news/', '/api/news/trading/?pairs=EURUSD']) {
      const res = await get(url, false);
      expect(res.statusCode).toBe(401);
      expect(errorEnvelopeSchema.parse(res.json()).success).toBe(false);
    }
    const res = await t.app.inject({ method: 'POST', url: '/api/news/clear-cache/', payload: { type: 'all' } });
    expect(res.statusCode).toBe(401);
  });

  it('GET /api/news/ answers {articles, count} at the top level: 30 by default, newest first, http(s) links only', async () => {
    const res = await get('/api/news/');
    expect(res.statusCode).toBe(200);
    const body = newsResponseSchema.strict().parse(res.json());
    expect(body.count).toBe(body.articles.length);
    expect(body.articles.length).toBeGreaterThan(0);
    expect(body.articles.length).toBeLessThanOrEqual(30);
    for (const article of body.articles) {
      articleSchema.parse(article);
      expect(article.article_url).toMatch(/^https?:\/\//);
      if (article.image_url) expect(article.image_url).toMatch(/^https?:\/\//);
    }
    const times = body.articles.map((a) => Date.parse(a.published_utc));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const urls = body.articles.map((a) => a.article_url);
    expect(new Set(urls).size).toBe(urls.length);

    const all = newsResponseSchema.parse((await get('/api/news/?limit=100')).json()).articles;
    const titles = all.map((a) => a.title);
    // The feeds, the API (its ftp:// story dropped) and the market wire all answered.
    expect(titles).toEqual(
      expect.arrayContaining(['EUR/USD rallies as ECB keeps rates on hold', 'AUD/USD jumps after RBA surprise']),
    );
    expect(titles).toContain('Dollar slips against euro as Fed minutes loom');
    expect(titles).not.toContain('Not a web link');
    expect(titles).not.toContain('Click me');
    const wire = all.filter((a) => a.publisher.name === 'Pipdesk Market Wire');
    for (const article of wire) {
      // The wire links to this deployment's pair page.
      expect(article.article_url).toMatch(new RegExp(`^http://localhost(:80)?/pair/${article.related_pair}#wire-`));
    }
  });

  it('bounds limit and rejects bad query values with a 400 naming the field', async () => {
    const five = newsResponseSchema.parse((await get('/api/news/?limit=5')).json());
    expect(five.articles).toHaveLength(5);
    expect(five.count).toBe(5);
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=5.5', 'limit=-1', 'limit=', 'refresh=maybe', 'page=2']) {
      const res = await get(`/api/news/?${query}`);
      expect(res.statusCode, query).toBe(400);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.error, query).toMatch(/^(limit|refresh): |^Unknown field: page$/);
    }
  });

  it('serves from the cache until refresh=true', async () => {
    await get('/api/news/');
    const before = countRequests('/rss.xml');
    await get('/api/news/?limit=10');
    expect(countRequests('/rss.xml')).toBe(before);
    await get('/api/news/?refresh=true');
    expect(countRequests('/rss.xml')).toBe(before + 1);
  });

  it('GET /api/news/trading/ answers {combined, by_pair} for the asked pairs', async () => {
    const res = await get('/api/news/trading/?pairs=EURUSD,GBPUSD&limit=5');
    expect(res.statusCode).toBe(200);
    const body = tradingNewsResponseSchema.strict().parse(res.json());
    expect(Object.keys(body.by_pair)).toEqual(['EURUSD', 'GBPUSD']);
    expect(body.combined.length).toBeLessThanOrEqual(5);
    for (const [symbol, list] of Object.entries(body.by_pair)) {
      expect(list.length).toBeLessThanOrEqual(5);
      for (const article of list) expect(article.tickers).toContain(`C:${symbol}`);
    }
    const everything = tradingNewsResponseSchema.parse((await get('/api/news/trading/?pairs=GBPUSD&limit=100')).json());
    expect(everything.by_pair.GBPUSD?.map((a) => a.title)).toEqual(
      expect.arrayContaining(['Sterling tumbles as UK inflation surprises', 'Cable slips after weak UK retail sales']),
    );
    // The API was asked per pair, by its forex ticker.
    expect(feeds.requests.some((r) => r.includes('ticker=C%3AEURUSD'))).toBe(true);
    expect(feeds.requests.every((r) => !r.startsWith('/v2/') || r.includes('apiKey=route-test-key'))).toBe(true);
  });

  it('uses the first three pairs without `pairs`, and answers 400 naming an unknown pair', async () => {
    const defaults = tradingNewsResponseSchema.parse((await get('/api/news/trading/?limit=5')).json());
    expect(Object.keys(defaults.by_pair)).toHaveLength(3);
    const res = await get('/api/news/trading/?pairs=EURUSD,ABCDEF');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: 'pairs: unknown currency pair ABCDEF' });
    expect((await get('/api/news/trading/?pairs=EURUSD&limit=500')).statusCode).toBe(400);
    expect((await get(`/api/news/trading/?pairs=${'EURUSD,'.repeat(30)}GBPUSD`)).statusCode).toBe(200);
  });

  it('POST /api/news/clear-cache/ clears one type or all, so the next call fetches again', async () => {
    await get('/api/news/');
    await get('/api/news/trading/?pairs=EURUSD');
    const trading = await clear({ type: 'trading' });
    expect(trading.statusCode).toBe(200);
    expect(trading.json()).toEqual({ success: true, data: { cleared: expect.any(Number) } });
    expect(trading.json().data.cleared).toBeGreaterThan(0);

    const before = countRequests('/rss.xml');
    const general = await clear({ type: 'general' });
    expect(general.json().data.cleared).toBeGreaterThan(0);
    await get('/api/news/');
    expect(countRequests('/rss.xml')).toBe(before + 1);

    const all = await clear();
    expect(all.statusCode).toBe(200);
    expect(all.json().data.cleared).toBeGreaterThan(0);
    expect((await clear({})).json()).toEqual({ success: true, data: { cleared: 0 } });

    for (const payload of [{ type: 'bogus' }, { type: 'all', extra: 1 }]) {
      const res = await clear(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
  });

  it('shows every source in /api/health/, a broken feed as failing with its reason', async () => {
    await get('/api/news/?refresh=true');
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    const news = res.json().data.news as Record<string, { ok: boolean; last_error: string | null }>;
    const host = feeds.url.replace('http://', '');
    expect(Object.keys(news)).toEqual([
      'polygon',
      `feed:${host}/rss.xml`,
      `feed:${host}/atom.xml`,
      `feed:${host}/broken.xml`,
      'market_wire',
    ]);
    expect(news.polygon).toMatchObject({ ok: true, last_error: null });
    expect(news.market_wire).toMatchObject({ ok: true });
    expect(news[`feed:${host}/broken.xml`]).toMatchObject({ ok: false, last_error: expect.stringMatching(/^invalid XML/) });
    expect(JSON.stringify(news)).not.toContain('route-test-key');
  });
});

describe('news with only the built-in market wire', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers articles written from the price history, offline', async () => {
    const { headers } = await signedInTrader(t);
    const res = await t.app.inject({ method: 'GET', url: '/api/news/?limit=100', headers });
    expect(res.statusCode).toBe(200);
    const body = newsResponseSchema.parse(res.json());
    for (const article of body.articles) {
      expect(article.publisher.name).toBe('Pipdesk Market Wire');
      expect(article.tickers).toEqual([`C:${article.related_pair}`]);
      expect(t.market.pairs.get(article.related_pair ?? '')).toBeDefined();
    }
    const health = (await t.app.inject({ method: 'GET', url: '/api/health/' })).json().data.news;
    expect(health).toEqual({ market_wire: { ok: true, last_error: null, last_success_at: expect.any(String) } });
  });
});
