import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { APIRequestContext, Page } from '@playwright/test';
import type { AxeResults } from 'axe-core';
import { expect, test } from './support/session.js';
import { createTrader, signInAs } from './support/traders.js';

/*
 * The performance screen (docs/screens.md#performance) against the real server: a trader of the
 * journey's own opens and closes a few positions through the API, then the page must show the
 * numbers the API gives, draw the curve, and keep a journal note and tags across a reload.
 *
 * Found by: test ids perf-<figure> on the stat cards, equity-curve (data-points) on the curve's
 * box, journal-entry-<tradeId> on each journal entry; regions "By Pair", "Trade Journal".
 */

interface Performance {
  net_pnl: number;
  return_pct: number | null;
  closed_trades: number;
  win_rate: number | null;
  profit_factor: number | null;
  expectancy: number | null;
  max_drawdown_pct: number;
  longest_win_streak: number;
  longest_loss_streak: number;
  by_pair: Array<{ symbol: string; trades: number; net_pnl: number; win_rate: number | null }>;
}

// The app's formats (docs/screens.md#formatting), written out again so a change shows here.
const signedUsd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: 'exceptZero',
});
const pnl = (v: number) => signedUsd.format(Math.abs(v) < 0.005 ? 0 : v);
const pct = (v: number | null) => (v === null ? '—' : `${v.toFixed(2)}%`);
const signedPct = (v: number | null) => (v === null ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(2)}%`);
const trades = (n: number) => `${n} ${n === 1 ? 'trade' : 'trades'}`;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands (as the accessibility journey runs it). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document): Promise<AxeResults> } }).axe.run(document),
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

async function accessToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'));
  expect(token).toBeTruthy();
  return token ?? '';
}

/** Opens a position with a market order and closes it again: one closed trade. */
async function roundTrip(request: APIRequestContext, token: string, symbol: string, side: 'BUY' | 'SELL', quantity: number) {
  const headers = { Authorization: `Bearer ${token}` };
  let positionId = 0;
  // The first orders may come before the pair's first price (503): try until one fills.
  await expect(async () => {
    const placed = await request.post('/api/trading/place-market-order/', {
      headers: { ...headers, 'Idempotency-Key': `perf-${symbol}-${side}-${Date.now()}-${Math.random()}` },
      data: { symbol, side, quantity },
    });
    expect(placed.status()).toBe(201);
    positionId = (await placed.json()).data.position.id;
  }).toPass({ timeout: 20_000 });
  const closed = await request.post(`/api/trading/close-position/${positionId}/`, { headers, data: {} });
  expect(closed.status()).toBe(200);
}

async function apiGet<T>(request: APIRequestContext, token: string, path: string): Promise<T> {
  const answer = await request.get(path, { headers: { Authorization: `Bearer ${token}` } });
  expect(answer.status()).toBe(200);
  const body = await answer.json();
  return (path.startsWith('/api/trading/journal/') ? body : body.data) as T;
}

test('after a few trades the page shows the API figures, draws the curve, and keeps a journal note and tags', async ({
  page,
}) => {
  // Three round trips, a page, a save and a reload on a loaded two-core machine.
  test.setTimeout(120_000);
  await signInAs(page, createTrader('Pat Performance'));
  const token = await accessToken(page);
  await roundTrip(page.request, token, 'EURUSD', 'BUY', 0.1);
  await roundTrip(page.request, token, 'USDJPY', 'SELL', 0.2);
  await roundTrip(page.request, token, 'EURUSD', 'SELL', 0.05);

  const stats = await apiGet<Performance>(page.request, token, '/api/trading/performance/');
  expect(stats.closed_trades).toBe(3);
  const curve = await apiGet<unknown[]>(page.request, token, '/api/trading/equity-curve/?range=all');
  expect(curve.length).toBeGreaterThan(0);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Performance' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Performance' })).toBeVisible();

  // The same numbers as the API (no position is open, so nothing moves them meanwhile).
  await expect(page.getByTestId('perf-net-pnl')).toHaveText(pnl(stats.net_pnl));
  await expect(page.getByTestId('perf-return')).toHaveText(signedPct(stats.return_pct));
  await expect(page.getByTestId('perf-win-rate')).toHaveText(pct(stats.win_rate));
  await expect(page.getByTestId('perf-profit-factor')).toHaveText(
    stats.profit_factor === null ? '—' : stats.profit_factor.toFixed(2),
  );
  await expect(page.getByTestId('perf-expectancy')).toHaveText(stats.expectancy === null ? '—' : pnl(stats.expectancy));
  await expect(page.getByTestId('perf-max-drawdown')).toHaveText(pct(stats.max_drawdown_pct));
  await expect(page.getByTestId('perf-win-streak')).toHaveText(trades(stats.longest_win_streak));
  await expect(page.getByTestId('perf-loss-streak')).toHaveText(trades(stats.longest_loss_streak));
  const pairRows = page.getByRole('region', { name: 'By Pair' }).getByRole('row');
  await expect(pairRows).toHaveCount(stats.by_pair.length + 1);
  for (const [i, p] of stats.by_pair.entries()) {
    await expect(pairRows.nth(i + 1).getByRole('cell')).toHaveText([p.symbol, String(p.trades), pnl(p.net_pnl), pct(p.win_rate)]);
  }

  // The curve draws: the chart's canvas, given as many points as the API has.
  const chart = page.getByTestId('equity-curve');
  await expect(chart).toHaveAttribute('data-points', String(curve.length));
  await expect(chart.locator('canvas').first()).toBeVisible();
  await expect(chart).toHaveAccessibleName(/^Equity curve (from|on) /);

  // The journal: the newest closed trade first; a note, two tags and four stars, saved.
  const journal = await apiGet<{ count: number; results: Array<{ trade: { id: number } }> }>(
    page.request,
    token,
    '/api/trading/journal/',
  );
  expect(journal.count).toBe(3);
  const newest = journal.results[0]!.trade.id;
  const entry = page.getByTestId(`journal-entry-${newest}`);
  await expect(page.getByRole('region', { name: 'Trade Journal' }).getByRole('article').first()).toHaveAttribute(
    'data-testid',
    `journal-entry-${newest}`,
  );
  await entry.getByLabel('Note').fill('Sold the London high; exit was early.');
  const tags = entry.getByRole('textbox', { name: 'Tags', exact: true });
  await tags.fill('london');
  await tags.press('Enter');
  await tags.fill('early exit');
  await tags.press('Enter');
  // The fourth star, as a trader clicks it (the radio under it is for the keyboard and screen readers).
  await entry.locator('label', { has: page.getByRole('radio', { name: '4 stars' }) }).click();
  await expect(entry.getByRole('radio', { name: '4 stars' })).toBeChecked();
  // The stars are a radio group: the arrow keys move the rating.
  await entry.getByRole('radio', { name: '4 stars' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(entry.getByRole('radio', { name: '5 stars' })).toBeChecked();
  await page.keyboard.press('ArrowLeft');
  await expect(entry.getByRole('radio', { name: '4 stars' })).toBeChecked();
  const saved = page.waitForResponse(
    (r) => r.request().method() === 'PUT' && r.url().endsWith(`/api/trading/journal/${newest}/`),
  );
  await entry.getByRole('button', { name: 'Save' }).click();
  expect((await saved).status()).toBe(200);
  await expect(entry.getByRole('status')).toHaveText('Saved');

  await page.reload();
  const again = page.getByTestId(`journal-entry-${newest}`);
  await expect(again.getByLabel('Note')).toHaveValue('Sold the London high; exit was early.');
  await expect(again.getByRole('button', { name: /^Remove tag / })).toHaveCount(2);
  await expect(again.getByRole('button', { name: 'Remove tag london' })).toBeVisible();
  await expect(again.getByRole('button', { name: 'Remove tag early exit' })).toBeVisible();
  await expect(again.getByRole('radio', { name: '4 stars' })).toBeChecked();
  await expect(page.getByTestId('equity-curve').locator('canvas').first()).toBeVisible();
  expect(await seriousViolations(page), 'serious or critical axe violations on /performance').toEqual([]);

  // The tag filter finds it, and only it.
  await page.getByRole('region', { name: 'Trade Journal' }).getByLabel('Tag', { exact: true }).fill('london');
  await expect(page).toHaveURL(/[?&]tag=london/);
  await expect(page.getByText('Showing 1 to 1 of 1 trade')).toBeVisible();
  await expect(page.getByTestId(`journal-entry-${newest}`)).toBeVisible();
});
