import type { Article } from '@pipdesk/contract';
import { articleSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { FeedSource, feedSourceId } from './feeds.js';
import { TEST_PAIRS } from './fixtures/fake-market.js';
import { type FeedServer, fixture, startFeedServer } from './fixtures/feed-server.js';
import { DEFAULT_SOURCE_LIMITS, SourceError, type SourceLimits } from './source.js';

const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);
const catalogue = { list: () => TEST_PAIRS };

function feedSource(url: string, options: { clock?: ManualClock; limits?: SourceLimits; timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? 2000;
  return {
    source: new FeedSource(url, {
      catalogue,
      clock: options.clock ?? new ManualClock(NOW),
      limits: options.limits ?? DEFAULT_SOURCE_LIMITS,
      timeoutMs,
    }),
    signal: () => AbortSignal.timeout(timeoutMs),
  };
}

function byUrl(articles: Article[], fragment: string): Article {
  const found = articles.find((a) => a.article_url.includes(fragment));
  if (!found) throw new Error(`no article with ${fragment}: ${articles.map((a) => a.article_url).join(', ')}`);
  return found;
}

function rssWithItems(count: number, padding = ''): string {
  const items = Array.from(
    { length: count },
    (_, i) =>
      `<item><title>Story ${i}</title><link>https://big.example.com/${i}</link><pubDate>Mon, 05 Jan 2026 10:00:00 GMT</pubDate><description>${padding}</description></item>`,
  ).join('');
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title>${items}</channel></rss>`;
}

describe('RSS and Atom feeds', () => {
  let server: FeedServer;
  beforeAll(async () => {
    server = await startFeedServer({
      '/rss.xml': { body: fixture('rss-media.xml') },
      '/atom.xml': { body: fixture('atom.xml'), contentType: 'application/atom+xml' },
      '/broken.xml': { body: fixture('broken.xml') },
      '/html': { body: '<!doctype html><html><body><p>Not a feed</p></body></html>', contentType: 'text/html' },
      '/gone.xml': { status: 503, body: 'down' },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  describe('an RSS 2.0 feed with media, enclosures, CDATA and HTML', () => {
    let articles: Article[];
    beforeAll(async () => {
      const { source, signal } = feedSource(`${server.url}/rss.xml`);
      articles = await source.latest(signal());
    });

    it('answers valid articles, dropping items with a non-http link or no text', () => {
      for (const article of articles) expect(articleSchema.parse(article)).toEqual(article);
      expect(articles.map((a) => a.article_url)).toEqual([
        'https://fx.example.com/news/eurusd-rallies?utm_source=rss&utm_medium=feed',
        'https://fx.example.com/news/cable-slips',
        'https://fx.example.com/news/yen-weakens',
        'https://fx.example.com/news/quiet',
        'https://fx.example.com/news/gold-rises',
        // A relative link is resolved against the feed's address.
        `${server.url}/news/relative`,
      ]);
      expect(articles.some((a) => a.title === 'Click me')).toBe(false);
    });

    it('strips HTML from descriptions (CDATA or escaped) and decodes entities', () => {
      const eur = byUrl(articles, 'eurusd-rallies');
      expect(eur.description).toBe('The euro climbed against the dollar — traders cheered.');
      expect(byUrl(articles, 'cable-slips').description).toBe('Sterling fell sharply & quickly.');
      for (const article of articles) {
        expect(article.description).not.toMatch(/<[a-z/]/i);
        expect(article.title).not.toMatch(/<[a-z/]/i);
      }
    });

    it('picks media:content, then a thumbnail, then an image enclosure; never audio or data: URLs', () => {
      expect(byUrl(articles, 'eurusd-rallies').image_url).toBe('https://fx.example.com/img/eurusd.jpg');
      expect(byUrl(articles, 'cable-slips').image_url).toBe('https://fx.example.com/img/cable.png');
      expect(byUrl(articles, 'yen-weakens').image_url).toBeNull();
      expect(byUrl(articles, 'relative').image_url).toBeNull();
    });

    it('reads dates in their odd formats, falls back to the channel date, then to when first seen', () => {
      expect(byUrl(articles, 'eurusd-rallies').published_utc).toBe('2026-01-05T09:15:00.000Z');
      expect(byUrl(articles, 'cable-slips').published_utc).toBe('2026-01-05T10:30:00.000Z');
      expect(byUrl(articles, 'yen-weakens').published_utc).toBe('2026-01-05T06:00:00.000Z');
      expect(byUrl(articles, 'gold-rises').published_utc).toBe('2026-01-05T06:45:00.000Z');
      // No pubDate: the channel's lastBuildDate.
      expect(byUrl(articles, 'quiet').published_utc).toBe('2026-01-05T11:30:00.000Z');
      // An unreadable date counts as none.
      expect(byUrl(articles, 'relative').published_utc).toBe('2026-01-05T11:30:00.000Z');
    });

    it('reads authors from dc:creator and "email (Name)", and the publisher from the channel', () => {
      expect(byUrl(articles, 'eurusd-rallies').author).toBe('Jane Doe');
      expect(byUrl(articles, 'cable-slips').author).toBe('John Smith');
      expect(byUrl(articles, 'quiet').author).toBe('');
      expect(byUrl(articles, 'quiet').publisher).toEqual({
        name: 'FX Street & Co. Markets',
        homepage_url: 'https://fx.example.com/',
        logo_url: 'https://fx.example.com/logo.png',
      });
    });

    it('recognises pairs, and uses the feed sentiment or else the lexicon', () => {
      const eur = byUrl(articles, 'eurusd-rallies');
      expect(eur).toMatchObject({ tickers: ['C:EURUSD'], category: 'pair', related_pair: 'EURUSD', sentiment: 'positive' });
      expect(byUrl(articles, 'cable-slips')).toMatchObject({
        tickers: ['C:GBPUSD'],
        related_pair: 'GBPUSD',
        sentiment: 'negative',
      });
      // The feed says Bullish although the words say otherwise: the feed's own label wins.
      expect(byUrl(articles, 'yen-weakens')).toMatchObject({ tickers: ['C:USDJPY'], sentiment: 'positive' });
      expect(byUrl(articles, 'quiet')).toMatchObject({
        tickers: [],
        category: 'general',
        related_pair: null,
        sentiment: 'neutral',
      });
      // "Gold prices rose ... as the dollar eased": currencies, no catalogue pair.
      expect(byUrl(articles, 'gold-rises')).toMatchObject({ category: 'forex', related_pair: null });
    });

    it('gives a title-less item its first words, and stable ids', async () => {
      expect(byUrl(articles, 'gold-rises').title).toBe('Gold prices rose on Monday as the dollar eased.');
      const { source, signal } = feedSource(`${server.url}/rss.xml`);
      const again = await source.latest(signal());
      expect(again.map((a) => a.id)).toEqual(articles.map((a) => a.id));
      expect(new Set(articles.map((a) => a.id)).size).toBe(articles.length);
    });
  });

  it('parses Atom: html titles, xhtml content, link rels, enclosure images, entry and feed authors', async () => {
    const { source, signal } = feedSource(`${server.url}/atom.xml`);
    const articles = await source.latest(signal());
    expect(articles).toHaveLength(3);
    const aud = byUrl(articles, 'aud-jumps');
    expect(aud).toMatchObject({
      title: 'AUD/USD jumps after RBA surprise',
      description: 'The Australian dollar gained 0.8%.',
      image_url: 'https://atom.example.org/img/aud.jpg',
      published_utc: '2026-01-04T23:45:00.000Z',
      author: 'Ana Lima',
      related_pair: 'AUDUSD',
      sentiment: 'positive',
      publisher: {
        name: 'Aussie Desk',
        homepage_url: 'https://atom.example.org/',
        logo_url: 'https://atom.example.org/logo.svg',
      },
    });
    const kiwi = byUrl(articles, 'kiwi');
    expect(kiwi).toMatchObject({
      description: 'The New Zealand dollar held its ground.',
      image_url: 'https://atom.example.org/img/kiwi.jpg',
      published_utc: '2026-01-05T09:00:00.500Z',
      author: 'Feed Team',
      related_pair: 'NZDUSD',
    });
    expect(byUrl(articles, 'undated').published_utc).toBe('2026-01-05T11:00:00.000Z');
  });

  it('dates an undated item when first seen, and keeps that date on later reads', async () => {
    const xml =
      '<rss version="2.0"><channel><title>T</title><item><title>No date</title><link>https://nd.example/1</link></item></channel></rss>';
    server.route('/undated.xml', { body: xml });
    const clock = new ManualClock(NOW);
    const { source, signal } = feedSource(`${server.url}/undated.xml`, { clock });
    const first = await source.latest(signal());
    clock.advance(3_600_000);
    const second = await source.latest(signal());
    expect(first[0]?.published_utc).toBe(new Date(NOW).toISOString());
    expect(second[0]?.published_utc).toBe(new Date(NOW).toISOString());
  });

  it('reads a date far in the future as no date (it would pin the item on top)', async () => {
    const xml =
      '<rss version="2.0"><channel><title>T</title><item><title>Typo year</title><link>https://fut.example/1</link><pubDate>Tue, 05 Jan 2027 12:00:00 GMT</pubDate></item></channel></rss>';
    server.route('/future.xml', { body: xml });
    const { source, signal } = feedSource(`${server.url}/future.xml`);
    const [article] = await source.latest(signal());
    expect(article?.published_utc).toBe(new Date(NOW).toISOString());
  });

  it('reads a feed in another charset by its declaration', async () => {
    const xml =
      '<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>Caf\u00e9</title><item><title>Euro \u00e0 la hausse</title><link>https://fr.example/1</link></item></channel></rss>';
    server.route('/latin1.xml', {
      body: '',
      stream: (res) => res.writeHead(200, { 'content-type': 'text/xml' }).end(Buffer.from(xml, 'latin1')),
    });
    const { source, signal } = feedSource(`${server.url}/latin1.xml`);
    const [article] = await source.latest(signal());
    expect(article?.title).toBe('Euro à la hausse');
    expect(article?.publisher.name).toBe('Café');
  });

  it.each([
    ['/broken.xml', /invalid XML/],
    ['/html', /invalid XML|not an RSS or Atom feed/],
    ['/gone.xml', /HTTP 503/],
    ['/missing.xml', /HTTP 404/],
  ])('fails %s with a SourceError that names the problem', async (path, message) => {
    const { source, signal } = feedSource(`${server.url}${path}`);
    const failure = await source.latest(signal()).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as Error).message).toMatch(message);
  });

  it('gives up on a slow feed at the timeout', async () => {
    server.route('/slow.xml', { body: fixture('atom.xml'), delayMs: 5000 });
    const { source, signal } = feedSource(`${server.url}/slow.xml`, { timeoutMs: 200 });
    const started = Date.now();
    const failure = await source.latest(signal()).catch((err: unknown) => err);
    expect((failure as Error).message).toBe('timed out after 200 ms');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives up on a feed that trickles its body past the timeout', async () => {
    server.route('/trickle.xml', {
      stream: (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.write('<?xml version="1.0"?><rss version="2.0"><channel>');
        const timer = setInterval(() => {
          if (res.destroyed) clearInterval(timer);
          else res.write('<!-- still here -->');
        }, 50);
        res.on('close', () => clearInterval(timer));
      },
    });
    const { source, signal } = feedSource(`${server.url}/trickle.xml`, { timeoutMs: 300 });
    const failure = await source.latest(signal()).catch((err: unknown) => err);
    expect((failure as Error).message).toBe('timed out after 300 ms');
  });

  it('stops reading a huge feed at the byte cap, declared or streamed', async () => {
    const huge = rssWithItems(2000, 'x'.repeat(3000)); // about 6.3 MB
    expect(huge.length).toBeGreaterThan(DEFAULT_SOURCE_LIMITS.maxBytes);
    server.route('/huge.xml', { body: huge });
    server.route('/huge-stream.xml', {
      stream: (res) => {
        // No content-length: the cap must hold while reading.
        res.writeHead(200, { 'content-type': 'application/rss+xml', 'transfer-encoding': 'chunked' });
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const push = () => {
          while (sent < 20 * 1024 * 1024 && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', push);
              return;
            }
          }
          res.end();
        };
        res.on('error', () => {});
        push();
      },
    });
    for (const path of ['/huge.xml', '/huge-stream.xml']) {
      const { source, signal } = feedSource(`${server.url}${path}`, { timeoutMs: 10_000 });
      const failure = await source.latest(signal()).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(SourceError);
      expect((failure as Error).message).toBe('answer larger than 5120 KB');
    }
  });

  it('keeps at most the item cap from a feed with many items', async () => {
    server.route('/many.xml', { body: rssWithItems(1500) });
    const { source, signal } = feedSource(`${server.url}/many.xml`);
    const articles = await source.latest(signal());
    expect(articles).toHaveLength(DEFAULT_SOURCE_LIMITS.maxItems);
    expect(articles[0]?.title).toBe('Story 0');
  });

  it('names a feed in health by host and path, never its query string', () => {
    expect(feedSourceId('https://news.example.com/fx.rss?token=secret')).toBe('feed:news.example.com/fx.rss');
  });
});
