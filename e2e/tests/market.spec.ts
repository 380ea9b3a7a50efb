import type { Locator, Page } from '@playwright/test';
import { expect, signInAsDemo, test } from './support/session.js';

/*
 * Market journeys (docs/screens.md#pair-page) against the real server and its price simulator. The chart
 * box (test id `price-chart`) says what it shows: `data-range`, `data-candles` and
 * `data-candle-times` (open times in epoch ms).
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;

async function candleTimes(chart: Locator): Promise<number[]> {
  const text = (await chart.getAttribute('data-candle-times')) ?? '';
  return text.split(',').map(Number);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] ?? 0));
}

/** Pixels of the chart's canvases in the rising and falling candle colours of the theme in force. */
function candlePixels(page: Page): Promise<{ up: number; down: number }> {
  return page.getByTestId('price-chart').evaluate((box) => {
    const css = getComputedStyle(document.documentElement);
    const rgb = (name: string) => {
      const hex = css.getPropertyValue(name).trim().replace('#', '');
      return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
    };
    const [up, down] = [rgb('--profit'), rgb('--loss')];
    const near = (data: Uint8ClampedArray, i: number, c: number[]) =>
      Math.abs((data[i] ?? 0) - (c[0] ?? 0)) < 8 &&
      Math.abs((data[i + 1] ?? 0) - (c[1] ?? 0)) < 8 &&
      Math.abs((data[i + 2] ?? 0) - (c[2] ?? 0)) < 8;
    const count = { up: 0, down: 0 };
    for (const canvas of Array.from(box.querySelectorAll('canvas'))) {
      if (canvas.width === 0 || canvas.height === 0) continue;
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      if (!data) continue;
      for (let i = 0; i < data.length; i += 4) {
        if (near(data, i, up)) count.up++;
        else if (near(data, i, down)) count.down++;
      }
    }
    return count;
  });
}

test('the pair page draws an hour of one-minute candles and its bid/ask move within 5 s', async ({ page }) => {
  await signInAsDemo(page);
  await page.goto('/pair/EURUSD');
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toContainText('EURUSD');
  await expect(heading).toContainText('Euro / US Dollar');
  await expect(heading.locator('.flag')).toHaveCount(2);
  await expect(page.getByRole('link', { name: /Back to Platform/ })).toHaveAttribute('href', '/');

  const chart = page.getByTestId('price-chart');
  await expect(chart).toHaveAttribute('data-range', '1h');
  await expect(chart).toHaveAttribute('data-candles', '60');
  await expect(page.getByRole('button', { name: '1H' })).toHaveAttribute('aria-pressed', 'true');
  await expect(chart.locator('canvas').first()).toBeVisible();
  await expect.poll(() => candlePixels(page).then((p) => p.up + p.down)).toBeGreaterThan(200);
  const minutes = await candleTimes(chart);
  expect(minutes).toHaveLength(60);
  expect(new Set(gaps(minutes))).toEqual(new Set([MINUTE]));
  expect(Date.now() - (minutes.at(-1) ?? 0)).toBeLessThan(2 * MINUTE);
  await expect(page.getByText('No chart data available')).toHaveCount(0);

  const card = page.getByRole('region', { name: 'Current Price' });
  const bid = card.getByTestId('bid');
  const ask = card.getByTestId('ask');
  await expect(bid).toHaveText(/^\d\.\d{5}$/);
  await expect(ask).toHaveText(/^\d\.\d{5}$/);
  await expect(card.getByText('Live feed')).toBeVisible();
  const quote = async () => `${await bid.textContent()} / ${await ask.textContent()}`;
  const first = await quote();
  await expect.poll(quote, { timeout: 5_000, intervals: [100] }).not.toBe(first);
  const [bidNow, askNow] = [Number(await bid.textContent()), Number(await ask.textContent())];
  expect(bidNow).toBeLessThan(askNow);
  await expect(card.getByTestId('spread')).toHaveText(/^\d+\.\d pips$/);
  // Bid in red, ask in green: the theme's tokens.
  const colours = await card.evaluate((el) => {
    const css = getComputedStyle(document.documentElement);
    const colourOf = (token: string) => {
      const probe = document.createElement('span');
      probe.style.color = css.getPropertyValue(token);
      el.append(probe);
      const value = getComputedStyle(probe).color;
      probe.remove();
      return value;
    };
    return {
      bid: getComputedStyle(el.querySelector('[data-testid="bid"]') as Element).color,
      ask: getComputedStyle(el.querySelector('[data-testid="ask"]') as Element).color,
      red: colourOf('--red'),
      green: colourOf('--green'),
    };
  });
  expect(colours.bid).toBe(colours.red);
  expect(colours.ask).toBe(colours.green);
});

