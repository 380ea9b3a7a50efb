import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import { withId } from '../db/migration-helpers.js';

export function marketMigrations(kind: DbKind): Record<string, Migration> {
  return {
    '0003_market': {
      // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's types
      async up(db: Kysely<any>) {
        await withId(kind, db.schema.createTable('fx_pairs'))
          .addColumn('symbol', 'varchar(6)', (c) => c.notNull().unique())
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('base_currency', 'varchar(3)', (c) => c.notNull())
          .addColumn('quote_currency', 'varchar(3)', (c) => c.notNull())
          .addColumn('min_lot_size', 'varchar(20)', (c) => c.notNull())
          .addColumn('max_lot_size', 'varchar(20)', (c) => c.notNull())
          .addColumn('contract_size', 'integer', (c) => c.notNull())
          .addColumn('spread', 'varchar(20)', (c) => c.notNull())
          .addColumn('pip_size', 'varchar(20)', (c) => c.notNull())
          .addColumn('digits', 'integer', (c) => c.notNull())
          .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
        // No surrogate id here (unlike other tables): candles are addressed only by their natural
        // key, and a clustered (pair, timeframe, time) key makes chart reads one short range scan.
        // No foreign key to fx_pairs either: the backfill writes half a million rows and a per-row
        // check would cost seconds; pairs are never deleted (a retired pair is made inactive).
        let candles = db.schema
          .createTable('market_candles')
          .addColumn('pair_id', 'bigint', (c) => c.notNull())
          .addColumn('timeframe', 'integer', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addColumn('open', 'bigint', (c) => c.notNull())
          .addColumn('high', 'bigint', (c) => c.notNull())
          .addColumn('low', 'bigint', (c) => c.notNull())
          .addColumn('close', 'bigint', (c) => c.notNull())
          .addColumn('volume', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('market_candles_pk', ['pair_id', 'timeframe', 'time']);
        if (kind === 'sqlite') candles = candles.modifyEnd(sql`without rowid`);
        await candles.execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: see up()
      async down(db: Kysely<any>) {
        await db.schema.dropTable('market_candles').execute();
        await db.schema.dropTable('fx_pairs').execute();
      },
    },
  };
}
