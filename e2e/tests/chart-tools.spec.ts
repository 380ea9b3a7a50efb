import type { Locator, Page } from '@playwright/test';
import { expect, test as scripted } from './support/scripted-market.js';
import { test as live } from './support/session.js';
import { createTrader, signInAs } from './support/traders.js';

/*
 * The chart's tools as a trader meets them (issue 34; docs/charting.md, docs/screens.md#timeframe-selector,
 * #drawing-toolbar, #alerts, #risk-helper): timeframes and scrolling back, indicators and their
 * legends, a trend line kept on the server, an alert set from the chart and fired by the market, a
 * lot size worked out from risk, and one-click trading.
 *
 * The first three need history, so they run on the suite's server (a month of minutes and a year of
 * hours); the others need prices that move only when told, so they run on a scripted market. Each
 * journey has a trader of its own, so none sees another's layout, drawings, alerts or positions.
 */

const H4_MS = 4 * 3_600_000;

const notices = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const notice = (page: Page, title: string) =>
  notices(page)
    .getByRole('listitem')
    .filter({ has: page.getByText(title, { exact: true }) });

function candleTimes(times: string | null): number[] {
  return (times ?? '').split(',').filter(Boolean).map(Number);
}

/** Drags the chart to the right (back in time) a few times, from the middle of its price pane. */
async function scrollBack(page: Page, chart: Locator): Promise<void> {
  const box = (await chart.boundingBox())!;
  for (let i = 0; i < 4; i++) {
    await page.mouse.move(box.x + 60, box.y + box.height / 3);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 120, box.y + box.height / 3, { steps: 8 });
    await page.mouse.up();
  }
}

/** The access token the app keeps, for reading what the server holds with the trader's rights. */
async function bearer(page: Page): Promise<{ authorization: string }> {
  const token = await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'));
  return { authorization: `Bearer ${token}` };
}