test('1W shows 168 hourly candles', async ({ page }) => {
  await signInAsDemo(page);
  await page.goto('/pair/EURUSD');
  const chart = page.getByTestId('price-chart');
  await expect(chart).toHaveAttribute('data-candles', '60');

  const weekAsked = page.waitForRequest((r) => r.url().includes('/api/trading/pair/EURUSD/chart-data/?range=1w'));
  await page.getByRole('button', { name: '1W' }).click();
  await weekAsked;
  await expect(chart).toHaveAttribute('data-range', '1w');
  await expect(chart).toHaveAttribute('data-candles', '168');
  await expect(page.getByRole('button', { name: '1W' })).toHaveAttribute('aria-pressed', 'true');
  const hours = await candleTimes(chart);
  expect(hours).toHaveLength(168);
  expect(new Set(gaps(hours))).toEqual(new Set([HOUR]));
  for (const t of hours) expect(t % HOUR).toBe(0);
  await expect.poll(() => candlePixels(page).then((p) => p.up + p.down)).toBeGreaterThan(200);

  // Back to 1H: minutes again.
  await page.getByRole('button', { name: '1H' }).click();
  await expect(chart).toHaveAttribute('data-range', '1h');
  await expect(chart).toHaveAttribute('data-candles', '60');
});

test('a JPY pair shows its prices with 3 decimals', async ({ page }) => {
  await signInAsDemo(page);
  await page.goto('/pair/usdjpy');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('USDJPY');
  const card = page.getByRole('region', { name: 'Current Price' });
  await expect(card.getByTestId('bid')).toHaveText(/^\d{2,3}\.\d{3}$/);
  await expect(card.getByTestId('ask')).toHaveText(/^\d{2,3}\.\d{3}$/);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', '60');
});

test('/pair/XXXYYY shows "Currency pair not found"', async ({ page }) => {
  await signInAsDemo(page);
  await page.goto('/pair/XXXYYY');
  await expect(page.getByRole('heading', { level: 1, name: 'Currency pair not found' })).toBeVisible();
  await expect(page.getByText('Currency pair XXXYYY not found')).toBeVisible();
  await expect(page.getByTestId('price-chart')).toHaveCount(0);
  await page.getByRole('link', { name: /Back to Platform/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
});

test('clicking a pair in the dashboard grid opens its page', async ({ page }) => {
  await signInAsDemo(page);
  const grid = page.getByRole('region', { name: 'Available Currency Pairs' });
  const links = grid.getByRole('link');
  await expect(links).toHaveCount(12);
  const gbpusd = grid.getByRole('link', { name: /GBPUSD/ });
  await expect(gbpusd).toHaveAttribute('href', '/pair/GBPUSD');
  await expect(gbpusd).toContainText('British Pound / US Dollar');
  await expect(gbpusd.locator('.flag')).toHaveCount(2);
  await expect(gbpusd).toContainText(/Bid\s*\d\.\d{5}/);
  await expect(grid.getByRole('link', { name: /USDJPY/ })).toContainText(/Ask\s*\d{2,3}\.\d{3}/);

  await gbpusd.click();
  await expect(page).toHaveURL(/\/pair\/GBPUSD$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('GBPUSD');
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', '60');
});
