import { type Kysely, type Selectable, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { dbKindOf, prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { lockForUpdate } from '../db/transaction.js';
import { postLedgerEntry } from './ledger.js';
import type { AccountKind, TradingAccountsTable } from './tables.js';

/**
 * Any Kysely handle: the database itself or a transaction. Writes must run inside `writeTransaction`.
 * Other modules read and lock these tables only through the functions here.
 */
type Q = Kysely<Database>;

export type TradingAccountRow = Selectable<TradingAccountsTable>;

export async function findProfileByUser(q: Q, userId: number) {
  return q.selectFrom('trader_profiles').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/**
 * `kind = 'primary'` as a literal in the SQL, not a parameter: PostgreSQL then matches the partial
 * unique index on the primary account (a generic plan cannot prove a parameter equals 'primary').
 */
const PRIMARY = sql.lit<AccountKind>('primary');

/** The trader's primary account (docs/accounts.md): the one every call uses when none is named. */
export async function findAccountByUser(q: Q, userId: number) {
  return q
    .selectFrom('trading_accounts')
    .selectAll()
    .where('user_id', '=', userId)
    .where('kind', '=', PRIMARY)
    .executeTakeFirst();
}

/** One of the trader's accounts by id; undefined when it is not theirs (or not at all). */
export async function findOwnAccount(q: Q, userId: number, accountId: number) {
  return q
    .selectFrom('trading_accounts')
    .selectAll()
    .where('id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** The account a call names (`accountId`), else the trader's primary one; undefined when there is none of theirs. */
export function findTraderAccount(q: Q, userId: number, accountId: number | undefined) {
  return accountId === undefined ? findAccountByUser(q, userId) : findOwnAccount(q, userId, accountId);
}

/** Every account of the trader, the primary first, then by id (the account switcher). */
export async function accountsOfUser(q: Q, userId: number) {
  return q
    .selectFrom('trading_accounts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy(sql`case when kind = 'primary' then 0 else 1 end`)
    .orderBy('id')
    .execute();
}

export async function findAccountById(q: Q, accountId: number) {
  return q.selectFrom('trading_accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

/** The account rows, with `FOR UPDATE` on PostgreSQL. */
const accountByUserForUpdate = prepare<{ key: number }, TradingAccountRow>('accounts.lockAccountByUser', (q, value, kind) =>
  lockForUpdate(
    kind,
    q.selectFrom('trading_accounts').selectAll().where('user_id', '=', value('key')).where('kind', '=', PRIMARY),
  ),
);
const accountByIdForUpdate = prepare<{ key: number }, TradingAccountRow>('accounts.lockAccountById', (q, value, kind) =>
  lockForUpdate(kind, q.selectFrom('trading_accounts').selectAll().where('id', '=', value('key'))),
);
const ownAccountForUpdate = prepare<{ id: number; user: number }, TradingAccountRow>(
  'accounts.lockOwnAccount',
  (q, value, kind) =>
    lockForUpdate(
      kind,
      q.selectFrom('trading_accounts').selectAll().where('id', '=', value('id')).where('user_id', '=', value('user')),
    ),
);

/**
 * The trader's primary account, locked for the rest of the transaction: `FOR UPDATE` on PostgreSQL
 * (SQLite's BEGIN IMMEDIATE already serializes writers). Every execution takes its account first,
 * so one account's concurrent orders never spend the same free margin.
 */
export async function lockAccountByUser(trx: Q, userId: number): Promise<TradingAccountRow | undefined> {
  return (await accountByUserForUpdate.execute(trx, { key: userId }))[0];
}

/**
 * The account a call names (`accountId`, only when it is the trader's), else their primary one,
 * locked as `lockAccountByUser` does.
 */
export async function lockTraderAccount(
  trx: Q,
  userId: number,
  accountId: number | undefined,
): Promise<TradingAccountRow | undefined> {
  if (accountId === undefined) return lockAccountByUser(trx, userId);
  return (await ownAccountForUpdate.execute(trx, { id: accountId, user: userId }))[0];
}

export async function lockAccountById(trx: Q, accountId: number): Promise<TradingAccountRow | undefined> {
  return (await accountByIdForUpdate.execute(trx, { key: accountId }))[0];
}

/**
 * The trader's profile and, when there is one, their account: the one named by `accountId`, else
 * the primary one (null columns without).
 */
export async function findAccountAndProfile(q: Q, userId: number, accountId?: number) {
  return q
    .selectFrom('trader_profiles')
    .leftJoin('trading_accounts', (join) =>
      accountId === undefined
        ? join.onRef('trading_accounts.profile_id', '=', 'trader_profiles.id').on('trading_accounts.kind', '=', PRIMARY)
        : join.onRef('trading_accounts.profile_id', '=', 'trader_profiles.id').on('trading_accounts.id', '=', accountId),
    )
    .select([
      'trader_profiles.id as profile_id',
      'trading_accounts.id as account_id',
      'trading_accounts.balance_minor',
      'trading_accounts.leverage',
      'trading_accounts.currency',
      'trading_accounts.status',
    ])
    .where('trader_profiles.user_id', '=', userId)
    .executeTakeFirst();
}

/** Ids per query of `accountsByIds`: far below SQLite's and PostgreSQL's limits on bound values. */
const IDS_PER_QUERY = 500;

/** What the live book keeps of each account, and its kind, for these ids, ordered by id (a start-up read). */
export async function accountsByIds(q: Q, ids: readonly number[]) {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const rows = [];
  for (let i = 0; i < sorted.length; i += IDS_PER_QUERY) {
    const chunk = sorted.slice(i, i + IDS_PER_QUERY);
    rows.push(
      ...(await q
        .selectFrom('trading_accounts')
        .select(['id', 'user_id', 'balance_minor', 'leverage', 'status', 'kind'])
        .where('id', 'in', chunk)
        .orderBy('id')
        .execute()),
    );
  }
  return rows;
}

/**
 * Locks those of these accounts (at most a few hundred ids) that no other transaction holds,
 * and returns their rows as they are once locked: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so
 * the caller never waits for a lock while holding others, and so never deadlocks or holds up
 * the accounts it already has. SQLite: the write transaction already serializes; all are returned.
 */
export async function lockFreeAccounts(trx: Q, ids: readonly number[]) {
  if (ids.length === 0) return [];
  const query = trx
    .selectFrom('trading_accounts')
    .select(['id', 'user_id', 'balance_minor', 'leverage', 'status', 'kind'])
    .where('id', 'in', ids)
    .orderBy('id');
  return (dbKindOf(trx) === 'postgres' ? query.forUpdate().skipLocked() : query).execute();
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
  const accountId = await insertFundedAccount(trx, { ...input, profileId: profile.id, kind: 'primary', name: 'Primary' });
  return { profileId: profile.id, accountId };
}

/** A USD account of a profile, funded by a deposit ledger entry (its balance is its ledger's sum from the start). */
async function insertFundedAccount(
  trx: Q,
  input: {
    userId: number;
    profileId: number;
    kind: AccountKind;
    name: string;
    balanceMinor: number;
    leverage: number;
    now: number;
  },
): Promise<number> {
  const account = await trx
    .insertInto('trading_accounts')
    .values({
      user_id: input.userId,
      profile_id: input.profileId,
      kind: input.kind,
      name: input.name,
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
  return Number(account.id);
}

/**
 * Opens another account for a trader who has a profile (docs/accounts.md): a `challenge` or
 * `practice` account, funded by a deposit ledger entry like the primary one. Run inside a write
 * transaction; undefined when the trader has no profile (registration incomplete).
 */
export async function openExtraAccount(
  trx: Q,
  input: {
    userId: number;
    kind: Exclude<AccountKind, 'primary'>;
    name: string;
    balanceMinor: number;
    leverage: number;
    now: number;
  },
): Promise<{ accountId: number } | undefined> {
  const profile = await findProfileByUser(trx, input.userId);
  if (!profile) return undefined;
  return { accountId: await insertFundedAccount(trx, { ...input, profileId: profile.id }) };
}

/** Markers older than this are deleted by the next writer: a running server reads them within seconds. */
const ACCOUNT_CHANGE_KEPT_MS = 86_400_000;

/**
 * Records, in the caller's write transaction, that an account's balance changed outside the
 * servers (docs/operations.md#deposits); every server reloads the account when it reads the row.
 * On PostgreSQL the table lock (which readers ignore) makes these ids commit in order, so a
 * reader that has seen id n never misses a smaller id committed later. SQLite writers are
 * serialized anyway.
 */
export async function recordAccountChange(trx: Q, kind: DbKind, accountId: number, now: number): Promise<number> {
  if (kind === 'postgres') await sql`lock table account_changes in share row exclusive mode`.execute(trx);
  await trx
    .deleteFrom('account_changes')
    .where('created_at', '<', now - ACCOUNT_CHANGE_KEPT_MS)
    .execute();
  const row = await trx
    .insertInto('account_changes')
    .values({ account_id: accountId, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The newest account change's id, 0 with none: where a server starts following them. */
export async function lastAccountChangeId(q: Q): Promise<number> {
  const row = await q
    .selectFrom('account_changes')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return row?.id ?? 0;
}

/** Account changes after `afterId`, oldest first, at most `limit`. */
export async function accountChangesAfter(q: Q, afterId: number, limit: number) {
  const rows = await q
    .selectFrom('account_changes')
    .select(['id', 'account_id'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, accountId: r.account_id }));
}

/** What the academy's roster reads of these users' primary accounts (docs/academy.md#the-roster), by user id. */
export async function accountsOfUsers(q: Q, userIds: readonly number[]) {
  const sorted = [...new Set(userIds)].sort((a, b) => a - b);
  const rows = [];
  for (let i = 0; i < sorted.length; i += IDS_PER_QUERY) {
    rows.push(
      ...(await q
        .selectFrom('trading_accounts')
        .select(['id', 'user_id', 'balance_minor', 'created_at'])
        .where('user_id', 'in', sorted.slice(i, i + IDS_PER_QUERY))
        .where('kind', '=', PRIMARY)
        .execute()),
    );
  }
  return rows;
}

/** Closes an account (a replay session ended, docs/replay.md): it takes no more orders; its history stays. Run inside a write transaction. */
export async function closeAccount(trx: Q, accountId: number, now: number): Promise<void> {
  await trx.updateTable('trading_accounts').set({ status: 'CLOSED', updated_at: now }).where('id', '=', accountId).execute();
}
