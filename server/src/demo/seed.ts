import { createTrader } from '../accounts/service.js';
import { findUserByEmail } from '../auth/repo.js';
import type { AppContext } from '../core/context.js';
import { AppError } from '../errors.js';

export const DEMO_EMAIL = 'demo@pipdesk.dev';
export const DEMO_PASSWORD = 'demo-trader-2026';
export const DEMO_NAME = 'Demo Trader';
/** 10,000.00 USD. */
export const DEMO_BALANCE_MINOR = 1_000_000;
export const DEMO_LEVERAGE = 100;

/**
 * Seeds the demo trader (docs/operations.md#seeded-demo): a profile and a USD account of 10,000.00 (one deposit
 * ledger entry), leverage 100. Does nothing when the demo e-mail already exists, so a
 * restart, or a demo trader an operator disabled, is left alone.
 */
export async function seedDemo(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<void> {
  if (await findUserByEmail(ctx.db.kysely, DEMO_EMAIL)) return;
  try {
    await createTrader(ctx, {
      email: DEMO_EMAIL,
      fullName: DEMO_NAME,
      password: DEMO_PASSWORD,
      balanceMinor: DEMO_BALANCE_MINOR,
      leverage: DEMO_LEVERAGE,
    });
  } catch (err) {
    // Another node seeding the same new database at the same moment won the race.
    if (err instanceof AppError && err.code === 'TRADER_EXISTS') return;
    throw err;
  }
}