live('the pair page chart switches to H4 and loads older 4-hour candles as the trader scrolls back', async ({ page }) => {
  await signInAs(page, createTrader('Hana Hours'));
  await page.goto('/pair/EURUSD');
  const chart = page.getByTestId('price-chart');
  await expect(chart).toHaveAttribute('data-candles', '60');

  await page.getByRole('group', { name: 'Chart timeframe' }).getByRole('button', { name: 'H4' }).click();
  await expect(page.getByRole('group', { name: 'Chart timeframe' }).getByRole('button', { name: 'H4' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await expect(chart).toHaveAttribute('data-timeframe', 'h4');
  // The first page: at most 300 candles, each opening on a 4-hour UTC boundary, oldest first.
  await expect(chart).toHaveAttribute('data-candles', /^[1-9]\d*$/);
  const first = candleTimes(await chart.getAttribute('data-candle-times'));
  expect(first.length).toBeLessThanOrEqual(300);
  expect(first.every((t) => t % H4_MS === 0)).toBe(true);
  for (let i = 1; i < first.length; i++) expect(first[i]! - first[i - 1]!).toBeGreaterThanOrEqual(H4_MS);

  await scrollBack(page, chart);
  await expect.poll(async () => Number(await chart.getAttribute('data-candles'))).toBeGreaterThan(first.length);
  const more = candleTimes(await chart.getAttribute('data-candle-times'));
  // Older ones came in front: an earlier first candle, still aligned, no overlap or reordering.
  expect(more[0]!).toBeLessThan(first[0]!);
  expect(more.every((t) => t % H4_MS === 0)).toBe(true);
  for (let i = 1; i < more.length; i++) expect(more[i]! - more[i - 1]!).toBeGreaterThanOrEqual(H4_MS);
  expect(more.slice(-first.length).slice(0, -1)).toEqual(first.slice(0, -1));
});

live('RSI and Bollinger Bands added from Indicators show their legends with values', async ({ page }) => {
  await signInAs(page, createTrader('Ira Indicators'));
  await page.goto('/pair/EURUSD');
  const chart = page.getByTestId('price-chart');
  await page.getByRole('group', { name: 'Chart timeframe' }).getByRole('button', { name: 'H1' }).click();
  await expect(chart).toHaveAttribute('data-candles', /^[1-9]\d*$/);

  await page.getByRole('button', { name: 'Indicators', exact: true }).click();
  const add = page.getByRole('combobox', { name: 'Indicator to add' });
  await add.selectOption({ label: 'Relative strength index' });
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await add.selectOption({ label: 'Bollinger Bands' });
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.keyboard.press('Escape');

  // RSI in a pane of its own, Bollinger on the price pane.
  await expect(chart).toHaveAttribute('data-panes', '1');
  const legend = page.getByTestId('indicator-legend');
  await expect(legend.getByRole('listitem')).toHaveCount(2);
  await expect(legend.getByRole('listitem').filter({ hasText: /^RSI 14 / })).toHaveText(/^RSI 14 \d{1,3}\.\d{2}$/);
  const bb = legend.getByRole('listitem').filter({ hasText: /^BB 20 2 / });
  await expect(bb).toHaveText(/^BB 20 2 \d\.\d{5} \d\.\d{5} \d\.\d{5}$/);
  // Upper over middle over lower.
  const [upper, middle, lower] = ((await bb.textContent()) ?? '').split(' ').slice(3).map(Number);
  expect(upper!).toBeGreaterThan(middle!);
  expect(middle!).toBeGreaterThan(lower!);
});

live('a trend line drawn with two clicks on the chart is kept on the server and found again after a reload', async ({ page }) => {
  await signInAs(page, createTrader('Tomas Trend'));
  await page.goto('/pair/EURUSD');
  const chart = page.getByTestId('price-chart');
  await page.getByRole('group', { name: 'Chart timeframe' }).getByRole('button', { name: 'H1' }).click();
  await expect(chart).toHaveAttribute('data-candles', /^[1-9]\d*$/);
  const tools = page.getByRole('toolbar', { name: 'Drawing tools' });
  await expect(tools.getByRole('button', { name: /^Drawings/ })).toHaveText('Drawings');

  const created = page.waitForResponse((r) => r.url().endsWith('/api/trading/drawings/') && r.request().method() === 'POST');
  await tools.getByRole('button', { name: 'Trend line' }).click();
  await expect(tools.getByRole('button', { name: 'Trend line' })).toHaveAttribute('aria-pressed', 'true');
  const box = (await chart.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.3);
  await expect(page.getByText('Trend line: click the second point (Escape cancels)')).toBeVisible();
  await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.2);
  expect((await created).status()).toBe(201);
  await expect(tools.getByRole('button', { name: 'Trend line' })).toHaveAttribute('aria-pressed', 'false');
  await expect(tools.getByRole('button', { name: 'Drawings (1)' })).toBeVisible();

  await page.reload();
  await page.getByRole('group', { name: 'Chart timeframe' }).getByRole('button', { name: 'H1' }).click();
  await expect(chart).toHaveAttribute('data-candles', /^[1-9]\d*$/);
  await tools.getByRole('button', { name: 'Drawings (1)' }).click();
  const list = page.getByRole('list', { name: 'Drawings on EURUSD' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list.getByRole('listitem')).toContainText(/^Trend line \d\.\d{5} → \d\.\d{5}/);

  // What the server keeps: one trend line with two points, the second later than the first.
  const answer = await page.request.get('/api/trading/drawings/?symbol=EURUSD', { headers: await bearer(page) });
  expect(answer.status()).toBe(200);
  const drawings = ((await answer.json()) as { data: { kind: string; points: { time: number; price: number }[] }[] }).data;
  expect(drawings).toHaveLength(1);
  expect(drawings[0]!.kind).toBe('trend');
  expect(drawings[0]!.points).toHaveLength(2);
  expect(drawings[0]!.points[1]!.time).toBeGreaterThan(drawings[0]!.points[0]!.time);
  expect(drawings[0]!.points[1]!.price).toBeGreaterThan(drawings[0]!.points[0]!.price);
});

scripted(
  'an alert set from the chart fires when the market moves through it: a notice, and Triggered on the Alerts page',
  async ({ page, market }) => {
    await market.tick('EURUSD', 1.1, 1.1002);
    await signInAs(page, market.createTrader('Alma Alert'));
    await page.goto('/pair/EURUSD');
    const chart = page.getByTestId('price-chart');
    await expect(chart).toHaveAttribute('data-candles', /^\d+$/);
    await expect(page.getByRole('button', { name: 'Alert', exact: true })).toBeVisible();

    // Alt+A opens the chart's alert dialog (the "Alert" button does the same).
    await page.keyboard.press('Alt+KeyA');
    const dialog = page.getByRole('dialog', { name: 'Price alert on EURUSD' });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Price', { exact: true }).fill('1.10100');
    await dialog.getByLabel('Condition').selectOption({ label: 'Bid above' });
    await dialog.getByLabel('Note').fill('breakout');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(notice(page, 'Alert set')).toContainText('EURUSD bid above 1.10100');

    // One point short does not fire; through the price does, once, at that tick's bid.
    await market.tick('EURUSD', 1.10099, 1.10119);
    await market.tick('EURUSD', 1.1012, 1.1014);
    await expect(notice(page, 'Alert')).toContainText('EURUSD bid reached 1.10100 (1.10120) · breakout');
    await expect(notice(page, 'Alert')).toHaveCount(1);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
    await page.getByLabel('Status').selectOption({ label: 'Triggered' });
    const row = page.getByRole('row').filter({ hasText: 'breakout' });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('EURUSD');
    await expect(row).toContainText('Triggered');
    await expect(row).toContainText('1.10120');
  },
);

scripted(
  'Risk % fills Lot Size from the server’s position size, and the order is placed at that size',
  async ({ page, market }) => {
    await market.tick('EURUSD', 1.1, 1.1002);
    await signInAs(page, market.createTrader('Rafa Risk'));
    await page.goto('/pair/EURUSD');
    const form = page.getByRole('form', { name: 'Place Order' });
    await expect(form.getByLabel('Lot Size')).toHaveValue('0.01');

    const risk = form.getByRole('group', { name: 'Size from risk' });
    await expect(risk.getByLabel('Risk %')).toHaveValue('1');
    await risk.getByLabel('Stop (pips)').fill('20');
    const sized = page.waitForResponse((r) => r.url().includes('/api/trading/position-size/'));
    await risk.getByRole('button', { name: 'Use' }).click();
    const size = ((await (await sized).json()) as { data: { lots: number; risk_amount: number } }).data;
    // 1 % of 10,000 over a 20-pip stop at $10 a pip a lot: 100 ÷ 200 = 0.50 lots.
    expect(size.lots).toBe(0.5);
    await expect(form.getByLabel('Lot Size')).toHaveValue('0.50');
    await expect(risk.getByRole('status')).toHaveText('0.50 lots risk $100.00 at a 20.0-pip stop');

    const placed = page.waitForResponse((r) => r.url().endsWith('/api/trading/place-market-order/'));
    await form.getByRole('button', { name: 'Buy EURUSD' }).click();
    const answer = await placed;
    expect(answer.status()).toBe(201);
    const body = (await answer.json()) as { data: { order: { quantity: number }; position: { quantity: number } } };
    expect(body.data.order.quantity).toBe(size.lots);
    await expect(notice(page, 'Order filled')).toContainText('BUY 0.50 EURUSD filled at 1.10020');
    const positions = page.getByRole('region', { name: 'Open Positions' });
    await expect(positions.getByRole('row').filter({ hasText: 'LONG' })).toContainText('0.50');
  },
);

scripted('one-click trading, turned on over the chart, buys at once from the chart’s BUY button', async ({ page, market }) => {
  await market.tick('EURUSD', 1.1, 1.1002);
  await signInAs(page, market.createTrader('Oona OneClick'));
  await page.goto('/pair/EURUSD');
  const toggle = page.getByRole('switch', { name: 'One-click trading' });
  await expect(toggle).toHaveAttribute('aria-checked', 'false');
  // Off by default: no trade buttons on the chart.
  await expect(page.getByRole('button', { name: /^BUY .* EURUSD at / })).toHaveCount(0);

  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  const buy = page.getByRole('button', { name: 'BUY 0.01 EURUSD at 1.10020' });
  await expect(buy).toBeEnabled();
  const placed = page.waitForResponse((r) => r.url().endsWith('/api/trading/place-market-order/'));
  await buy.click();
  expect((await placed).status()).toBe(201);
  // No confirmation: the fill shows at once, and the position is in the table.
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(notice(page, 'Order filled')).toContainText('BUY 0.01 EURUSD filled at 1.10020');
  const positions = page.getByRole('region', { name: 'Open Positions' });
  await expect(positions.getByRole('row').filter({ hasText: 'LONG' })).toContainText('0.01');

  // Kept with the trader's chart settings: still on after a reload.
  await page.reload();
  await expect(page.getByRole('switch', { name: 'One-click trading' })).toHaveAttribute('aria-checked', 'true');
});
