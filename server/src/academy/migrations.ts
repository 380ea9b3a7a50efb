import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

/** Roles, temporary passwords, cohorts with their instructors and members (docs/academy.md). */
export function academyMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0010_academy': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await db.schema
          .alterTable('users')
          .addColumn('role', 'varchar(16)', (c) =>
            c.notNull().defaultTo('trader').check(sql`role in ('trader', 'instructor', 'admin')`),
          )
          .execute();
        // 1 while the password is a temporary one an instructor's import issued (docs/academy.md#temporary-passwords).
        await db.schema
          .alterTable('users')
          .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();

        await withId(kind, db.schema.createTable('cohorts'))
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('starting_balance_minor', 'bigint', (c) => c.notNull())
          .addColumn('leverage', 'integer', (c) => c.notNull())
          .addColumn('starts_at', 'bigint')
          .addColumn('ends_at', 'bigint')
          .addColumn('allow_self_reset', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active').check(sql`status in ('active', 'archived')`))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('cohort_instructors')
          .addColumn('cohort_id', 'bigint', (c) => c.notNull().references('cohorts.id').onDelete('cascade'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('added_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('cohort_instructors_pk', ['cohort_id', 'user_id'])
          .execute();
        // "Which cohorts does this instructor teach": every scope check of an instructor asks it.
        await db.schema.createIndex('cohort_instructors_user_idx').on('cohort_instructors').column('user_id').execute();

        await db.schema
          .createTable('cohort_members')
          .addColumn('cohort_id', 'bigint', (c) => c.notNull().references('cohorts.id').onDelete('cascade'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('added_at', 'bigint', (c) => c.notNull())
          // 1 while the cohort is active; archiving a cohort clears it for its members in the same transaction.
          .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
          .addPrimaryKeyConstraint('cohort_members_pk', ['cohort_id', 'user_id'])
          .execute();
        // A trader is in at most one active cohort: the database refuses a second, whatever the race.
        await db.schema
          .createIndex('cohort_members_one_active')
          .on('cohort_members')
          .column('user_id')
          .unique()
          .where(sql.ref('active'), '=', 1)
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('cohort_members').execute();
        await db.schema.dropTable('cohort_instructors').execute();
        await db.schema.dropTable('cohorts').execute();
        await db.schema.alterTable('users').dropColumn('must_change_password').execute();
        await db.schema.alterTable('users').dropColumn('role').execute();
      },
    },
  };
}
