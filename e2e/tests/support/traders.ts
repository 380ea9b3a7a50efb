import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, submitLogin } from './session.js';

/** The password of every trader a journey creates. */
export const TRADER_PASSWORD = 'e2e-trader-password';
const cli = path.resolve(import.meta.dirname, '../../../server/dist/cli/trader.js');

/**
 * Creates a trader of the journey's own with the CLI on the suite's data directory (so journeys
 * never see each other's positions or orders) and returns their e-mail.
 */
export function createTrader(
  name: string,
  { noAccount = false, password = TRADER_PASSWORD, dataDir = process.env.E2E_DATA_DIR } = {},
): string {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@pipdesk.test`;
  // The CLI takes a password only on standard input (never in argv, where `ps` would show it).
  const args = ['create', '--email', email, '--name', name, '--password-stdin'];
  if (noAccount) args.push('--no-account');
  execFileSync(process.execPath, [cli, ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
    input: `${password}\n`,
    stdio: 'pipe',
  });
  return email;
}

/** Gives a user a role with the CLI on a data directory (the suite's by default). */
export function setRole(email: string, role: 'instructor' | 'admin', dataDir = process.env.E2E_DATA_DIR): void {
  execFileSync(process.execPath, [cli, 'role', '--email', email, '--role', role], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
    stdio: 'pipe',
  });
}

/** Signs in from the login page and waits for the dashboard. */
export async function signInAs(page: Page, email: string): Promise<void> {
  await page.goto('/login');
  await submitLogin(page, email, TRADER_PASSWORD);
  await expect(page.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
}

/** Places a market order from the dashboard's Place Market Order form. */
export async function placeFromDashboard(page: Page, symbol: string, side: 'BUY' | 'SELL', lots: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Place Market Order' });
  const select = form.getByLabel('Currency Pair');
  const value = await select.locator('option', { hasText: symbol }).first().getAttribute('value');
  await select.selectOption(value ?? '');
  await form.getByRole('radio', { name: side }).check();
  await form.getByLabel('Lot Size').fill(lots);
  await form.getByRole('button', { name: 'Place Order' }).click();
}
