import { expect, submitLogin, test } from './support/session.js';
import { createTrader, signInAs, TRADER_PASSWORD } from './support/traders.js';

/*
 * docs/screens.md#sign-in-and-session: the sign-in returns to the page the trader was on when the
 * session ended by itself; after an explicit Logout the next trader lands on the dashboard.
 */

test('the sign-in returns to the last page after the session ended, but after Logout the next trader lands on the dashboard', async ({
  page,
}) => {
  const email = createTrader('Ezra Expired');
  await signInAs(page, email);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Orders' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Order History' })).toBeVisible();

  // The server ends the session behind the page's back (as an expiry would): the page's next call
  // (the socket is closed with it, so prices are polled) fails the refresh and shows the login.
  const tokens = await page.evaluate(() => ({
    access: localStorage.getItem('pipdesk.accessToken'),
    refresh: localStorage.getItem('pipdesk.refreshToken'),
  }));
  const ended = await page.request.post('/api/auth/logout/', {
    headers: { Authorization: `Bearer ${tokens.access}` },
    data: { refresh: tokens.refresh },
  });
  expect(ended.status()).toBe(200);
  await expect(page.getByRole('heading', { name: 'Trading Platform Login' })).toBeVisible({ timeout: 15_000 });
  await submitLogin(page, email, TRADER_PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Order History' })).toBeVisible();
  await expect(page).toHaveURL(/\/orders$/);

  // An explicit Logout on the Orders page: the next to sign in may be someone else.
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await submitLogin(page, createTrader('Nico Next'), TRADER_PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText('Welcome Nico Next')).toBeAttached();
});
