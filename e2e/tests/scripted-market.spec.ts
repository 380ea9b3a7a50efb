import { expect, test } from './support/scripted-market.js';
import { signInAs } from './support/traders.js';

/*
 * The scripted market the order journeys run on: prices move only when a journey says so, and
 * the pair page shows each tick.
 */

test('a scripted tick is what the pair page quotes', async ({ page, market }) => {
  await signInAs(page, market.createTrader('Sam Script'));
  await page.goto('/pair/EURUSD');
  await market.tick('EURUSD', 1.12345, 1.12357);
  await expect(page.getByText('1.12345').first()).toBeVisible();
  await market.tick('EURUSD', 1.12401, 1.12413);
  await expect(page.getByText('1.12401').first()).toBeVisible();
});
