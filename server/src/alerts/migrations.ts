import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

/** Price alerts (docs/charting.md#alerts). */
export function alertsMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0031_price_alerts': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('price_alerts'))
          .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('symbol', 'varchar(12)', (c) => c.notNull())
          .addColumn('condition', 'varchar(16)', (c) =>
            c.notNull().check(sql`condition in ('bid_above', 'bid_below', 'ask_above', 'ask_below')`),
          )
          .addColumn('price_e10', 'bigint', (c) => c.notNull())
          .addColumn('note', 'varchar(200)')
          .addColumn('status', 'varchar(16)', (c) => c.notNull().check(sql`status in ('ACTIVE', 'TRIGGERED', 'EXPIRED')`))
          .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint')
          .addColumn('triggered_at', 'bigint')
          .addColumn('triggered_price_e10', 'bigint')
          .execute();
        // The trader's list, newest first, by status; and the count of ACTIVE ones (the limit).
        await db.schema
          .createIndex('price_alerts_user_status_idx')
          .on('price_alerts')
          .columns(['user_id', 'status', 'id'])
          .execute();
        // A new leader loads every ACTIVE alert: only those rows are indexed.
        await db.schema
          .createIndex('price_alerts_active_idx')
          .on('price_alerts')
          .column('id')
          .where(sql.ref('status'), '=', 'ACTIVE')
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('price_alerts').execute();
      },
    },
  };
}
