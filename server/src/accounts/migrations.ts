import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

export function accountsMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0002_accounts': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('trader_profiles'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await withId(kind, db.schema.createTable('trading_accounts'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
          .addColumn('profile_id', 'bigint', (c) => c.notNull().references('trader_profiles.id').onDelete('cascade'))
          .addColumn('currency', 'varchar(3)', (c) => c.notNull().defaultTo('USD'))
          .addColumn('balance_minor', 'bigint', (c) => c.notNull())
          .addColumn('leverage', 'integer', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('ACTIVE'))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await withId(kind, db.schema.createTable('ledger_entries'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('kind', 'varchar(32)', (c) => c.notNull())
          .addColumn('amount_minor', 'bigint', (c) => c.notNull())
          .addColumn('balance_after_minor', 'bigint', (c) => c.notNull())
          .addColumn('reference', 'varchar(64)')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ledger_entries_account_idx').on('ledger_entries').columns(['account_id', 'id']).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('ledger_entries').execute();
        await db.schema.dropTable('trading_accounts').execute();
        await db.schema.dropTable('trader_profiles').execute();
      },
    },
    '0011_deposits': {
      // biome-ignore lint/suspicious/noExplicitAny: see 0002
      async up(db: Kysely<any>) {
        // The operator's reason for a deposit (docs/operations.md#deposits); null on every other entry.
        await db.schema.alterTable('ledger_entries').addColumn('note', 'varchar(500)').execute();
        // Accounts whose balance changed outside the servers (the CLI's deposit): every server
        // follows this table and reloads them (trading/live/account-reload.ts). Ids only grow.
        await withId(kind, db.schema.createTable('account_changes'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see 0002
      async down(db: Kysely<any>) {
        await db.schema.dropTable('account_changes').execute();
        await db.schema.alterTable('ledger_entries').dropColumn('note').execute();
      },
    },
    '0033_several_accounts': {
      // A trader may hold several accounts (docs/accounts.md): the one-account-per-user constraint
      // becomes one *primary* account per user. PostgreSQL drops the constraint; SQLite cannot drop
      // a column's UNIQUE, so it rebuilds the table (the documented twelve-step way, below).
      // biome-ignore lint/suspicious/noExplicitAny: see 0002
      async up(db: Kysely<any>) {
        if (kind === 'postgres') {
          await sql`alter table trading_accounts drop constraint trading_accounts_user_id_key`.execute(db);
          await sql`alter table trading_accounts add column kind varchar(16) not null default 'primary'`.execute(db);
          await sql`alter table trading_accounts add column name varchar(100) not null default 'Primary'`.execute(db);
        } else {
          await rebuildSqliteAccounts(db);
        }
        await sql`create unique index trading_accounts_primary_idx on trading_accounts (user_id) where kind = 'primary'`.execute(
          db,
        );
        await db.schema.createIndex('trading_accounts_user_idx').on('trading_accounts').columns(['user_id', 'id']).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see 0002
      async down(db: Kysely<any>) {
        await db.deleteFrom('trading_accounts').where('kind', '<>', 'primary').execute();
        await db.schema.dropIndex('trading_accounts_user_idx').execute();
        await db.schema.dropIndex('trading_accounts_primary_idx').execute();
        await db.schema.alterTable('trading_accounts').dropColumn('name').execute();
        await db.schema.alterTable('trading_accounts').dropColumn('kind').execute();
        if (kind === 'postgres') {
          await sql`alter table trading_accounts add constraint trading_accounts_user_id_key unique (user_id)`.execute(db);
        }
      },
    },
  };
}

/**
 * SQLite's way to change a constraint (its documentation's "making other kinds of table schema
 * changes"): with foreign keys off, a new table is filled from the old one, the old one dropped
 * and the new one renamed, in one transaction; the tables that reference `trading_accounts` keep
 * referring to it by name. Kysely runs SQLite migrations outside a transaction on one connection,
 * so the pragma and the transaction here are that connection's.
 */
// biome-ignore lint/suspicious/noExplicitAny: see 0002
async function rebuildSqliteAccounts(db: Kysely<any>): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      await sql`create table trading_accounts_new (
        id integer primary key autoincrement,
        user_id bigint not null references users(id) on delete cascade,
        profile_id bigint not null references trader_profiles(id) on delete cascade,
        currency varchar(3) not null default 'USD',
        balance_minor bigint not null,
        leverage integer not null,
        status varchar(16) not null default 'ACTIVE',
        created_at bigint not null,
        updated_at bigint not null,
        kind varchar(16) not null default 'primary',
        name varchar(100) not null default 'Primary'
      )`.execute(db);
      await sql`insert into trading_accounts_new
          (id, user_id, profile_id, currency, balance_minor, leverage, status, created_at, updated_at)
        select id, user_id, profile_id, currency, balance_minor, leverage, status, created_at, updated_at
        from trading_accounts`.execute(db);
      // Ids are never reused, even those of accounts deleted since: the new table goes on from the old one's sequence.
      await sql`delete from sqlite_sequence where name = 'trading_accounts_new'`.execute(db);
      await sql`insert into sqlite_sequence (name, seq)
        select 'trading_accounts_new', seq from sqlite_sequence where name = 'trading_accounts'`.execute(db);
      await sql`drop table trading_accounts`.execute(db);
      await sql`alter table trading_accounts_new rename to trading_accounts`.execute(db);
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken.rows[0])}`);
      await sql`commit`.execute(db);
    } catch (err) {
      await sql`rollback`.execute(db);
      throw err;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
