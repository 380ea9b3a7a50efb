import type { Insertable, Kysely } from 'kysely';
import { prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { LedgerEntriesTable, LedgerKind } from './tables.js';

/** Any Kysely handle: the database itself or a transaction. Writes must run inside `writeTransaction`. */
type Q = Kysely<Database>;

export async function findProfileByUser(q: Q, userId: number) {
  return q.selectFrom('trader_profiles').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function findAccountByUser(q: Q, userId: number) {
  return q.selectFrom('trading_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function findAccountById(q: Q, accountId: number) {
  return q.selectFrom('trading_accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

/** Creates the trader profile and a USD account funded by a deposit ledger entry. Run inside a write transaction. */
export async function openAccount(
  trx: Q,
  input: { userId: number; balanceMinor: number; leverage: number; now: number },
): Promise<{ profileId: number; accountId: number }> {
  const profile = await trx
    .insertInto('trader_profiles')
    .values({ user_id: input.userId, created_at: input.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const account = await trx
    .insertInto('trading_accounts')
    .values({
      user_id: input.userId,
      profile_id: profile.id,
      currency: 'USD',
      balance_minor: 0,
      leverage: input.leverage,
      status: 'ACTIVE',
      created_at: input.now,
      updated_at: input.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.balanceMinor !== 0) {
    await postLedgerEntry(trx, {
      accountId: account.id,
      kind: 'deposit',
      amountMinor: input.balanceMinor,
      reference: null,
      now: input.now,
    });
  }
  return { profileId: Number(profile.id), accountId: Number(account.id) };
}

// Prepared (see db/prepared.ts): every execution that realizes P&L runs them.
const balanceChange = prepare<{ accountId: number; amountMinor: number; now: number }, { balance_minor: number }>((q, value) =>
  q
    .updateTable('trading_accounts')
    .set((eb) => ({ balance_minor: eb('balance_minor', '+', value('amountMinor')), updated_at: value('now') }))
    .where('id', '=', value('accountId'))
    .returning('balance_minor'),
);

const ledgerInsert = prepare<Insertable<LedgerEntriesTable>, never>((q, value) =>
  q.insertInto('ledger_entries').values({
    account_id: value('account_id'),
    kind: value('kind'),
    amount_minor: value('amount_minor'),
    balance_after_minor: value('balance_after_minor'),
    reference: value('reference'),
    created_at: value('created_at'),
  }),
);

/**
 * The only way a balance changes: one ledger row and the matching balance update, in the
 * caller's write transaction, so balance = Σ ledger always holds.
 * Returns the new balance in cents.
 */
export async function postLedgerEntry(
  trx: Q,
  entry: { accountId: number; kind: LedgerKind; amountMinor: number; reference: string | null; now: number },
): Promise<number> {
  if (!Number.isSafeInteger(entry.amountMinor)) throw new Error(`Ledger amount must be integer cents, got ${entry.amountMinor}`);
  const [updated] = await balanceChange.execute(trx, {
    accountId: entry.accountId,
    amountMinor: entry.amountMinor,
    now: entry.now,
  });
  if (!updated) throw new Error(`Trading account ${entry.accountId} not found`);
  const balanceAfter = Number(updated.balance_minor);
  await ledgerInsert.execute(trx, {
    account_id: entry.accountId,
    kind: entry.kind,
    amount_minor: entry.amountMinor,
    balance_after_minor: balanceAfter,
    reference: entry.reference,
    created_at: entry.now,
  });
  return balanceAfter;
}

/** Σ ledger of an account in cents (audits and invariant tests). */
export async function ledgerSum(q: Q, accountId: number): Promise<number> {
  const row = await q
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_minor'), eb.lit(0)).as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
