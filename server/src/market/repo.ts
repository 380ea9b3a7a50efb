import { type Kysely, sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { ScaledCandle } from './candles.js';
import { pairFromRow, type seedRow } from './catalogue.js';
import type { Pair } from './types.js';

type Conn = Kysely<Database>;

/** A candle row: which pair and timeframe (minutes) it belongs to. */
export interface CandleRow extends ScaledCandle {
  pairId: number;
  timeframe: number;
}

/** Inserts the catalogue pairs that are missing; never changes existing ones (an operator may have edited them). */
export async function seedPairs(db: Conn, rows: ReturnType<typeof seedRow>[]): Promise<void> {
  await db
    .insertInto('fx_pairs')
    .values(rows)
    .onConflict((oc) => oc.column('symbol').doNothing())
    .execute();
}

export async function listPairs(db: Conn): Promise<Pair[]> {
  const rows = await db.selectFrom('fx_pairs').selectAll().orderBy('id').execute();
  return rows.map((r) => pairFromRow(r.id, r));
}

const candleColumns = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;

/** A candle row as the scaled candle it holds (the columns only: a row may carry more). */
function toScaled({ time, open, high, low, close, volume }: ScaledCandle): ScaledCandle {
  return { time, open, high, low, close, volume };
}

/** The newest one-minute candle of a pair (where its history ends), or undefined for none. */
export async function lastMinuteCandle(db: Conn, pairId: number): Promise<ScaledCandle | undefined> {
  const row = await db
    .selectFrom('market_candles')
    .select(candleColumns)
    .where('pair_id', '=', pairId)
    .where('timeframe', '=', 1)
    .orderBy('time', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toScaled(row) : undefined;
}

/** Open time of the oldest stored candle of a timeframe, or undefined for none. */
export async function oldestCandleTime(db: Conn, pairId: number, timeframe: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('market_candles')
    .select('time')
    .where('pair_id', '=', pairId)
    .where('timeframe', '=', timeframe)
    .orderBy('time', 'asc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.time) : undefined;
}

/** Deletes the candles of one timeframe with `from ≤ time < before`; returns how many. */
export async function deleteCandlesIn(
  db: Conn,
  pairId: number,
  timeframe: number,
  from: number,
  before: number,
): Promise<number> {
  const result = await db
    .deleteFrom('market_candles')
    .where('pair_id', '=', pairId)
    .where('timeframe', '=', timeframe)
    .where('time', '>=', from)
    .where('time', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Which stored candles to read: `from ≤ time < before` (either bound may be left open). */
export interface CandleWindow {
  from?: number;
  before?: number;
  /** Only the newest this many candles of the window. */
  newest?: number;
}

/** Candles of one timeframe in a window, oldest first. */
export async function candlesIn(db: Conn, pairId: number, timeframe: number, window: CandleWindow): Promise<ScaledCandle[]> {
  let query = db
    .selectFrom('market_candles')
    .select(candleColumns)
    .where('pair_id', '=', pairId)
    .where('timeframe', '=', timeframe);
  if (window.from !== undefined) query = query.where('time', '>=', window.from);
  if (window.before !== undefined) query = query.where('time', '<', window.before);
  if (window.newest === undefined) return (await query.orderBy('time', 'asc').execute()).map(toScaled);
  // Newest first so the limit keeps the right end of the window, then back to oldest first.
  const rows = await query.orderBy('time', 'desc').limit(window.newest).execute();
  return rows.map(toScaled).reverse();
}

/** Writes candles, replacing any with the same (pair, timeframe, time): the newest build of a candle wins. */
export async function upsertCandles(db: Conn, rows: readonly CandleRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('market_candles')
      .values(
        rows.slice(i, i + 500).map((r) => ({
          pair_id: r.pairId,
          timeframe: r.timeframe,
          time: r.time,
          open: r.open,
          high: r.high,
          low: r.low,
          close: r.close,
          volume: r.volume,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['pair_id', 'timeframe', 'time']).doUpdateSet((eb) => ({
          open: eb.ref('excluded.open'),
          high: eb.ref('excluded.high'),
          low: eb.ref('excluded.low'),
          close: eb.ref('excluded.close'),
          volume: eb.ref('excluded.volume'),
        })),
      )
      .execute();
  }
}

/**
 * PostgreSQL: refreshes the planner's statistics of the candles after the backfill. Until
 * autovacuum gets to it, the planner knows nothing of the rows just loaded and reads a 1,000-candle
 * chart 5–10 times slower (bench/chart-data.mjs). SQLite plans from the primary key alone.
 */
export async function analyzeCandles(db: Conn, kind: Db['kind']): Promise<void> {
  if (kind === 'postgres') await sql`analyze market_candles`.execute(db);
}

/**
 * Inserts many new candles fast (the history backfill: about half a million rows).
 * PostgreSQL: one `unnest` of column arrays per 20,000 rows. SQLite: multi-row VALUES
 * with the integers written into the statement (every value is checked to be a safe
 * integer first, so nothing but digits reaches the SQL), 2,000 rows a statement.
 */
export async function bulkInsertCandles(db: Conn, kind: Db['kind'], rows: readonly CandleRow[]): Promise<void> {
  if (kind === 'postgres') {
    for (let i = 0; i < rows.length; i += 20_000) {
      const chunk = rows.slice(i, i + 20_000);
      const col = (f: (r: CandleRow) => number) => chunk.map(f);
      await sql`insert into market_candles (pair_id, timeframe, time, open, high, low, close, volume)
        select * from unnest(${col((r) => r.pairId)}::bigint[], ${col((r) => r.timeframe)}::int[], ${col((r) => r.time)}::bigint[],
          ${col((r) => r.open)}::bigint[], ${col((r) => r.high)}::bigint[], ${col((r) => r.low)}::bigint[],
          ${col((r) => r.close)}::bigint[], ${col((r) => r.volume)}::int[])`.execute(db);
    }
    return;
  }
  for (let i = 0; i < rows.length; i += 2_000) {
    const parts: string[] = [];
    for (const r of rows.slice(i, i + 2_000)) {
      const values = [r.pairId, r.timeframe, r.time, r.open, r.high, r.low, r.close, r.volume];
      for (const v of values) if (!Number.isSafeInteger(v)) throw new Error(`candle value is not an integer: ${v}`);
      parts.push(`(${values.join(',')})`);
    }
    await sql`insert into market_candles (pair_id, timeframe, time, open, high, low, close, volume) values ${sql.raw(parts.join(','))}`.execute(
      db,
    );
  }
}
