import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, submitLogin, test } from './support/session.js';

/*
 * Trading journeys (docs/screens.md) against the real server and its price simulator.
 * Each journey signs in as a trader of its own, created with the CLI on the suite's data
 * directory, so the journeys never see each other's positions or orders.
 *
 * Screens are found by accessible names set by the trading feature:
 *   dashboard   status "Data feed" (Live Updates / Polling Mode (5s)); form "Place Market Order";
 *               regions "Open Positions", "Recent Orders", "Available Currency Pairs"; test ids account-*
 *   pair page   regions "Account Info", "Open Positions" (status "Positions feed"), "Recent Orders"
 *   orders      button Show Filters; table in region "Orders"
 */

const PASSWORD = 'e2e-trader-password';
const cli = path.resolve(import.meta.dirname, '../../server/dist/cli/trader.js');

/** Creates a trader with the CLI (`--no-account` leaves out the trading account) and returns their e-mail. */
function createTrader(name: string, { noAccount = false } = {}): string {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@pipdesk.test`;
  const args = ['create', '--email', email, '--name', name, '--password-stdin'];
  if (noAccount) args.push('--no-account');
  execFileSync(process.execPath, [cli, ...args], {
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
    input: `${PASSWORD}\n`,
    stdio: 'pipe',
  });
  return email;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/login');
  await submitLogin(page, email, PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const amountOf = (text: string | null) => Number((text ?? '').replace(/[^0-9.-]/g, ''));

/** Marks the document, so a later check can tell that the page was never reloaded. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __noReload?: boolean }).__noReload = true;
  });
}

async function expectSameDocument(page: Page): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
}

async function placeFromDashboard(page: Page, symbol: string, side: 'BUY' | 'SELL', lots: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Place Market Order' });
  const select = form.getByLabel('Currency Pair');
  const value = await select.locator('option', { hasText: symbol }).first().getAttribute('value');
  await select.selectOption(value ?? '');
  await form.getByRole('radio', { name: side }).check();
  await form.getByLabel('Lot Size').fill(lots);
  await form.getByRole('button', { name: 'Place Order' }).click();
}

test('BUY 0.10 EURUSD from the dashboard, then close it from the pair page', async ({ page }) => {
  await signIn(page, createTrader('Ada Buyer'));
  await expect(page.getByRole('status', { name: 'Data feed' })).toHaveText('Live Updates');
  const marginUsed = page.getByTestId('account-margin-used');
  const freeMargin = page.getByTestId('account-free-margin');
  const balance = page.getByTestId('account-balance');
  await expect(marginUsed).toHaveText('$0.00');
  await expect(freeMargin).toHaveText('$10,000.00');
  await expect(balance).toHaveText('$10,000.00');
  await markDocument(page);

  // The selected pair drives the bounds in the hint.
  const form = page.getByRole('form', { name: 'Place Market Order' });
  await expect(form.getByText('Minimum: 0.01, Maximum: 100.00')).toBeVisible();
  const placed = page.waitForResponse((r) => r.url().endsWith('/api/trading/place-market-order/'));
  await placeFromDashboard(page, 'EURUSD', 'BUY', '0.10');
  const answer = await placed;
  expect(answer.status()).toBe(201);
  const execution = (await answer.json()).data.execution_details as { execution_price: number; margin_required: number };

  const positions = page.getByRole('region', { name: 'Open Positions' });
  const row = positions.getByRole('row').filter({ has: page.getByRole('link', { name: 'EURUSD' }) });
  await expect(row).toContainText('LONG');
  await expect(row).toContainText('0.10');
  await expect(row).toContainText(execution.execution_price.toFixed(5));
  // Margin Used and Free Margin move on screen: about the margin the order needed (prices move on).
  await expect(marginUsed).not.toHaveText('$0.00');
  expect(Math.abs(amountOf(await marginUsed.textContent()) - execution.margin_required)).toBeLessThan(5);
  await expect(freeMargin).not.toHaveText('$10,000.00');
  expect(amountOf(await freeMargin.textContent())).toBeLessThan(10_000 - execution.margin_required + 5);
  // The live P&L ticks without any reload.
  const pnl = row.locator('[data-testid^="pnl-"]');
  await expect(pnl).toHaveText(/^[+-]?\$\d+\.\d{2}$/);
  await expectSameDocument(page);
  await expect(form.getByLabel('Lot Size')).toHaveValue('0.01');

  // Close it from the pair page.
  await row.getByRole('link', { name: 'EURUSD' }).click();
  await expect(page).toHaveURL(/\/pair\/EURUSD$/);
  const pairPositions = page.getByRole('region', { name: 'Open Positions' });
  await expect(pairPositions.getByRole('status', { name: 'Positions feed' })).toHaveText('Live');
  const accountInfo = page.getByRole('region', { name: 'Account Info' });
  await expect(accountInfo).toContainText('Balance$10,000.00');
  await expect(accountInfo).toContainText('Leverage100:1');

  let confirmText = '';
  page.once('dialog', (dialog) => {
    confirmText = dialog.message();
    void dialog.accept();
  });
  const closed = page.waitForResponse((r) => /\/api\/trading\/close-position\/\d+\/$/.test(r.url()));
  await pairPositions.getByRole('button', { name: 'Close EURUSD position' }).click();
  const closeAnswer = await closed;
  expect(confirmText).toBe('Are you sure you want to close this position?');
  expect(closeAnswer.status()).toBe(200);
  const profitLoss = (await closeAnswer.json()).data.profit_loss as number;

  await expect(pairPositions.getByText('No open positions')).toBeVisible();
  await expect(accountInfo).toContainText(`Balance${usd.format(10_000 + profitLoss)}`);
  const pairOrders = page.getByRole('region', { name: 'Recent Orders' });
  const closeOrder = pairOrders.getByRole('row').filter({ hasText: 'Close' }).first();
  await expect(closeOrder).toContainText('SELL');
  await expect(closeOrder).toContainText('Filled');

  await page.getByRole('link', { name: 'Back to Platform' }).click();
  await expect(balance).toHaveText(usd.format(10_000 + profitLoss));
  await expect(marginUsed).toHaveText('$0.00');
  const recent = page.getByRole('region', { name: 'Recent Orders' });
  await expect(recent.getByRole('row').filter({ hasText: 'Close' }).first()).toContainText('Filled');
  await expectSameDocument(page);
});

test('an order too large for the margin is refused, and the REJECTED order shows with its reason', async ({ page }) => {
  await signIn(page, createTrader('Rex Rejected'));
  await placeFromDashboard(page, 'EURUSD', 'BUY', '50');
  await expect(page.getByRole('alert')).toContainText('Insufficient free margin');
  await expect(page.getByTestId('account-margin-used')).toHaveText('$0.00');
  const recent = page.getByRole('region', { name: 'Recent Orders' });
  await expect(recent.getByRole('row').nth(1)).toContainText('Rejected');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Order History' })).toBeVisible();
  await page.getByRole('button', { name: 'Show Filters' }).click();
  await page.getByLabel('Status').selectOption({ label: 'Rejected' });
  await expect(page).toHaveURL(/[?&]status=REJECTED/);
  const orders = page.getByRole('region', { name: 'Orders' });
  const rejected = orders.getByRole('row').nth(1);
  await expect(rejected).toContainText('Rejected');
  await expect(rejected).toContainText('Insufficient free margin');
  await expect(rejected).toContainText('50.00');
  await expect(page.getByText('Showing 1 to 1 of 1 orders')).toBeVisible();
  await expect(page.getByText('Page 1 of 1')).toBeVisible();

  // The filtered view survives a reload: the filters live in the address.
  await page.reload();
  await expect(page.getByLabel('Status')).toHaveValue('REJECTED');
  await expect(orders.getByRole('row').nth(1)).toContainText('Insufficient free margin');
  await page.getByLabel('Status').selectOption({ label: 'Filled' });
  await expect(orders.getByText('No orders found')).toBeVisible();
});

test('a trader without a trading account sees Trading Not Available', async ({ page }) => {
  await signIn(page, createTrader('Nora Noaccount', { noAccount: true }));
  await expect(page.getByText('Trading Not Available:')).toBeVisible();
  await expect(page.locator('.trading-not-available')).toHaveText(
    'Trading Not Available: Please complete your registration process to access trading.',
  );
  await expect(page.getByRole('form', { name: 'Place Market Order' })).toHaveCount(0);
});

test('with the trading socket blocked the dashboard polls prices every 5 s, and goes live once it is back', async ({ page }) => {
  let blocked = true;
  await page.routeWebSocket(/\/ws\/trading\/$/, (ws) => {
    if (blocked) ws.close({ code: 1011, reason: 'blocked by the test' });
    else ws.connectToServer();
  });
  const polls: number[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('/api/trading/current-prices/') && r.status() === 200) polls.push(Date.now());
  });

  await signIn(page, createTrader('Polly Polling'));
  const badge = page.getByRole('status', { name: 'Data feed' });
  await expect(badge).toHaveText('Polling Mode (5s)');
  await expect(page.locator('.connection-indicator')).toHaveText('Connecting...');

  // Prices on screen move with the polls: one at once, then every 5 s.
  const grid = page.getByRole('region', { name: 'Available Currency Pairs' });
  await expect(grid.getByText(/^\d+\.\d{3,5}$/).first()).toBeVisible();
  const before = await grid.textContent();
  await expect.poll(() => polls.length, { timeout: 8_000 }).toBeGreaterThanOrEqual(2);
  const gap = polls[1]! - polls[0]!;
  expect(gap).toBeGreaterThan(4_000);
  expect(gap).toBeLessThan(6_500);
  await expect.poll(() => grid.textContent(), { timeout: 3_000 }).not.toBe(before);
  await expect(badge).toHaveText('Polling Mode (5s)');

  // Unblocked within the 5 attempts (3 s apart): the next attempt connects.
  blocked = false;
  await expect(badge).toHaveText('Live Updates', { timeout: 10_000 });
  await expect(page.locator('.connection-indicator')).toHaveText('Live Updates');
  // Live: no more polling.
  const pollsWhenLive = polls.length;
  await page.waitForTimeout(6_000);
  expect(polls.length).toBeLessThanOrEqual(pollsWhenLive + 1);
});
