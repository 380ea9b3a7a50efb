import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

export function authMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0001_auth': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('users'))
          .addColumn('email', 'varchar(254)', (c) => c.notNull().unique())
          .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
          .addColumn('full_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('sessions')
          .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('last_refreshed_at', 'bigint', (c) => c.notNull())
          .addColumn('revoked_at', 'bigint')
          .addColumn('revoked_reason', 'varchar(32)')
          .execute();
        await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
        await db.schema
          .createTable('refresh_tokens')
          .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('session_id', 'varchar(32)', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
          .addColumn('issued_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .execute();
        await db.schema.createIndex('refresh_tokens_session_idx').on('refresh_tokens').column('session_id').execute();
        await withId(kind, db.schema.createTable('login_failures'))
          .addColumn('scope', 'varchar(16)', (c) => c.notNull())
          .addColumn('subject', 'varchar(254)', (c) => c.notNull())
          .addColumn('failed_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('login_failures_subject_idx')
          .on('login_failures')
          .columns(['scope', 'subject', 'failed_at'])
          .execute();
        await db.schema.createIndex('login_failures_time_idx').on('login_failures').column('failed_at').execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('login_failures').execute();
        await db.schema.dropTable('refresh_tokens').execute();
        await db.schema.dropTable('sessions').execute();
        await db.schema.dropTable('users').execute();
      },
    },
    '0009_shared_secret': {
      // The generated JWT secret, shared by every node through the database (docs/operations.md#tokens-and-sessions).
      // biome-ignore lint/suspicious/noExplicitAny: see up() above
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('auth_secrets')
          .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('value', 'varchar(255)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up() above
      async down(db: Kysely<any>) {
        await db.schema.dropTable('auth_secrets').execute();
      },
    },
  };
}
