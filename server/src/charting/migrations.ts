import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

/** Drawings and chart layouts, kept per trader (docs/charting.md#drawings, #layouts-and-chart-settings). */
export function chartingMigrations(kind: DbKind): Record<string, Migration> {
  return {
    // Numbered well after the others: the chart tools' modules were written side by side, each
    // taking a number of its own so none collides.
    '0030_drawings_and_layouts': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('drawings'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('symbol', 'varchar(10)', (c) => c.notNull())
          .addColumn('kind', 'varchar(8)', (c) =>
            c.notNull().check(sql`kind in ('hline', 'trend', 'ray', 'rect', 'fib', 'text')`),
          )
          .addColumn('points', 'text', (c) => c.notNull())
          .addColumn('text', 'text')
          .addColumn('color', 'varchar(7)')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // Every read and the per-pair limit ask "this trader's drawings on this pair", oldest first.
        await db.schema.createIndex('drawings_user_symbol_idx').on('drawings').columns(['user_id', 'symbol', 'id']).execute();

        await db.schema
          .createTable('chart_layouts')
          .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
          .addColumn('layout', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('chart_layouts').execute();
        await db.schema.dropTable('drawings').execute();
      },
    },
  };
}
