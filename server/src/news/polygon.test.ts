import { articleSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PAIRS } from './fixtures/fake-market.js';
import { type FeedServer, fixture, startFeedServer } from './fixtures/feed-server.js';
import { PolygonSource } from './polygon.js';
import { DEFAULT_SOURCE_LIMITS, SourceError } from './source.js';

describe('Polygon-compatible news API', () => {
  let server: FeedServer;
  beforeAll(async () => {
    server = await startFeedServer({
      '/v2/reference/news': { body: fixture('polygon-news.json'), contentType: 'application/json' },
      '/prefixed/v2/reference/news': { body: fixture('polygon-news.json'), contentType: 'application/json' },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const source = (baseUrl = server.url, apiKey = 'test-key') =>
    new PolygonSource({ baseUrl, apiKey, catalogue: { list: () => TEST_PAIRS }, limits: DEFAULT_SOURCE_LIMITS, timeoutMs: 2000 });
  const signal = () => AbortSignal.timeout(2000);

  it('asks GET /v2/reference/news with the key, newest first, for one ticker when asked per pair', async () => {
    server.requests.length = 0;
    await source().latest(signal());
    await source().forPair('EURUSD', signal());
    await source(`${server.url}/prefixed/`).latest(signal());
    const [general, perPair, prefixed] = server.requests.map((r) => new URL(r, 'http://x'));
    expect(general?.pathname).toBe('/v2/reference/news');
    expect(Object.fromEntries(general?.searchParams ?? [])).toEqual({
      apiKey: 'test-key',
      limit: '100',
      order: 'desc',
      sort: 'published_utc',
    });
    expect(perPair?.searchParams.get('ticker')).toBe('C:EURUSD');
    expect(prefixed?.pathname).toBe('/prefixed/v2/reference/news');
  });

  it('maps the documented shape directly, cleaning text and dropping non-http links', async () => {
    const articles = await source().latest(signal());
    for (const article of articles) expect(articleSchema.parse(article)).toEqual(article);
    expect(articles.map((a) => a.id)).toEqual([
      '8ec638777ca03b553ae516761c2a22ba2fdd2f37befae3ab6fdab74e9e5193eb',
      'b2f5c1d0a9e8',
      'd00d',
    ]);
    expect(articles[0]).toEqual({
      id: '8ec638777ca03b553ae516761c2a22ba2fdd2f37befae3ab6fdab74e9e5193eb',
      title: 'Dollar slips against euro as Fed minutes loom',
      description: 'The dollar eased on Monday.',
      article_url: 'https://www.investing.com/news/forex-news/dollar-slips-euro-1001',
      image_url: 'https://i-invdn-com.investing.com/news/LYNXMPEM4E0XN_L.jpg',
      published_utc: '2026-01-05T11:33:53.000Z',
      publisher: {
        name: 'Investing.com',
        homepage_url: 'https://www.investing.com/',
        logo_url: 'https://s3.polygon.io/public/assets/news/logos/investing.png',
      },
      author: 'Sam Boughedda',
      // Several insights disagree and none is for an asked pair: the first pair's insight.
      sentiment: 'positive',
      tickers: ['C:EURUSD', 'C:USDJPY'],
      category: 'pair',
      related_pair: 'EURUSD',
    });
    // A stock story stays general; a javascript: logo is dropped.
    expect(articles[1]).toMatchObject({
      tickers: ['AAPL'],
      category: 'general',
      related_pair: null,
      image_url: null,
      publisher: { name: 'Benzinga', homepage_url: 'https://www.benzinga.com/' },
      sentiment: 'positive',
    });
    expect(articles[1]?.publisher.logo_url).toBeUndefined();
    // No insights: the lexicon reads "tumbles".
    expect(articles[2]).toMatchObject({ related_pair: 'GBPUSD', sentiment: 'negative', author: '' });
  });

  it("uses the asked pair's own insight when asked per pair", async () => {
    const articles = await source().forPair('USDJPY', signal());
    expect(articles[0]?.sentiment).toBe('negative');
  });

  it('fails with a SourceError naming the HTTP status, never the key', async () => {
    server.route('/bad/v2/reference/news', {
      status: 401,
      contentType: 'application/json',
      body: JSON.stringify({ status: 'ERROR', request_id: 'x', error: 'Unknown API Key' }),
    });
    server.route('/garbage/v2/reference/news', { contentType: 'application/json', body: '<html>' });
    server.route('/shape/v2/reference/news', {
      contentType: 'application/json',
      body: JSON.stringify({ status: 'ERROR', error: 'Plan limit' }),
    });
    const bad = await source(`${server.url}/bad`, 'super-secret')
      .latest(signal())
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(SourceError);
    expect((bad as Error).message).toBe('HTTP 401 Unauthorized');
    expect((bad as Error).message).not.toContain('super-secret');
    const garbage = await source(`${server.url}/garbage`)
      .latest(signal())
      .catch((e: unknown) => e);
    expect((garbage as Error).message).toBe('answer is not JSON');
    const shape = await source(`${server.url}/shape`)
      .latest(signal())
      .catch((e: unknown) => e);
    expect((shape as Error).message).toBe('unexpected answer (Plan limit)');
  });
});
