import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, test } from './support/scripted-market.js';
import { signInAs } from './support/traders.js';

/*
 * Pending orders, protection in place and partial close (docs/screens.md#pending-orders,
 * docs/screens.md#positions-protection) on a scripted market: prices move only when the
 * journey ticks them, so every price and distance below is known in advance.
 */

/** Calls the trading API as the signed-in trader (the token the app keeps). */
async function asTrader(page: Page, path: string, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  const token = await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'));
  const answer = await page.request.post(path, {
    headers: { authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID() },
    data,
  });
  expect(answer.status(), await answer.text()).toBeLessThan(300);
  return ((await answer.json()) as { data: Record<string, unknown> }).data;
}

const notices = (page: Page) => page.getByRole('region', { name: 'Notifications' });

/** Notices come from the trading socket: a journey ticks the market only once it is connected. */
async function live(page: Page): Promise<void> {
  await expect(page.getByRole('banner').getByText('Live Updates')).toBeVisible();
}

test('a pending order shows live in Pending Orders, is modified, and cancelled', async ({ page, market }) => {
  await signInAs(page, market.createTrader('Penny Pending'));
  await live(page);
  await market.tick('EURUSD', 1.1, 1.1002);
  await asTrader(page, '/api/trading/place-pending-order/', {
    symbol: 'EURUSD',
    side: 'BUY',
    order_type: 'LIMIT',
    quantity: 0.1,
    price: 1.09,
    stop_loss: 1.08,
  });

  const panel = page.getByRole('region', { name: 'Pending Orders' });
  const row = panel.getByRole('row').filter({ hasText: 'EURUSD' });
  // Placed through the API: it reaches this page from the socket, without a reload.
  await expect(row).toContainText('Limit');
  await expect(row).toContainText('1.09000');
  await expect(row).toContainText('1.08000 / —');
  await expect(row).toContainText('GTC');
  // A BUY waits for the ask: 1.10020 − 1.09000 = 102 pips; the distance follows the market.
  await expect(row.getByTestId(/^distance-/)).toHaveText('102.0');
  await market.tick('EURUSD', 1.095, 1.0952);
  await expect(row.getByTestId(/^distance-/)).toHaveText('52.0');

  // Modify its price; a price above the ask is refused before anything is sent.
  await row.getByRole('button', { name: 'Modify BUY LIMIT 0.10 EURUSD at 1.09000' }).click();
  const form = panel.getByRole('form', { name: 'Modify BUY Limit 0.10 EURUSD order' });
  await form.getByLabel('Price').fill('1.096');
  await expect(form.getByText('Price a BUY LIMIT must be below the ask (1.09520)')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Save Changes' })).toBeDisabled();
  await form.getByLabel('Price').fill('1.0905');
  await form.getByRole('button', { name: 'Save Changes' }).click();
  await expect(notices(page).getByRole('listitem').filter({ hasText: 'Order modified' })).toContainText(
    'BUY LIMIT 0.10 EURUSD at 1.09050',
  );
  await expect(form).toBeHidden();
  await expect(row).toContainText('1.09050');

  // Cancel it: the row leaves, Recent Orders shows it Cancelled, one notice says so.
  await row.getByRole('button', { name: 'Cancel BUY LIMIT 0.10 EURUSD at 1.09050' }).click();
  await expect(panel.getByText('No pending orders')).toBeVisible();
  await expect(notices(page).getByRole('listitem').filter({ hasText: 'Order cancelled' })).toHaveCount(1);
  const recent = page.getByRole('region', { name: 'Recent Orders' });
  await expect(recent.getByRole('row').nth(1)).toContainText('Cancelled');
});

test('a BUY LIMIT fills when the ask reaches it: a notice, the position, and the panel empties', async ({ page, market }) => {
  await signInAs(page, market.createTrader('Lima Fill'));
  await market.tick('EURUSD', 1.1, 1.1002);
  await page.goto('/pair/EURUSD');
  await live(page);
  await asTrader(page, '/api/trading/place-pending-order/', {
    symbol: 'EURUSD',
    side: 'BUY',
    order_type: 'LIMIT',
    quantity: 0.1,
    price: 1.099,
  });
  const panel = page.getByRole('region', { name: 'Pending Orders' });
  await expect(panel.getByRole('heading', { name: 'Pending Orders · EURUSD' })).toBeVisible();
  await expect(panel.getByRole('row').nth(1)).toContainText('1.09900');

  await market.tick('EURUSD', 1.0987, 1.0989);
  await expect(notices(page).getByRole('listitem').filter({ hasText: 'Pending order filled' })).toContainText(
    'BUY LIMIT 0.10 EURUSD filled at 1.09890',
  );
  await expect(panel.getByText('No pending orders')).toBeVisible();
  const positions = page.getByRole('region', { name: 'Open Positions' });
  await expect(positions.getByRole('row').nth(1)).toContainText('1.09890');
});

test("a position's stop loss is set in place, and fires when the bid reaches it", async ({ page, market }) => {
  await signInAs(page, market.createTrader('Sloane Stop'));
  await market.tick('EURUSD', 1.1, 1.1002);
  await asTrader(page, '/api/trading/place-market-order/', { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
  await page.goto('/pair/EURUSD');
  await live(page);
  const positions = page.getByRole('region', { name: 'Open Positions' });
  const row = positions.getByRole('row').nth(1);
  await expect(row).toContainText('1.10020');

  await row.getByRole('button', { name: 'Edit stop loss, EURUSD position: none' }).click();
  const stopLoss = row.getByRole('textbox', { name: 'Stop loss, EURUSD position' });
  await expect(stopLoss).toBeFocused();
  // Above the bid a long's stop loss would fire at once: refused before sending.
  await stopLoss.fill('1.1001');
  await expect(row.getByText('must be below the bid (1.10000) for a long position')).toBeVisible();
  await stopLoss.fill('1.095');
  await stopLoss.press('Enter');
  await expect(row.getByRole('button', { name: 'Edit stop loss, EURUSD position: 1.09500' })).toBeVisible();
  await expect(notices(page).getByRole('listitem').filter({ hasText: 'Protection updated' })).toContainText(
    'EURUSD: stop loss 1.09500, take profit none, trailing stop none',
  );

  // After a reload it is still there: the server holds it.
  await page.reload();
  await expect(row.getByRole('button', { name: 'Edit stop loss, EURUSD position: 1.09500' })).toBeVisible();
  await live(page);

  await market.tick('EURUSD', 1.0949, 1.0951);
  await expect(notices(page).getByRole('listitem').filter({ hasText: 'Stop loss triggered' })).toContainText(
    'SELL 0.10 EURUSD filled at 1.09490',
  );
  await expect(positions.getByText('No open positions')).toBeVisible();
});

test('a partial close on the dashboard closes the lots asked, after the confirmation', async ({ page, market }) => {
  await signInAs(page, market.createTrader('Parker Part'));
  await live(page);
  await market.tick('EURUSD', 1.1, 1.1002);
  await asTrader(page, '/api/trading/place-market-order/', { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
  const positions = page.getByRole('region', { name: 'Open Positions' });
  const row = positions.getByRole('row').filter({ has: page.getByRole('link', { name: 'EURUSD' }) });
  const lots = row.getByRole('textbox', { name: 'Lots to close, EURUSD position' });
  await expect(lots).toHaveValue('0.10');

  await lots.fill('0.11');
  await expect(row.getByText('Lots to close must be at most 0.10')).toBeVisible();
  await expect(row.getByRole('button', { name: 'Close EURUSD position' })).toBeDisabled();
  await lots.fill('0.04');
  let confirmText = '';
  page.once('dialog', (dialog) => {
    confirmText = dialog.message();
    void dialog.accept();
  });
  await row.getByRole('button', { name: 'Close EURUSD position' }).click();
  await expect(notices(page).getByRole('listitem').filter({ hasText: 'Position partly closed' })).toContainText(
    'SELL 0.04 EURUSD filled at 1.10000',
  );
  expect(confirmText).toBe('Are you sure you want to close this position?');
  await expect(lots).toHaveValue('0.06');
  await expect(row).toContainText('LONG');
});
