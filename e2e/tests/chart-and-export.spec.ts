import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { APIRequestContext, Page } from '@playwright/test';
import type { AxeResults } from 'axe-core';
import { expect, type ScriptedMarket, test } from './support/scripted-market.js';
import { signInAs } from './support/traders.js';

/*
 * The pair chart's lines and the order history's export (docs/screens.md#chart-lines,
 * docs/screens.md#orders-page-additions), against a real server on a scripted market: the
 * price stands still unless the journey moves it, so a drag lands where the journey expects.
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious or critical axe violations of the page as it stands (rule and first element). */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not govern.
  await page.evaluate(axeSource);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document): Promise<AxeResults> } }).axe.run(document),
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} at ${v.nodes[0]?.target.join(' ')}`);
}

/** Calls the API as the signed-in trader of `page` (the token the app keeps). */
async function asTrader(page: Page, market: ScriptedMarket) {
  const token = await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'));
  expect(token).toBeTruthy();
  const request: APIRequestContext = page.request;
  let key = 0;
  return async (path: string, data: Record<string, unknown>) => {
    const answer = await request.post(`${market.baseURL}/api${path}`, {
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': `chart-and-export-${Date.now()}-${key++}` },
      data,
    });
    expect(answer.ok(), `${path}: ${await answer.text()}`).toBe(true);
    return ((await answer.json()) as { data: Record<string, { id: number }> }).data;
  };
}

test('dragging the stop loss line and confirming moves the position stop loss', async ({ page, market }) => {
  await market.tick('EURUSD', 1.1, 1.1002);
  await signInAs(page, market.createTrader('Lena Lines'));
  const post = await asTrader(page, market);
  await post('/trading/place-market-order/', {
    symbol: 'EURUSD',
    side: 'BUY',
    quantity: 0.1,
    stop_loss: 1.095,
    take_profit: 1.105,
  });

  await page.goto('/pair/EURUSD');
  const lines = page.getByRole('list', { name: 'Chart lines' });
  // Generous: the first load of the pair page on a loaded machine.
  await expect(lines).toContainText('SL1.09500', { timeout: 30_000 });
  await expect(lines).toContainText('TP1.10500');
  await expect(lines).toContainText('Entry1.10020');

  // The handle of the SL line sits on the chart once it is drawn; drag it up (towards the price).
  const handle = page.locator('.chart-line-handle[data-line-id$=":stop_loss"]');
  await expect(handle).toBeVisible();
  const box = await handle.boundingBox();
  if (!box) throw new Error('the stop loss handle has no box');
  const x = box.x + 20;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x, y - 30, { steps: 6 });
  await page.mouse.up();

  const dialog = page.getByRole('dialog', { name: 'Move stop loss' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Current price 1.09500');
  const proposed = await dialog.getByLabel('New price').inputValue();
  const newStop = Number(proposed);
  // Up the chart is a higher price, still below the bid: a valid stop loss for a long.
  expect(newStop).toBeGreaterThan(1.095);
  expect(newStop).toBeLessThan(1.1);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(dialog).toBeHidden();

  const positions = page.getByRole('region', { name: 'Open Positions' });
  await expect(positions).toContainText(proposed);
  await expect(lines).toContainText(`SL${proposed}`);
});

test('a refused line move shows the server message and the line stays', async ({ page, market }) => {
  await market.tick('EURUSD', 1.1, 1.1002);
  await signInAs(page, market.createTrader('Rita Refused'));
  const post = await asTrader(page, market);
  await post('/trading/place-market-order/', { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, stop_loss: 1.095 });

  await page.goto('/pair/EURUSD');
  // The keyboard path: the list's Move button, a stop loss above the bid (refused by the server).
  const move = page.getByRole('button', { name: 'Move stop loss' });
  await expect(move).toBeVisible({ timeout: 30_000 });
  await move.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Move stop loss' });
  await expect(dialog.getByLabel('New price')).toBeFocused();
  // The lines, their list and the open dialog pass axe.
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByLabel('New price').fill('1.10100');
  await page.keyboard.press('Enter');

  await expect(page.getByRole('alert').filter({ hasText: 'Stop loss not moved' })).toContainText('stop_loss');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('list', { name: 'Chart lines' })).toContainText('SL1.09500');
});

test('Export CSV downloads the filtered order history', async ({ page, market }) => {
  await market.tick('EURUSD', 1.1, 1.1002);
  await market.tick('USDJPY', 150, 150.02);
  await signInAs(page, market.createTrader('Eddie Export'));
  const post = await asTrader(page, market);
  await post('/trading/place-market-order/', { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
  await post('/trading/place-market-order/', { symbol: 'EURUSD', side: 'SELL', quantity: 0.05 });
  await post('/trading/place-market-order/', { symbol: 'USDJPY', side: 'BUY', quantity: 0.02 });
  const { order } = await post('/trading/place-pending-order/', {
    symbol: 'EURUSD',
    side: 'BUY',
    order_type: 'LIMIT',
    quantity: 0.3,
    price: 1.09,
  });
  await post(`/trading/orders/${order?.id}/cancel/`, {});

  // Filter: EURUSD, Filled (the cancelled limit and the USDJPY order are left out).
  await page.goto('/orders');
  await page.getByRole('button', { name: 'Show Filters' }).click();
  await page.getByLabel('Status').selectOption({ label: 'Filled' });
  await page.getByLabel('Currency Pair').fill('EURUSD');
  await expect(page.getByText('Showing 1 to 2 of 2 orders')).toBeVisible();

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('orders.csv');
  const csv = await readFile(await download.path(), 'utf8');
  const [header, ...rows] = csv.trimEnd().split('\r\n');
  const columns = header?.split(',') ?? [];
  expect(columns.slice(0, 4)).toEqual(['id', 'created_at', 'symbol', 'order_type']);
  expect(rows).toHaveLength(2);
  const field = (row: string, name: string) => row.split(',')[columns.indexOf(name)];
  expect(rows.map((r) => field(r, 'symbol'))).toEqual(['EURUSD', 'EURUSD']);
  expect(rows.map((r) => field(r, 'status'))).toEqual(['FILLED', 'FILLED']);
  // Newest first, as the list: the SELL 0.05 then the BUY 0.10.
  expect(rows.map((r) => [field(r, 'side'), Number(field(r, 'quantity'))])).toEqual([
    ['SELL', 0.05],
    ['BUY', 0.1],
  ]);

  // The page shows the same new columns beside the spec's.
  await page.getByLabel('Status').selectOption({ label: 'Cancelled' });
  await expect(page.getByRole('table', { name: 'Orders' })).toContainText('Limit');
  const headers = await page.getByRole('table', { name: 'Orders' }).getByRole('columnheader').allTextContents();
  expect(headers).toEqual([
    'Time',
    'Pair',
    'Type',
    'Side',
    'Quantity',
    'Price',
    'Fill Price',
    'Status',
    'Limit Price',
    'SL / TP',
    'Expiry',
  ]);
});
