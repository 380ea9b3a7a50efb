import type { Article } from '@pipdesk/contract';
import type { FakeAuthServer } from '../../test/fakeAuthServer';

let serial = 0;

/** An article as the server sends it; tests override what they look at. */
export function makeArticle(overrides: Partial<Article> = {}): Article {
  serial++;
  return {
    id: `article-${serial}`,
    title: `EUR/USD climbs 0.${serial}% to 1.0873${serial % 10}`,
    description: 'The euro firmed against the dollar. Traders eye the next data release.',
    article_url: `https://news.example.com/articles/${serial}`,
    image_url: null,
    published_utc: new Date(Date.now() - 5 * 60_000).toISOString(),
    publisher: { name: 'Pipdesk Market Wire' },
    author: 'Pipdesk Markets Desk',
    sentiment: 'positive',
    tickers: ['C:EURUSD'],
    category: 'pair',
    related_pair: 'EURUSD',
    ...overrides,
  };
}

/** The query strings of the calls the app made to `path`. */
export function queriesTo(server: FakeAuthServer, path: string): URLSearchParams[] {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname === path)
    .map((url) => url.searchParams);
}
