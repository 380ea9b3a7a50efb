import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

export function evaluationsMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0034_evaluation_programs': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('evaluation_programs'))
          .addColumn('cohort_id', 'bigint', (c) => c.notNull().references('cohorts.id').onDelete('cascade'))
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('initial_balance_minor', 'bigint', (c) => c.notNull())
          .addColumn('leverage', 'integer', (c) => c.notNull())
          .addColumn('time_zone', 'varchar(64)', (c) => c.notNull())
          .addColumn('day_start', 'varchar(5)', (c) => c.notNull())
          .addColumn('allow_self_start', 'integer', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('phases', 'text', (c) => c.notNull())
          .addColumn('created_by', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('evaluation_programs_cohort_idx')
          .on('evaluation_programs')
          .columns(['cohort_id', 'id'])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('evaluation_programs').execute();
      },
    },
    '0035_evaluation_attempts': {
      // biome-ignore lint/suspicious/noExplicitAny: see 0034
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('evaluation_attempts'))
          .addColumn('program_id', 'bigint', (c) => c.notNull().references('evaluation_programs.id').onDelete('cascade'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('account_id', 'bigint', (c) => c.notNull().unique().references('trading_accounts.id').onDelete('cascade'))
          .addColumn('phase_index', 'integer', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('started_at', 'bigint', (c) => c.notNull())
          .addColumn('phase_started_at', 'bigint', (c) => c.notNull())
          .addColumn('ended_at', 'bigint')
          .addColumn('failure', 'text')
          .addColumn('day_start_at', 'bigint', (c) => c.notNull())
          .addColumn('day_basis_minor', 'bigint', (c) => c.notNull())
          .addColumn('highest_day_end_minor', 'bigint', (c) => c.notNull())
          .addColumn('started_by', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // One active attempt per program and student (a second start is 409 ATTEMPT_ACTIVE).
        await sql`create unique index evaluation_attempts_active_idx on evaluation_attempts (program_id, user_id) where status = 'active'`.execute(
          db,
        );
        await db.schema
          .createIndex('evaluation_attempts_program_idx')
          .on('evaluation_attempts')
          .columns(['program_id', 'id'])
          .execute();
        await db.schema.createIndex('evaluation_attempts_status_idx').on('evaluation_attempts').columns(['status']).execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see 0034
      async down(db: Kysely<any>) {
        await db.schema.dropTable('evaluation_attempts').execute();
      },
    },
  };
}
