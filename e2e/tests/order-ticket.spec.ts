import type { Page } from '@playwright/test';
import { expect, test } from './support/scripted-market.js';
import { signInAs } from './support/traders.js';

/*
 * The order ticket (docs/screens.md#order-ticket) on a scripted market: prices move only when
 * the journey ticks them, so every price, distance and amount below is known in advance.
 */

const notices = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const notice = (page: Page, title: string) => notices(page).getByRole('listitem').filter({ hasText: title });

/** Opens the pair page once the ticket quotes the scripted price. */
async function openPair(page: Page, symbol: string, bid: string, ask: string) {
  await page.goto(`/pair/${symbol}`);
  const form = page.getByRole('form', { name: 'Place Order' });
  await form.getByLabel('Order Type').selectOption('LIMIT');
  await expect(form.getByLabel('Limit Price', { exact: true })).toHaveAccessibleDescription(`Bid ${bid} · Ask ${ask}`);
  await form.getByLabel('Order Type').selectOption('MARKET');
  return form;
}

test('a BUY LIMIT below the market waits in Pending Orders and fills when the ask comes down to it', async ({ page, market }) => {
  await market.tick('EURUSD', 1.1, 1.1002);
  await signInAs(page, market.createTrader('Lina Limit'));
  const form = await openPair(page, 'EURUSD', '1.10000', '1.10020');

  await form.getByLabel('Order Type').selectOption('LIMIT');
  const price = form.getByLabel('Limit Price', { exact: true });
  // Pre-filled 10 pips under the ask; a price at the ask is refused before anything is sent.
  await expect(price).toHaveValue('1.09920');
  await price.fill('1.10020');
  await expect(form.getByText('Limit Price of a BUY LIMIT must be below the ask (1.10020)')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Buy Limit EURUSD' })).toBeDisabled();
  await price.fill('1.09900');
  await form.getByLabel('Lot Size').fill('0.1');
  await form.getByRole('button', { name: 'Buy Limit EURUSD' }).click();

  await expect(notice(page, 'Pending order placed')).toContainText('BUY LIMIT 0.10 EURUSD at 1.09900');
  // The ticket is back to the spec's market order.
  await expect(form.getByLabel('Order Type')).toHaveValue('MARKET');
  const pending = page.getByRole('region', { name: 'Pending Orders' });
  const row = pending.getByRole('row').filter({ hasText: '1.09900' });
  await expect(row).toContainText('Limit');
  await expect(row).toContainText('BUY');

  // The ask comes down through the limit: it fills there, at that tick's ask.
  await market.tick('EURUSD', 1.0987, 1.0989);
  await expect(notice(page, 'Pending order filled')).toContainText('BUY LIMIT 0.10 EURUSD filled at 1.09890');
  await expect(row).toBeHidden();
  const positions = page.getByRole('region', { name: 'Open Positions' });
  await expect(positions.getByRole('row').filter({ hasText: 'LONG' })).toContainText('0.10');
  const recent = page.getByRole('region', { name: 'Recent Orders' });
  await expect(recent.getByRole('row').filter({ hasText: 'Limit' }).first()).toContainText('Filled');
});

test('a market order with a stop loss and take profit in pips shows their money, and closes at the target', async ({
  page,
  market,
}) => {
  await market.tick('EURUSD', 1.1, 1.1002);
  await signInAs(page, market.createTrader('Tara Target'));
  const form = await openPair(page, 'EURUSD', '1.10000', '1.10020');

  await form.getByLabel('Lot Size').fill('0.1');
  await form.getByLabel('Stop Loss entered as').selectOption('pips');
  await form.getByLabel('Stop Loss', { exact: true }).fill('20');
  await form.getByLabel('Take Profit entered as').selectOption('pips');
  await form.getByLabel('Take Profit', { exact: true }).fill('30');
  // 0.1 lot of EURUSD from the ask 1.10020: a pip is $1.00; the stop risks 0.20 % of the 10,000 equity.
  await expect(form.getByLabel('Stop Loss', { exact: true })).toHaveAccessibleDescription(
    '1.09820 · 20.0 pips · -$20.00 at stop · 0.20% of equity',
  );
  await expect(form.getByLabel('Take Profit', { exact: true })).toHaveAccessibleDescription(
    '1.10320 · 30.0 pips · +$30.00 at target',
  );
  // Equity 10,000 − 2 (the spread) over a margin of 10,000 × 1.1001 ÷ 100 = 110.01.
  await expect(form.getByTestId('margin-level-after')).toHaveText('9,088.26%');
  await form.getByRole('button', { name: 'Buy EURUSD' }).click();
  await expect(notice(page, 'Order filled')).toContainText('BUY 0.10 EURUSD filled at 1.10020');

  const positions = page.getByRole('region', { name: 'Open Positions' });
  await expect(positions.getByRole('row').filter({ hasText: 'LONG' })).toContainText('0.10');

  // The bid reaches the target: the position closes there, at that tick's bid.
  await market.tick('EURUSD', 1.1033, 1.1035);
  await expect(notice(page, 'Take profit triggered')).toContainText('SELL 0.10 EURUSD filled at 1.10330');
  await expect(positions.getByText('No open positions')).toBeVisible();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Order History' })).toBeVisible();
  const orders = page.getByRole('region', { name: 'Orders' });
  const closing = orders.getByRole('row').filter({ hasText: 'Take profit' });
  await expect(closing).toContainText('SELL');
  await expect(closing).toContainText('1.10330');
  await expect(closing).toContainText('Filled');
});
