import { expect, signInAsDemo, test } from './support/session.js';

/*
 * News journeys (docs/screens.md#news) against the real server, whose default source is the offline market
 * wire: it writes articles from the seeded 31 days of price history, so there is news at once.
 *
 * Panels are found by their accessible names, set by the news feature itself:
 *   dashboard  region "Trading News" (its items are list items; link "View All News")
 *   pair page  region "News"
 */

test('the News page shows articles, and Refresh fetches again bypassing the cache', async ({ page }) => {
  await signInAsDemo(page);
  const firstLoad = page.waitForResponse((r) => r.url().includes('/api/news/?') && r.request().method() === 'GET');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'News' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Latest News' })).toBeVisible();
  expect(new URL((await firstLoad).url()).searchParams.get('limit')).toBe('30');

  const grid = page.getByRole('list', { name: 'Articles' });
  const cards = grid.getByRole('article');
  await expect(cards.first()).toBeVisible();
  const count = await cards.count();
  expect(count).toBeGreaterThan(0);
  expect(count).toBeLessThanOrEqual(30);

  // A market-wire article: its title links out in a new tab, with the publisher, a sentiment and a time.
  const first = cards.first();
  const link = first.getByRole('link');
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  expect(await link.getAttribute('href')).toMatch(/^https?:\/\//);
  await expect(first.getByText('Pipdesk Market Wire')).toBeVisible();
  await expect(first.getByText(/(Positive|Negative|Neutral)$/)).toBeVisible();
  await expect(first.locator('time')).toHaveText(/ago$|^Yesterday$|^\d{2} [A-Z][a-z]{2} \d{4}$/);
  // No picture from the wire: the tile stands in, never a broken image.
  await expect(first.locator('.news-image--fallback')).toBeVisible();
  await expect(first.locator('img')).toHaveCount(0);

  const refreshed = page.waitForRequest(
    (r) => r.url().includes('/api/news/?') && new URL(r.url()).searchParams.get('refresh') === 'true',
  );
  await page.getByRole('button', { name: 'Refresh' }).click();
  const request = await refreshed;
  expect(new URL(request.url()).searchParams.get('limit')).toBe('30');
  expect((await request.response())?.status()).toBe(200);
  await expect(page.getByRole('button', { name: 'Refresh' })).toBeEnabled();
  await expect(cards.first()).toBeVisible();
  await expect(page.getByText('Failed to load news articles. Please try again.')).toHaveCount(0);
});

test('the dashboard Trading News panel shows 5 items and View All News opens /news', async ({ page }) => {
  await signInAsDemo(page);
  const panel = page.getByRole('region', { name: 'Trading News' });
  await expect(panel.getByRole('listitem')).toHaveCount(5);
  await expect(panel.getByRole('listitem').first().getByRole('link')).toHaveAttribute('rel', 'noopener noreferrer');

  const refreshed = page.waitForRequest(
    (r) => r.url().includes('/api/news/trading/') && new URL(r.url()).searchParams.get('refresh') === 'true',
  );
  await panel.getByRole('button', { name: 'Refresh news' }).click();
  const query = new URL((await refreshed).url()).searchParams;
  expect(query.get('limit')).toBe('5');
  expect(query.get('pairs')?.split(',').length).toBeLessThanOrEqual(3);
  await expect(panel.getByRole('listitem')).toHaveCount(5);

  await panel.getByRole('link', { name: 'View All News' }).click();
  await expect(page).toHaveURL(/\/news$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Latest News' })).toBeVisible();
});

test("a pair page shows that pair's news", async ({ page }) => {
  await signInAsDemo(page);
  // The market wire writes from the last 48 hours of the real data, which the market walks through
  // in a loop: a given pair can be quiet for a while. Take the first pair that has news now, so the
  // journey always shows a list, and hold the panel to the server's own answer.
  const authorization = `Bearer ${await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'))}`;
  const prices = await (await page.request.get('/api/trading/current-prices/', { headers: { authorization } })).json();
  let chosen: { symbol: string; titles: string[] } | undefined;
  for (const symbol of Object.keys((prices as { data: Record<string, unknown> }).data)) {
    const answer = await page.request.get(`/api/news/trading/?pairs=${symbol}&limit=5`, { headers: { authorization } });
    expect(answer.status()).toBe(200);
    const titles = ((await answer.json()) as { combined: { title: string }[] }).combined.map((a) => a.title);
    if (titles.length > 0) {
      chosen = { symbol, titles };
      break;
    }
  }
  expect(chosen, 'some pair has market-wire news').toBeDefined();
  const { symbol, titles } = chosen!;

  const answered = page.waitForResponse(
    (r) => r.url().includes('/api/news/trading/') && new URL(r.url()).searchParams.get('pairs') === symbol,
    { timeout: 15_000 },
  );
  await page.goto(`/pair/${symbol}`);
  expect(new URL((await answered).url()).searchParams.get('limit')).toBe('5');
  const panel = page.getByRole('region', { name: 'News', exact: true });
  const items = panel.getByRole('listitem');
  await expect(items).toHaveCount(titles.length);
  expect(titles.length).toBeLessThanOrEqual(5);
  // The market wire names the pair in every title it writes about it ("GBP/USD").
  const label = `${symbol.slice(0, 3)}/${symbol.slice(3)}`;
  await expect(items.getByRole('link')).toContainText(titles);
  for (const title of titles) expect(title).toContain(label);
});
