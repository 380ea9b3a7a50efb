import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../db/database.js';
import { runMigrations } from '../db/migrate.js';
import { allMigrations, migrateToLatest } from '../migrations.js';
import { freshDatabase, testConfig } from '../test/helpers.js';

/**
 * Migration 0033 on a database that already holds traders (docs/accounts.md): one account per
 * user becomes one primary account per user. On SQLite the table is rebuilt, so ids, every
 * reference to them and the id sequence must come through unchanged.
 */
describe('migration 0033: several accounts per trader, on a database with traders', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Db;
  // biome-ignore lint/suspicious/noExplicitAny: the schema before 0033 is not today's types
  let q: Kysely<any>;
  const now = Date.UTC(2026, 10, 1);

  beforeAll(async () => {
    fresh = await freshDatabase();
    db = openDatabase(testConfig(fresh.dataDir).database, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    q = db.kysely;
    const before = (kind: Db['kind']) =>
      Object.fromEntries(Object.entries(allMigrations(kind)).filter(([name]) => name < '0033'));
    await runMigrations(db, before);
    for (const n of [1, 2]) {
      const user = await q
        .insertInto('users')
        .values({
          email: `m${n}@example.com`,
          password_hash: 'x',
          full_name: `M ${n}`,
          is_active: 1,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const profile = await q
        .insertInto('trader_profiles')
        .values({ user_id: user.id, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const account = await q
        .insertInto('trading_accounts')
        .values({
          user_id: user.id,
          profile_id: profile.id,
          currency: 'USD',
          balance_minor: 250_000 * n,
          leverage: 100,
          status: 'ACTIVE',
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await q
        .insertInto('ledger_entries')
        .values({
          account_id: account.id,
          kind: 'deposit',
          amount_minor: 250_000 * n,
          balance_after_minor: 250_000 * n,
          created_at: now,
        })
        .execute();
    }
    // The second account is deleted before the migration: its id must never be handed out again.
    await q.deleteFrom('users').where('email', '=', 'm2@example.com').execute();
    await migrateToLatest(db);
  }, 60_000);

  afterAll(async () => {
    await db?.close();
    await fresh?.drop();
  });

  it('keeps every account as its trader’s primary one, with its ledger', async () => {
    const rows = await q.selectFrom('trading_accounts').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'primary', name: 'Primary', balance_minor: 250_000 });
    const ledger = await q.selectFrom('ledger_entries').select(['account_id']).execute();
    expect(ledger.map((r) => Number(r.account_id))).toEqual([Number(rows[0]!.id)]);
  });

  it('lets a trader hold a second account, but never a second primary one', async () => {
    const first = await q.selectFrom('trading_accounts').selectAll().executeTakeFirstOrThrow();
    const values = {
      user_id: first.user_id,
      profile_id: first.profile_id,
      currency: 'USD',
      balance_minor: 0,
      leverage: 100,
      status: 'ACTIVE',
      created_at: now,
      updated_at: now,
    };
    const second = await q
      .insertInto('trading_accounts')
      .values({ ...values, kind: 'challenge', name: 'Challenge' })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Ids go on from the old table's sequence: the deleted account's id is not reused.
    expect(Number(second.id)).toBe(Number(first.id) + 2);
    await expect(q.insertInto('trading_accounts').values(values).execute()).rejects.toThrow(/unique/i);
  });

  it('still cascades from the user to accounts and their ledger (the references survived)', async () => {
    await q.deleteFrom('users').execute();
    expect(await q.selectFrom('trading_accounts').selectAll().execute()).toEqual([]);
    expect(await q.selectFrom('ledger_entries').selectAll().execute()).toEqual([]);
    if (db.kind === 'sqlite') {
      const { rows } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(q);
      expect(rows[0]?.foreign_keys).toBe(1);
    }
  });
});
