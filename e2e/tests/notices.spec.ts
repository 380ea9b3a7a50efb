import { expect, test } from './support/session.js';
import { createTrader, placeFromDashboard, signInAs } from './support/traders.js';

/*
 * Notices (docs/screens.md#notices): what happened on the account shows on whatever page the
 * trader is on, from the trading socket, in the "Notifications" region; never a window.alert.
 */

test('a fill made in another tab shows a notice on the page this tab is on', async ({ page }) => {
  await signInAs(page, createTrader('Tess Twotabs'));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'News' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Latest News' })).toBeVisible();
  await expect(page.locator('.connection-indicator')).toHaveText('Live Updates');
  page.on('dialog', (dialog) => {
    throw new Error(`unexpected dialog: ${dialog.message()}`);
  });

  // The second tab shares this browser's session (its tokens are in localStorage).
  const other = await page.context().newPage();
  await other.goto('/');
  await expect(other.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
  const placed = other.waitForResponse((r) => r.url().endsWith('/api/trading/place-market-order/'));
  await placeFromDashboard(other, 'EURUSD', 'BUY', '0.10');
  const answer = await placed;
  expect(answer.status()).toBe(201);
  const price = (await answer.json()).data.order.average_fill_price as number;

  const notices = page.getByRole('region', { name: 'Notifications' });
  const notice = notices.getByRole('listitem').filter({ hasText: 'Order filled' });
  await expect(notice).toHaveText(`Order filledBUY 0.10 EURUSD filled at ${price.toFixed(5)}`);
  await expect(notices.getByRole('listitem')).toHaveCount(1);
  await expect(page).toHaveURL(/\/news$/);
  await other.close();
});

test("the dashboard's Open Positions has Close, with the pair page's confirmation", async ({ page }) => {
  await signInAs(page, createTrader('Cleo Closer'));
  await placeFromDashboard(page, 'EURUSD', 'BUY', '0.10');
  const positions = page.getByRole('region', { name: 'Open Positions' });
  const close = positions.getByRole('button', { name: 'Close EURUSD position' });
  await expect(close).toBeVisible();

  // Dismissed: nothing is sent.
  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.dismiss();
  });
  await close.click();
  expect(asked).toBe('Are you sure you want to close this position?');
  await expect(close).toBeVisible();

  page.once('dialog', (dialog) => void dialog.accept());
  const closed = page.waitForResponse((r) => /\/api\/trading\/close-position\/\d+\/$/.test(r.url()));
  await close.click();
  expect((await closed).status()).toBe(200);
  await expect(positions.getByText('No open positions')).toBeVisible();
  await expect(page.getByTestId('account-margin-used')).toHaveText('$0.00');
  await expect(page.getByRole('region', { name: 'Notifications' }).getByText('Position closed')).toBeVisible();
});
