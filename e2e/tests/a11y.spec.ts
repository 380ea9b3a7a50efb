import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from '@playwright/test';
import type { AxeResults, Result } from 'axe-core';
import { expect, submitLogin, test } from './support/session.js';

/*
 * Accessibility: axe-core (its default rules: WCAG 2 A/AA and best practices) on the login page,
 * the dashboard, a pair page, the orders page and the news page, at a desktop and a phone width,
 * in the system's dark and light schemes. Any serious or critical violation fails the journey.
 * The trader has a position and orders, so the tables have rows (a scroll box with rows is what
 * the phone width tests: scrollable-region-focusable).
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;
const SCHEMES = ['dark', 'light'] as const;

const PASSWORD = 'e2e-a11y-password';
const cli = path.resolve(import.meta.dirname, '../../server/dist/cli/trader.js');

/** A trader of this journey's own, made with the CLI on the suite's data directory. */
function createTrader(name: string): string {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@pipdesk.test`;
  execFileSync(process.execPath, [cli, 'create', '--email', email, '--name', name, '--password-stdin'], {
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
    input: `${PASSWORD}\n`,
    stdio: 'pipe',
  });
  return email;
}

/** One line per serious or critical violation: rule, impact, help and the first elements it names. */
function describeViolations(violations: Result[]): string[] {
  return violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} at ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 4)
        .join(' | ')}`,
  );
}

/** Runs axe on the page as it stands and fails on any serious or critical violation. */
async function expectNoSeriousViolations(page: Page, where: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not govern.
  await page.evaluate(axeSource);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document): Promise<AxeResults> } }).axe.run(document),
  );
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(describeViolations(serious), `serious or critical axe violations on ${where}`).toEqual([]);
}

/** The screens behind the sign-in, each with what shows it is ready. */
const SCREENS: Array<{ name: string; path: string; ready(page: Page): Promise<void> }> = [
  {
    name: 'dashboard',
    path: '/',
    ready: async (page) => {
      await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
      await expect(page.getByRole('region', { name: 'Open Positions' }).getByRole('row')).toHaveCount(2);
      await expect(page.getByRole('region', { name: 'Recent Orders' }).getByRole('row').nth(2)).toBeVisible();
      // The Pending Orders panel with its Modify form open, so its fields are checked too.
      const pending = page.getByRole('region', { name: 'Pending Orders' });
      await pending.getByRole('button', { name: /^Modify BUY LIMIT/ }).click();
      await expect(pending.getByRole('form', { name: /^Modify BUY Limit/ })).toBeVisible();
    },
  },
  {
    name: 'pair page',
    path: '/pair/EURUSD',
    ready: async (page) => {
      await expect(page.getByRole('heading', { level: 1 })).toContainText('EURUSD');
      await expect(page.getByTestId('price-chart')).toHaveAttribute('data-candles', /\d+/);
      await expect(page.getByRole('region', { name: 'Pending Orders' }).getByRole('row')).toHaveCount(2);
      // The position's protection editor open in place, so its inputs are checked too.
      const positions = page.getByRole('region', { name: 'Open Positions' });
      await expect(positions.getByRole('row')).toHaveCount(2);
      await positions.getByRole('button', { name: /^Edit stop loss, EURUSD position/ }).click();
      await expect(positions.getByRole('textbox', { name: 'Stop loss, EURUSD position' })).toBeFocused();
    },
  },
  {
    name: 'orders',
    path: '/orders',
    ready: async (page) => {
      await expect(page.getByRole('heading', { level: 1, name: 'Order History' })).toBeVisible();
      await expect(page.getByRole('region', { name: 'Orders', exact: true }).getByRole('row').nth(2)).toBeVisible();
      // The filters are part of the screen too.
      await page.getByRole('button', { name: 'Show Filters' }).click();
      await expect(page.getByLabel('Status')).toBeVisible();
    },
  },
  {
    name: 'news',
    path: '/news',
    ready: async (page) => {
      await expect(page.getByRole('heading', { level: 1, name: 'Latest News' })).toBeVisible();
      await expect(page.getByRole('list', { name: 'Articles' }).getByRole('listitem').first()).toBeVisible();
    },
  },
];

