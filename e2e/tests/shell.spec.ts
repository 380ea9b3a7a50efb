import { DEMO, expect, signInAsDemo, storedTokens, submitLogin, test } from './support/session.js';

const loginHeading = { name: 'Trading Platform Login' } as const;

test('signs in with the demo credentials, sees the trader and stays signed in after a reload', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText('Please sign in to access your trading account.')).toBeVisible();
  await submitLogin(page, DEMO.email, DEMO.password);

  await expect(page.getByText('Welcome Demo Trader')).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
  const tokens = await storedTokens(page);
  expect(tokens.access).toBeTruthy();
  expect(tokens.refresh).toBeTruthy();

  await page.reload();
  await expect(page.getByText('Welcome Demo Trader')).toBeVisible();
  await expect(page.getByRole('heading', loginHeading)).toHaveCount(0);

  // The API log keeps calls but never a token or the password.
  const log = await page.evaluate(() => sessionStorage.getItem('pipdesk.apiLog') ?? '');
  expect(log).toContain('/api/auth/me/');
  expect(log).not.toContain(DEMO.password);
  expect(log).not.toContain(tokens.access!);
});

test("shows the server's message for a wrong password", async ({ page }) => {
  await page.goto('/login');
  await submitLogin(page, DEMO.email, 'not-the-password');
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
});

test('an unknown path lands on the dashboard', async ({ page }) => {
  await signInAsDemo(page);
  await page.goto('/no/such/screen');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
});

test('navigates between the screens with the current one highlighted', async ({ page }) => {
  await signInAsDemo(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Orders' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Order History' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Orders' })).toHaveAttribute('aria-current', 'page');
  await expect(nav.getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current', 'page');
  await nav.getByRole('link', { name: 'News' }).click();
  await expect(page).toHaveURL(/\/news$/);
  await expect(nav.getByRole('link', { name: 'News' })).toHaveAttribute('aria-current', 'page');
  await page.goto('/pair/EURUSD');
  await expect(page).toHaveURL(/\/pair\/EURUSD$/);
  await expect(page.getByText('Welcome Demo Trader')).toBeVisible();
  await expect(nav.getByRole('link', { name: 'News' })).not.toHaveAttribute('aria-current', 'page');
  await page.getByRole('link', { name: 'Pipdesk' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('Logout returns to the login screen, and a reload stays there', async ({ page }) => {
  await signInAsDemo(page);
  const before = await storedTokens(page);
  const logoutAnswer = page.waitForResponse('**/api/auth/logout/');
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page.getByRole('heading', loginHeading)).toBeVisible();
  expect((await logoutAnswer).status()).toBe(200);
  // The server was told: the old access token is dead at once.
  const me = await page.request.get('/api/auth/me/', { headers: { Authorization: `Bearer ${before.access}` } });
  expect(me.status()).toBe(401);
  await expect(page).toHaveURL(/\/login$/);
  expect(await storedTokens(page)).toEqual({ access: null, refresh: null });

  await page.reload();
  await expect(page.getByRole('heading', loginHeading)).toBeVisible();
  await page.goto('/orders');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', loginHeading)).toBeVisible();
});

test('the theme switch is remembered after a reload, whatever the system says', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await signInAsDemo(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.reload();
  await expect(page.getByText('Welcome Demo Trader')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test('the theme follows the system colour scheme until the trader picks one', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/login');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test.describe('at 375 px width', () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test('the mobile menu opens and navigates', async ({ page }) => {
    await signInAsDemo(page);
    const toggle = page.getByRole('button', { name: 'Open menu' });
    const ordersLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' });
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(ordersLink).toBeHidden();
    await expect(page.getByText('Welcome Demo Trader')).toBeHidden();

    await toggle.click();
    const close = page.getByRole('button', { name: 'Close menu' });
    await expect(close).toHaveAttribute('aria-expanded', 'true');
    await expect(page.getByText('Welcome Demo Trader')).toBeVisible();
    await ordersLink.click();

    await expect(page).toHaveURL(/\/orders$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Order History' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
    await expect(ordersLink).toBeHidden();
    // Nothing runs off the side of a phone screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
