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
    '0032_market_timeframes': {
      // A database from before the m5, m30 and d1 timeframes gets them from what it holds (m5 and
      // m30 from its minutes, d1 from its 4h candles), once; a new database has nothing to build.
      // biome-ignore lint/suspicious/noExplicitAny: see 0003_market
      async up(db: Kysely<any>) {
        for (const [timeframe, source] of [
          [5, 1],
          [30, 1],
          [1440, 240],
        ] as const) {
          await aggregateInSql(db, timeframe, source);
        }
      },
      // biome-ignore lint/suspicious/noExplicitAny: see 0003_market
      async down(db: Kysely<any>) {
        await db.deleteFrom('market_candles').where('timeframe', 'in', [5, 30, 1440]).execute();
      },
    },
  };
}

/**
 * Builds the candles of `timeframe` minutes from the stored ones of `source` minutes: first open
 * and last close by row_number over each bucket, highest high, lowest low, summed volume.
 * Existing candles are kept. (`where true`: SQLite needs a WHERE before an upsert's ON CONFLICT.)
 */
// biome-ignore lint/suspicious/noExplicitAny: see 0003_market
async function aggregateInSql(db: Kysely<any>, timeframe: number, source: number): Promise<void> {
  const size = timeframe * 60_000;
  await sql`insert into market_candles (pair_id, timeframe, time, open, high, low, close, volume)
    select pair_id, ${sql.lit(timeframe)}, bucket,
      max(case when first_rank = 1 then open end), max(high), min(low),
      max(case when last_rank = 1 then close end), sum(volume)
    from (
      select pair_id, open, high, low, close, volume, time - (time % ${sql.lit(size)}) as bucket,
        row_number() over (partition by pair_id, time - (time % ${sql.lit(size)}) order by time) as first_rank,
        row_number() over (partition by pair_id, time - (time % ${sql.lit(size)}) order by time desc) as last_rank
      from market_candles where timeframe = ${sql.lit(source)}
    ) pieces
    where true
    group by pair_id, bucket
    on conflict (pair_id, timeframe, time) do nothing`.execute(db);
}
