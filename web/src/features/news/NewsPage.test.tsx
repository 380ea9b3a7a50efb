import type { Article } from '@pipdesk/contract';
import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderApp } from '../../test/render';
import { makeArticle, queriesTo } from './testArticles';

const NEWS = '/api/news/';
let server: FakeAuthServer;

function serveArticles(articles: Article[]) {
  server.on(NEWS, (_call, signedIn) =>
    signedIn ? { status: 200, body: { articles, count: articles.length } } : { status: 401, body: { success: false } },
  );
}

async function openNews() {
  renderApp('/news');
  await screen.findByRole('heading', { level: 1, name: 'Latest News' });
}

/** The card of the article with this title. */
async function card(title: string) {
  const link = await screen.findByRole('link', { name: new RegExp(title.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')) });
  const article = link.closest('article');
  if (!article) throw new Error(`no card for ${title}`);
  return article;
}

describe('News page (docs/screens.md#news)', () => {
  beforeEach(() => {
    server = new FakeAuthServer().install();
    server.signedInBefore();
  });

  it('asks for 30 articles and shows each with title, description, publisher, author, sentiment and time', async () => {
    const thirtyMinutesAgo = new Date(Date.now() - 30 * 60_000).toISOString();
    serveArticles([
      makeArticle({
        title: 'GBP/USD slides 0.52% to 1.26410',
        description: 'Sterling fell against the dollar. Sellers held the pair below the day open.',
        publisher: { name: 'FX Street' },
        author: 'Jane Doe',
        sentiment: 'negative',
        published_utc: thirtyMinutesAgo,
      }),
      makeArticle({
        title: 'Dollar steady ahead of payrolls',
        sentiment: 'neutral',
        published_utc: new Date(Date.now() - 200 * 60_000).toISOString(),
      }),
    ]);
    await openNews();

    // The heading renders before the feed's query is sent; the first card proves it was answered.
    const first = within(await card('GBP/USD slides 0.52% to 1.26410'));
    expect(queriesTo(server, NEWS)[0]?.get('limit')).toBe('30');
    expect(document.title).toBe('Latest News · Pipdesk');
    expect(first.getByText('Sterling fell against the dollar. Sellers held the pair below the day open.')).toBeVisible();
    expect(first.getByText('FX Street')).toBeVisible();
    expect(first.getByText('by Jane Doe')).toBeVisible();
    expect(first.getByText('Negative')).toBeVisible();
    expect(first.getByText('30 minutes ago')).toHaveAttribute('datetime', thirtyMinutesAgo);
    const second = within(await card('Dollar steady ahead of payrolls'));
    expect(second.getByText('Neutral')).toBeVisible();
    expect(second.getByText('3 hours ago')).toBeVisible();
  });

  it('opens articles in a new tab with rel="noopener noreferrer"', async () => {
    serveArticles([makeArticle({ title: 'Yen weakens', article_url: 'https://news.example.com/yen' })]);
    await openNews();
    const link = await screen.findByRole('link', { name: /Yen weakens/ });
    expect(link).toHaveAttribute('href', 'https://news.example.com/yen');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it('renders a description as text, never as HTML, and leaves out a link that is not http(s)', async () => {
    serveArticles([
      makeArticle({
        title: 'Odd feed item',
        description: '<b>Bold</b> claim <img src=x onerror="window.pwned=1">',
        article_url: 'javascript:alert(1)',
      }),
    ]);
    await openNews();
    const article = await screen.findByRole('article');
    expect(within(article).getByText('<b>Bold</b> claim <img src=x onerror="window.pwned=1">')).toBeVisible();
    expect(article.querySelector('b')).toBeNull();
    expect(article.querySelector('img')).toBeNull();
    expect(within(article).queryByRole('link')).toBeNull();
    expect(within(article).getByText('Odd feed item')).toBeVisible();
  });

  it('shows at most 5 tickers then +N more, and no "more" with exactly 5', async () => {
    serveArticles([
      makeArticle({
        title: 'Seven tickers',
        tickers: ['C:EURUSD', 'C:GBPUSD', 'C:USDJPY', 'C:USDCHF', 'C:AUDUSD', 'C:NZDUSD', 'C:USDCAD'],
      }),
      makeArticle({ title: 'Five tickers', tickers: ['C:EURUSD', 'C:GBPUSD', 'C:USDJPY', 'C:USDCHF', 'C:AUDUSD'] }),
    ]);
    await openNews();
    const seven = within(within(await card('Seven tickers')).getByRole('list', { name: 'Tickers' }));
    expect(seven.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'EUR/USD',
      'GBP/USD',
      'USD/JPY',
      'USD/CHF',
      'AUD/USD',
      '+2 more',
    ]);
    const five = within(within(await card('Five tickers')).getByRole('list', { name: 'Tickers' }));
    expect(five.getAllByRole('listitem')).toHaveLength(5);
    expect(five.queryByText(/more/)).toBeNull();
  });

  it('shows a tile naming the pair when there is no image, and when the image fails to load', async () => {
    serveArticles([
      makeArticle({ title: 'No picture', image_url: null, related_pair: 'USDJPY' }),
      makeArticle({ title: 'Broken picture', image_url: 'https://img.example.com/missing.jpg', related_pair: 'GBPUSD' }),
      makeArticle({ title: 'Good picture', image_url: 'https://img.example.com/ok.jpg' }),
    ]);
    await openNews();

    const none = await card('No picture');
    expect(none.querySelector('img')).toBeNull();
    expect(none.querySelector('.news-image--fallback')).toHaveTextContent('USD/JPY');

    const broken = await card('Broken picture');
    const img = broken.querySelector('img');
    expect(img).toHaveAttribute('src', 'https://img.example.com/missing.jpg');
    expect(img).toHaveAttribute('alt', '');
    if (img) fireEvent.error(img);
    expect(broken.querySelector('img')).toBeNull();
    expect(broken.querySelector('.news-image--fallback')).toHaveTextContent('GBP/USD');

    const good = await card('Good picture');
    expect(good.querySelector('img')).toHaveAttribute('src', 'https://img.example.com/ok.jpg');
    expect(good.querySelector('.news-image--fallback')).toBeNull();
  });

  it('Refresh fetches again with refresh=true and shows the new answer', async () => {
    const user = userEvent.setup();
    serveArticles([makeArticle({ title: 'Before the refresh' })]);
    await openNews();
    await card('Before the refresh');
    expect(queriesTo(server, NEWS).map((q) => q.get('refresh'))).toEqual([null]);

    serveArticles([makeArticle({ title: 'After the refresh' })]);
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await card('After the refresh');
    expect(screen.queryByText('Before the refresh')).toBeNull();
    const refreshed = queriesTo(server, NEWS).at(-1);
    expect(refreshed?.get('refresh')).toBe('true');
    expect(refreshed?.get('limit')).toBe('30');
  });

  it('says "Failed to load news articles. Please try again." when the news cannot be loaded, and Try Again loads it', async () => {
    const user = userEvent.setup();
    server.script(NEWS, { status: 400, body: { success: false, error: 'limit: must be a whole number', code: 'VALIDATION' } });
    serveArticles([makeArticle({ title: 'Back again' })]);
    await openNews();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Failed to load news articles. Please try again.');
    expect(screen.queryByRole('article')).toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }));
    await card('Back again');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('keeps the articles and says so when a refresh fails', async () => {
    const user = userEvent.setup();
    serveArticles([makeArticle({ title: 'Still here' })]);
    await openNews();
    await card('Still here');
    server.script(NEWS, { status: 500, body: { success: false, error: 'Internal error', code: 'INTERNAL' } });
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load news articles. Please try again.');
    expect(screen.getByRole('link', { name: /Still here/ })).toBeVisible();
  });

  it('shows a loading state, then an empty state when there is no news', async () => {
    let answer: (reply: { status: number; body: unknown }) => void = () => {};
    server.script(NEWS, () => new Promise((resolve) => (answer = resolve)));
    await openNews();
    expect(await screen.findByText('Loading news...')).toBeVisible();
    answer({ status: 200, body: { articles: [], count: 0 } });
    expect(await screen.findByText('No news articles right now. Try Refresh in a moment.')).toBeVisible();
  });

  it('skips no heading level: Latest News is the h1 and each article title an h2', async () => {
    serveArticles([makeArticle({ title: 'Euro firms' }), makeArticle({ title: 'Yen slips' })]);
    await openNews();
    await card('Euro firms');
    const levels = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => Number(h.tagName[1]));
    for (const [i, level] of levels.entries()) expect(level - (levels[i - 1] ?? 0)).toBeLessThanOrEqual(1);
    expect(screen.getByRole('heading', { level: 2, name: /Euro firms/ })).toBeVisible();
    expect(screen.getByRole('heading', { level: 2, name: /Yen slips/ })).toBeVisible();
  });

  it('dates an older article in the one date style of the app, the time to the second on hover', async () => {
    const published = new Date(2025, 10, 3, 18, 28, 59);
    serveArticles([makeArticle({ title: 'Old story', published_utc: published.toISOString() })]);
    await openNews();
    const time = (await card('Old story')).querySelector('time');
    expect(time).toHaveTextContent(/^03 Nov 2025$/);
    expect(time).toHaveAttribute('title', '03 Nov 2025, 18:28:59');
  });
});
