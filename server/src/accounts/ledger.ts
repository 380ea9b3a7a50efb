import { type Insertable, type Kysely, sql } from 'kysely';
import { type ComposedStatement, composedStatement, dbKindOf, prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { LedgerEntriesTable, LedgerKind } from './tables.js';

// The ledger (docs/trading-rules.md#accounts-and-the-ledger): a balance changes only with its
// ledger row, written here. Other modules reach it through the accounts module's entry point.

type Q = Kysely<Database>;

// Prepared (see db/prepared.ts): every execution that realizes P&L runs them.
const balanceChange = prepare<{ accountId: number; amountMinor: number; now: number }, { balance_minor: number }>(
  'accounts.balanceChange',
  (q, value) =>
    q
      .updateTable('trading_accounts')
      .set((eb) => ({ balance_minor: eb('balance_minor', '+', value('amountMinor')), updated_at: value('now') }))
      .where('id', '=', value('accountId'))
      .returning('balance_minor'),
);

const ledgerInsert = prepare<Insertable<LedgerEntriesTable>, never>('accounts.ledgerInsert', (q, value) =>
  q.insertInto('ledger_entries').values({
    account_id: value('account_id'),
    kind: value('kind'),
    amount_minor: value('amount_minor'),
    balance_after_minor: value('balance_after_minor'),
    reference: value('reference'),
    created_at: value('created_at'),
  }),
);

type LedgerEntryValues = Omit<Insertable<LedgerEntriesTable>, 'balance_after_minor'>;

/** The new balance `changed` returns (see `withBalanceChange`). */
const CHANGED_BALANCE = sql<number>`(select "balance_minor" from "changed")`;

declare module '../db/prepared.js' {
  /** The CTEs of a balance change with its ledger row (`withBalanceChange`, `withRealizedPnl`). */
  interface ComposedCtes {
    changed: { balance_minor: number };
    ledger_entry: { id: number };
  }
}

/** The account's balance moved by `amount_minor` as a CTE (`changed`), returning the new balance. */
function withBalanceChange(
  q: ComposedStatement,
  value: <K extends 'account_id' | 'amount_minor' | 'created_at'>(name: K) => LedgerEntryValues[K],
): ComposedStatement {
  return q.with('changed', (db) =>
    db
      .updateTable('trading_accounts')
      .set((eb) => ({ balance_minor: eb('balance_minor', '+', value('amount_minor')), updated_at: value('created_at') }))
      .where('id', '=', value('account_id'))
      .returning('balance_minor'),
  );
}

/**
 * On PostgreSQL, the balance change and its ledger row in one statement (one round trip
 * instead of two on the order path: docs/order-engine.md#round-trips): the update's new balance
 * is the row's `balance_after_minor`. SQLite has no data-modifying CTE, so it runs the two.
 */
const balanceChangeWithEntry = prepare<LedgerEntryValues, { balance_after_minor: number }>(
  'accounts.balanceChangeWithEntry',
  (q, value) =>
    withBalanceChange(composedStatement(q), value)
      .insertInto('ledger_entries')
      .values({
        account_id: value('account_id'),
        kind: value('kind'),
        amount_minor: value('amount_minor'),
        balance_after_minor: CHANGED_BALANCE,
        reference: value('reference'),
        created_at: value('created_at'),
      })
      .returning('balance_after_minor'),
);

/** The values of `withRealizedPnl`: a fill's realized P&L, its reference is the fill's trade. */
export type RealizedPnlValues = Omit<LedgerEntryValues, 'kind' | 'reference'>;

/**
 * A fill's realized P&L as CTEs of the fill's own statement on PostgreSQL
 * (trading/fill-statement.ts): the balance change (`changed`) and its `realized_pnl` ledger row
 * (`ledger_entry`), whose reference `trade:<id>` names the trade the statement's `fill_trade`
 * inserts. The caller holds the account's lock, so the new balance is the one it read plus
 * the amount.
 */
export function withRealizedPnl(
  q: ComposedStatement,
  value: <K extends keyof RealizedPnlValues>(name: K) => RealizedPnlValues[K],
): ComposedStatement {
  return withBalanceChange(q, value).with('ledger_entry', (db) =>
    db
      .insertInto('ledger_entries')
      .values({
        account_id: value('account_id'),
        kind: sql.lit('realized_pnl'),
        amount_minor: value('amount_minor'),
        balance_after_minor: CHANGED_BALANCE,
        reference: sql<string>`'trade:' || (select "id" from "fill_trade")`,
        created_at: value('created_at'),
      })
      .returning('id'),
  );
}

/**
 * The only way a balance changes: one ledger row and the matching balance update, in the
 * caller's write transaction, so balance = Σ ledger always holds.
 * Returns the new balance in cents.
 */
export async function postLedgerEntry(
  trx: Q,
  entry: {
    accountId: number;
    kind: LedgerKind;
    amountMinor: number;
    reference: string | null;
    now: number;
    /** The operator's reason (a deposit); the fills' hot path has none. */
    note?: string;
  },
): Promise<number> {
  if (!Number.isSafeInteger(entry.amountMinor)) throw new Error(`Ledger amount must be integer cents, got ${entry.amountMinor}`);
  if (entry.note === undefined && dbKindOf(trx) === 'postgres') {
    // The account is locked by the caller, so it exists: an empty `changed` would fail the NOT NULL.
    const [posted] = await balanceChangeWithEntry.execute(trx, {
      account_id: entry.accountId,
      kind: entry.kind,
      amount_minor: entry.amountMinor,
      reference: entry.reference,
      created_at: entry.now,
    });
    return posted!.balance_after_minor;
  }
  const [updated] = await balanceChange.execute(trx, {
    accountId: entry.accountId,
    amountMinor: entry.amountMinor,
    now: entry.now,
  });
  if (!updated) throw new Error(`Trading account ${entry.accountId} not found`);
  const balanceAfter = updated.balance_minor;
  const row = {
    account_id: entry.accountId,
    kind: entry.kind,
    amount_minor: entry.amountMinor,
    balance_after_minor: balanceAfter,
    reference: entry.reference,
    created_at: entry.now,
  };
  // The prepared insert (and its snapshotted SQL) stays as the fills use it; a note is rare.
  if (entry.note === undefined) await ledgerInsert.execute(trx, row);
  else
    await trx
      .insertInto('ledger_entries')
      .values({ ...row, note: entry.note })
      .execute();
  return balanceAfter;
}

/** Every ledger entry of an account, oldest first (audits). */
export async function ledgerEntries(q: Q, accountId: number) {
  return q.selectFrom('ledger_entries').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** Σ ledger of an account in cents (audits and invariant tests). */
export async function ledgerSum(q: Q, accountId: number): Promise<number> {
  const row = await q
    .selectFrom('ledger_entries')
    // sum(bigint) is a numeric on PostgreSQL, which pg returns as a string.
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount_minor'), eb.lit(0)).as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
