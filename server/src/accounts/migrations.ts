import type { Kysely, Migration } from 'kysely';
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
  };
}
