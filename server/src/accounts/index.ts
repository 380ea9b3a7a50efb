/**
 * Trader profiles, trading accounts and the ledger: created by sign-up tooling (CLI, demo
 * seed), used by trading. Balance always equals the sum of the account's ledger (docs/trading-rules.md#accounts-and-the-ledger);
 * a balance changes only with its ledger row: `repo.postLedgerEntry`, or `repo.withRealizedPnl`
 * inside a market order's fill statement on PostgreSQL.
 */
export interface NewTrader {
  email: string;
  fullName: string;
  password: string;
  /** Opening deposit in cents (default 1,000,000 = 10,000.00 USD). */
  balanceMinor?: number;
  /** Default 100. */
  leverage?: number;
  /** false: user only, no profile or account (registration incomplete). */
  withAccount?: boolean;
}

export { createAccountGate } from './gate.js';
export * from './ledger.js';
export * from './repo.js';
