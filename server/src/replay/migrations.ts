import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

/** Replay sessions (docs/replay.md#sessions-and-their-calls). */
export function replayMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0036_replay_sessions': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('replay_sessions'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().unique().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('symbols', 'varchar(64)', (c) => c.notNull())
          .addColumn('start_at', 'bigint', (c) => c.notNull())
          .addColumn('clock', 'bigint', (c) => c.notNull())
          .addColumn('speed', 'integer', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // The trader's sessions, newest first.
        await db.schema.createIndex('replay_sessions_user_idx').on('replay_sessions').columns(['user_id', 'id']).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('replay_sessions').execute();
      },
    },
    '0037_replay_session_leases': {
      // One node moves a session at a time (docs/replay.md#many-nodes): the node that holds its
      // lease (`mover`, a node id) until `lease_until` (real epoch ms); 0 is no lease.
      // biome-ignore lint/suspicious/noExplicitAny: see 0036
      async up(db: Kysely<any>) {
        await db.schema.alterTable('replay_sessions').addColumn('mover', 'varchar(64)').execute();
        await db.schema
          .alterTable('replay_sessions')
          .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        // The practice account's changes, counted: a node's copy loaded before one of another node reloads.
        await db.schema
          .alterTable('replay_sessions')
          .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see 0036
      async down(db: Kysely<any>) {
        await db.schema.alterTable('replay_sessions').dropColumn('revision').execute();
        await db.schema.alterTable('replay_sessions').dropColumn('lease_until').execute();
        await db.schema.alterTable('replay_sessions').dropColumn('mover').execute();
      },
    },
  };
}
