import type { ColumnType, Generated } from 'kysely';

/** `reset`: an academy reset restores the cohort's starting balance (docs/academy.md#reset). */
export type LedgerKind = 'deposit' | 'withdrawal' | 'realized_pnl' | 'negative_balance_adjustment' | 'reset';
export type AccountStatus = 'ACTIVE' | 'SUSPENDED' | 'CLOSED';
/**
 * What an account is for (docs/accounts.md): `primary` is the spec's one, created with the trader;
 * `challenge` an evaluation attempt's; `practice` a replay session's.
 */
export type AccountKind = 'primary' | 'challenge' | 'practice';

export interface TraderProfilesTable {
  id: Generated<number>;
  user_id: number;
  created_at: number;
}

export interface TradingAccountsTable {
  id: Generated<number>;
  user_id: number;
  profile_id: number;
  /** Optional on insert: `primary` (a trader has exactly one). */
  kind: ColumnType<AccountKind, AccountKind | undefined, never>;
  /** What the account switcher shows; optional on insert (`Primary`). */
  name: ColumnType<string, string | undefined, string>;
  currency: string;
  /** Cents; always equal to the sum of the account's ledger entries. */
  balance_minor: number;
  leverage: number;
  status: AccountStatus;
  created_at: number;
  updated_at: number;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  account_id: number;
  kind: LedgerKind;
  /** Signed cents. */
  amount_minor: number;
  /** Balance right after this entry, for statements and audits. */
  balance_after_minor: number;
  /** What caused it, e.g. `trade:42` or `order:17`. */
  reference: string | null;
  /** Why, in the operator's words (a deposit by the CLI); null otherwise. Optional on insert. */
  note: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: number;
}

/**
 * One row per balance change made outside the servers (the CLI's deposit), written in the
 * change's transaction; every server reads the new rows and reloads those accounts
 * (docs/operations.md#deposits). Ids commit in order: writers take a table lock on PostgreSQL.
 */
export interface AccountChangesTable {
  id: Generated<number>;
  account_id: number;
  created_at: number;
}

/** Tables of the accounts module (trader profiles, trading accounts, the ledger). */
export interface AccountsTables {
  trader_profiles: TraderProfilesTable;
  trading_accounts: TradingAccountsTable;
  ledger_entries: LedgerEntriesTable;
  account_changes: AccountChangesTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends AccountsTables {}
}
