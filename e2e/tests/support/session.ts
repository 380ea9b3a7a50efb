import { test as base, expect, type Page } from '@playwright/test';

/** The seeded demo trader (docs/operations.md#seeded-demo). */
export const DEMO = { email: 'demo@pipdesk.dev', password: 'demo-trader-2026', fullName: 'Demo Trader' } as const;

/**
 * The test runner with one automatic check: a journey fails on any uncaught page error or
 * console error (a CSP violation, a React error), except the browser's own line for a
 * request answered with an error status, which some journeys cause on purpose.
 */
export const test = base.extend<{ pageErrors: string[] }>({
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(`console: ${msg.text()}`);
      });
      await use(errors);
      expect(errors, 'errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** Fills the login form and submits it (the login screen must be showing). */
export async function submitLogin(page: Page, email: string, password: string): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Trading Platform Login' })).toBeVisible();
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in as the demo trader from a fresh page and waits for the dashboard. */
export async function signInAsDemo(page: Page): Promise<void> {
  await page.goto('/login');
  await submitLogin(page, DEMO.email, DEMO.password);
  // On a phone the greeting sits in the collapsed menu: wait for the page instead.
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
  await expect(page.getByText(`Welcome ${DEMO.fullName}`)).toBeAttached();
}

/** The tokens this browser keeps (docs/screens.md#sign-in-and-session: in browser storage). */
export function storedTokens(page: Page): Promise<{ access: string | null; refresh: string | null }> {
  return page.evaluate(() => ({
    access: localStorage.getItem('pipdesk.accessToken'),
    refresh: localStorage.getItem('pipdesk.refreshToken'),
  }));
}
