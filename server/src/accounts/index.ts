import type { Kysely } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';

/**
 * Trader profiles, trading accounts and the ledger (created by the foundation, used by trading).
 * Balance always equals the sum of the account's ledger entries (DESIGN §2).
 */
export interface NewTrader {
  email: string;
  fullName: string;
  password: string;
  /** Opening deposit in cents (default 10,000.00 USD). */
  balanceMinor?: number;
  leverage?: number;
  /** false: user only, no profile or account (registration incomplete). */
  withAccount?: boolean;
}

export type { Database, Db, Kysely };