/**
 * A trader with an open EURUSD position, two orders (one filled, one rejected with its reason)
 * and a pending BUY LIMIT well below the market (placed through the API with the trader's token).
 */
async function traderWithOrders(page: Page): Promise<void> {
  await page.goto('/login');
  await submitLogin(page, createTrader('Axe Checker'), PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
  const form = page.getByRole('form', { name: 'Place Market Order' });
  for (const lots of ['0.10', '50']) {
    const select = form.getByLabel('Currency Pair');
    await select.selectOption((await select.locator('option', { hasText: 'EURUSD' }).first().getAttribute('value')) ?? '');
    await form.getByRole('radio', { name: 'BUY' }).check();
    await form.getByLabel('Lot Size').fill(lots);
    const placed = page.waitForResponse((r) => r.url().endsWith('/api/trading/place-market-order/'));
    await form.getByRole('button', { name: 'Place Order' }).click();
    await placed;
  }
  await expect(page.getByRole('region', { name: 'Recent Orders' }).getByRole('row').nth(2)).toBeVisible();
  const authorization = `Bearer ${await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'))}`;
  const prices = await (await page.request.get('/api/trading/current-prices/', { headers: { authorization } })).json();
  const ask = (prices as { data: Record<string, { ask: number }> }).data.EURUSD!.ask;
  const pending = await page.request.post('/api/trading/place-pending-order/', {
    headers: { authorization },
    data: { symbol: 'EURUSD', side: 'BUY', order_type: 'LIMIT', quantity: 0.1, price: Math.round(ask * 0.95 * 1e5) / 1e5 },
  });
  expect(pending.status()).toBe(201);
  await expect(page.getByRole('region', { name: 'Pending Orders' }).getByRole('row')).toHaveCount(2);
}

for (const scheme of SCHEMES) {
  for (const width of WIDTHS) {
    test.describe(`axe at ${width.name} width (${width.viewport.width} px), ${scheme} scheme`, () => {
      test.use({ viewport: width.viewport, colorScheme: scheme });

      test('the login page has no serious or critical violation', async ({ page }) => {
        await page.goto('/login');
        await expect(page.getByRole('heading', { name: 'Trading Platform Login' })).toBeVisible();
        await expectNoSeriousViolations(page, `login (${width.name}, ${scheme})`);
      });

      test('the dashboard, a pair page, the orders page and the news page have no serious or critical violation', async ({
        page,
      }) => {
        // A sign-up, three orders and four screens with their panels opened: minutes on a loaded 2-core machine.
        test.slow();
        await traderWithOrders(page);
        for (const screen of SCREENS) {
          await page.goto(screen.path);
          await screen.ready(page);
          await expectNoSeriousViolations(page, `${screen.name} (${width.name}, ${scheme})`);
        }
      });
    });
  }
}

test.describe('on a phone, a table wider than the screen', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('shows that it scrolls and can be scrolled from the keyboard', async ({ page }) => {
    await traderWithOrders(page);
    await page.goto('/orders');
    const orders = page.getByRole('region', { name: 'Orders', exact: true });
    await expect(orders.getByRole('row').nth(2)).toBeVisible();
    const box = orders.getByRole('group', { name: 'Orders' });
    await expect(box).toHaveAttribute('tabindex', '0');
    const frame = orders.locator('.table-scroll');
    await expect(frame).toHaveAttribute('data-more-right', 'true');
    await expect(frame).not.toHaveAttribute('data-more-left', /.*/);

    await box.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => box.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    await expect(frame).toHaveAttribute('data-more-left', 'true');
  });
});
