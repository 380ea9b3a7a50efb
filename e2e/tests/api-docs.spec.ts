import { expect, test } from './support/session.js';
import { createTrader, TRADER_PASSWORD } from './support/traders.js';

/*
 * The API docs page (docs/api.md#openapi) under the app's CSP: it loads its script and style
 * from our origin, lists the calls of /api/openapi.json, and sends a call with the token it got
 * by signing in. Any CSP violation (a console error, or the page's securitypolicyviolation
 * event) fails the journey.
 */

test('the API docs page works under the CSP and sends a signed-in call', async ({ page }) => {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const email = createTrader('Docs Reader');

  const answer = await page.goto('/api/docs/');
  expect(answer?.status()).toBe(200);
  expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
  await expect(page.getByRole('heading', { level: 1, name: 'Pipdesk API' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'trading' })).toBeVisible();
  await expect(page.locator('details.op')).not.toHaveCount(0);
  await expect(page.locator('#placeMarketOrder summary')).toContainText('/api/trading/place-market-order/');

  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(TRADER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('status')).toHaveText(`Signed in as ${email}`);

  const me = page.locator('#me');
  await me.locator('summary').click();
  await me.getByRole('button', { name: 'Send' }).click();
  await expect(me.locator('.answer-status')).toHaveText(/^200/);
  await expect(me.locator('pre[aria-live]')).toContainText(email);

  expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
});
