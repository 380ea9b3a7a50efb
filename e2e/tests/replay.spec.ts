import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Locator, Page } from '@playwright/test';
import type { AxeResults } from 'axe-core';
import { expect, test } from './support/scripted-market.js';
import { signInAs } from './support/traders.js';

/*
 * Replay (DESIGN §19, docs/screens.md#replay): a session on real EURUSD prices of April 2023,
 * played, paused, stepped and sent to a later time from the pair page's replay bar of its practice account, with a
 * limit order placed from the usual ticket filling on the session's prices. The live market is
 * scripted (it never moves here), so nothing but the session's clock changes what the account sees.
 */

const START = '2023-04-04T09:00';

/** The session's price as its practice account sees it: the pair page call on `?account=`. */
async function sessionQuote(page: Page, account: string): Promise<{ bid: number; ask: number }> {
  const token = await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'));
  const answer = await page.request.get(`/api/trading/pair/EURUSD/?account=${account}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(answer.status(), await answer.text()).toBe(200);
  const data = ((await answer.json()) as { data: { price: { bid: number; ask: number } } }).data;
  return data.price;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** No serious or critical axe violation on the page as it stands (as a11y.spec.ts checks the base screens). */
async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document): Promise<AxeResults> } }).axe.run(document),
  );
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
}

async function clockText(bar: Locator): Promise<string> {
  return (await bar.getByTestId('replay-clock').textContent()) ?? '';
}

test('a replay session: start it, play and pause, fill a limit order by stepping, and find its statistics', async ({
  page,
  market,
}) => {
  test.setTimeout(120_000);
  await signInAs(page, market.createTrader('Rhea Replay'));

  // Start a session from the Replay page.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Replay' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Replay' })).toBeVisible();
  const form = page.getByRole('form', { name: 'New session' });
  await form.getByRole('checkbox', { name: 'EURUSD' }).check();
  await form.getByLabel('Start (UTC)').fill(START);
  await form.getByRole('button', { name: 'Start session' }).click();
  const sessions = page.getByRole('region', { name: 'Your sessions' });
  const row = sessions.getByRole('row').filter({ hasText: '04 Apr 2023, 09:00 UTC' });
  await expect(row).toContainText('EURUSD');
  await expect(row).toContainText('Paused');
  await expectAccessible(page);

  // Its pair page, on its practice account.
  await row.getByRole('link', { name: /^Open EURUSD/ }).click();
  await expect(page).toHaveURL(/\/pair\/EURUSD\?account=\d+/);
  const account = new URL(page.url()).searchParams.get('account') ?? '';
  const bar = page.getByRole('region', { name: 'Replay' });
  await expect(bar.getByTestId('replay-clock')).toHaveText('04 Apr 2023, 09:00 UTC');

  await expectAccessible(page);

  // Play at 60× (a session minute a second), then pause, from the keyboard: one button that turns.
  await bar.getByLabel('Speed').selectOption('60');
  await bar.getByRole('button', { name: 'Play' }).focus();
  await page.keyboard.press('Enter');
  await expect(bar.getByText('Playing')).toBeVisible();
  await expect(bar.getByRole('button', { name: 'Pause' })).toBeFocused();
  await expect(bar.getByTestId('replay-clock')).not.toHaveText('04 Apr 2023, 09:00 UTC', { timeout: 15_000 });
  await page.keyboard.press('Enter');
  await expect(bar.getByText('Paused')).toBeVisible();
  await expect(bar.getByRole('button', { name: 'Play' })).toBeFocused();

  // A BUY LIMIT 3 pips under the session's ask, with its stop and target, from the usual ticket.
  const { ask } = await sessionQuote(page, account);
  const limit = Math.round((ask - 0.0003) * 1e5) / 1e5;
  const ticket = page.getByRole('form', { name: 'Place Order' });
  await ticket.getByLabel('Order Type').selectOption('LIMIT');
  await ticket.getByLabel('Limit Price', { exact: true }).fill(limit.toFixed(5));
  await ticket.getByLabel('Lot Size').fill('0.1');
  await ticket.getByLabel('Stop Loss', { exact: true }).fill((limit - 0.003).toFixed(5));
  await ticket.getByLabel('Take Profit', { exact: true }).fill((limit + 0.005).toFixed(5));
  await ticket.getByRole('button', { name: 'Buy Limit EURUSD' }).click();
  const pending = page.getByRole('region', { name: 'Pending Orders' });
  await expect(pending.getByRole('row').filter({ hasText: limit.toFixed(5) })).toContainText('Limit');

  // Step an hour at a time until the session's price comes down to it.
  const positions = page.getByRole('region', { name: 'Open Positions' });
  const long = positions.getByRole('row').filter({ hasText: 'LONG' });
  for (let hour = 0; hour < 48 && !(await long.isVisible()); hour++) {
    const before = await clockText(bar);
    await bar.getByRole('button', { name: 'Step 1 hour' }).click();
    await expect(bar.getByTestId('replay-clock')).not.toHaveText(before);
    await expect(long.or(pending.getByRole('row').filter({ hasText: limit.toFixed(5) }))).toBeVisible();
  }
  await expect(long).toContainText('0.10');

  // Closed at the session's price: one trade for the statistics.
  page.once('dialog', (dialog) => void dialog.accept());
  const closed = page.waitForResponse((r) => /\/api\/trading\/close-position\/\d+\//.test(r.url()));
  await positions.getByRole('button', { name: 'Close EURUSD position' }).click();
  const closeAnswer = await closed;
  expect(closeAnswer.status(), await closeAnswer.text()).toBe(200);
  const profitLoss = ((await closeAnswer.json()) as { data: { profit_loss: number } }).data.profit_loss;
  await expect(positions.getByText('No open positions')).toBeVisible();

  // Go to a later time from the keyboard: the clock, and the price card on the session's price
  // (its price socket follows the session); a time back is refused in the server's words.
  const goTo = bar.getByRole('form', { name: 'Go to' });
  await goTo.getByLabel('Go to (UTC)').fill('2023-04-07T12:00');
  await goTo.getByLabel('Go to (UTC)').press('Enter');
  await expect(bar.getByTestId('replay-clock')).toHaveText('07 Apr 2023, 12:00 UTC');
  const seeked = await sessionQuote(page, account);
  const card = page.getByRole('region', { name: 'Current Price' });
  await expect(card.getByTestId('bid')).toHaveText(seeked.bid.toFixed(5));
  await expect(card.getByTestId('ask')).toHaveText(seeked.ask.toFixed(5));
  await goTo.getByLabel('Go to (UTC)').fill('2023-04-05T00:00');
  await goTo.getByRole('button', { name: 'Go' }).click();
  await expect(bar.getByText(/a seek goes forward only/)).toBeVisible();
  await expect(bar.getByTestId('replay-clock')).toHaveText('07 Apr 2023, 12:00 UTC');

  // The session on the Replay page, with its statistics.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Replay' }).click();
  const listed = page
    .getByRole('region', { name: 'Your sessions' })
    .getByRole('row')
    .filter({ hasText: '04 Apr 2023, 09:00 UTC' });
  await expect(listed).toContainText('EURUSD');
  await expect(listed).toContainText('Paused');
  const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', signDisplay: 'exceptZero' });
  await expect(listed.getByRole('cell').nth(4)).toHaveText(money.format(profitLoss));
  await expect(listed.getByRole('cell').nth(5)).toHaveText('1');
  await expect(listed.getByRole('cell').nth(6)).toHaveText(profitLoss > 0 ? '100.00%' : profitLoss < 0 ? '0.00%' : '—');
});
