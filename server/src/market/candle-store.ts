import type { AppContext } from '../core/context.js';
import { writeTransaction } from '../db/transaction.js';
import {
  AGGREGATE_TIMEFRAMES,
  aggregateCandles,
  bucketStart,
  DAY_MINUTES,
  MINUTE_MS,
  type ScaledCandle,
  SUB_HOURLY_TIMEFRAMES,
} from './candles.js';
import { generateHistory } from './history.js';
import { fromScaled } from './quotes.js';
import type { BarSeries } from './replay-data.js';
import {
  analyzeCandles,
  bulkInsertCandles,
  type CandleRow,
  candlesIn,
  deleteCandlesIn,
  lastMinuteCandle,
  oldestCandleTime,
  upsertCandles,
} from './repo.js';
import type { Pair } from './types.js';

/** Aggregates recomputed from the minutes of a four-hour window; d1 is then built from that day's six 4h candles. */
const FROM_MINUTES = AGGREGATE_TIMEFRAMES.filter((tf) => tf <= 240);
const WINDOW = 240;
const DAY_MS = DAY_MINUTES * MINUTE_MS;

/**
 * Writes candles: closed one-minute candles in batches (with the 15m/1h/4h candles that
 * contain them recomputed in the same transaction), and the history backfill.
 */
export class CandleStore {
  /**
   * Candles the database did not take yet (an outage), by pair, timeframe and minute, oldest
   * first; retried with every later write and bounded by CANDLE_WRITE_BUFFER
   * (docs/operations.md#database-outages).
   */
  private readonly pending = new Map<string, CandleRow>();

  constructor(private readonly ctx: AppContext) {}

  /**
   * Writes one-minute candles (and those still pending from failed writes) and refreshes their
   * aggregates. A failed write keeps the rows for the next call instead of throwing; past the
   * buffer's bound the oldest are dropped, and said so in the log.
   */
  async write(rows: readonly CandleRow[]): Promise<void> {
    for (const r of rows) this.pending.set(`${r.pairId}:${r.timeframe}:${r.time}`, r);
    const excess = this.pending.size - this.ctx.config.candleWriteBuffer;
    if (excess > 0) {
      const dropped = [...this.pending.keys()].slice(0, excess);
      for (const key of dropped) this.pending.delete(key);
      this.ctx.log.error(
        { dropped: excess, buffer: this.ctx.config.candleWriteBuffer },
        'candle write buffer full: the oldest one-minute candles are lost',
      );
    }
    const batch = [...this.pending];
    if (batch.length === 0) return;
    try {
      await this.writeNow(batch.map(([, row]) => row));
    } catch (err) {
      this.ctx.log.warn(
        { reason: (err as Error)?.message, pending: this.pending.size },
        'writing candles failed; kept in memory and retried with the next write (lost if the server stops first)',
      );
      return;
    }
    // Only what was written: a newer version of a candle queued meanwhile stays.
    for (const [key, row] of batch) if (this.pending.get(key) === row) this.pending.delete(key);
  }

  /** Candles waiting for the database (tests; the outage log line says it too). */
  pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Aggregates are recomputed from the stored minutes of each touched four-hour window (and the
   * day from its 4h candles: 6 rows, not 1,440), so a retried or repeated write cannot double count.
   */
  private async writeNow(rows: readonly CandleRow[]): Promise<void> {
    const windows = new Map<string, { pairId: number; start: number }>();
    const days = new Map<string, { pairId: number; start: number }>();
    for (const r of rows) {
      const start = bucketStart(r.time, WINDOW);
      windows.set(`${r.pairId}:${start}`, { pairId: r.pairId, start });
      const day = bucketStart(r.time, DAY_MINUTES);
      days.set(`${r.pairId}:${day}`, { pairId: r.pairId, start: day });
    }
    await writeTransaction(this.ctx.db, async (trx) => {
      await upsertCandles(trx, rows);
      const aggregates: CandleRow[] = [];
      for (const { pairId, start } of windows.values()) {
        const minutes = await candlesIn(trx, pairId, 1, { from: start, before: start + WINDOW * MINUTE_MS });
        for (const tf of FROM_MINUTES) {
          for (const a of aggregateCandles(minutes, tf)) aggregates.push({ pairId, timeframe: tf, ...a });
        }
      }
      await upsertCandles(trx, aggregates);
      const daily: CandleRow[] = [];
      for (const { pairId, start } of days.values()) {
        const fourHours = await candlesIn(trx, pairId, WINDOW, { from: start, before: start + DAY_MS });
        for (const a of aggregateCandles(fourHours, DAY_MINUTES)) daily.push({ pairId, timeframe: DAY_MINUTES, ...a });
      }
      await upsertCandles(trx, daily);
    });
  }

  /**
   * Deletes the one-minute to 30-minute candles that opened before `before` (hourly and above
   * stay), a day per statement so no delete holds the write lock for long. Returns the rows
   * deleted.
   */
  async prune(pairs: readonly Pair[], before: number): Promise<number> {
    let deleted = 0;
    for (const pair of pairs) {
      for (const tf of SUB_HOURLY_TIMEFRAMES) {
        const oldest = await oldestCandleTime(this.ctx.db.kysely, pair.id, tf);
        if (oldest === undefined) continue;
        for (let from = bucketStart(oldest, DAY_MINUTES); from < before; from += DAY_MS) {
          const to = Math.min(before, from + DAY_MS);
          deleted += await writeTransaction(this.ctx.db, (trx) => deleteCandlesIn(trx, pair.id, tf, from, to));
        }
      }
    }
    return deleted;
  }

  /** The newest stored one-minute candle of each pair (pairs without history are absent). */
  async lastCandles(pairs: readonly Pair[]): Promise<Map<string, ScaledCandle>> {
    const out = new Map<string, ScaledCandle>();
    for (const pair of pairs) {
      const last = await lastMinuteCandle(this.ctx.db.kysely, pair.id);
      if (last) out.set(pair.symbol, last);
    }
    return out;
  }

  /**
   * Fills `days` of one-minute history (from the hour `days` ago, with every aggregate) and,
   * before it, hourly history back to the UTC midnight `hourlyDays` ago, up to and including the
   * current minute, for the pairs that have none, in one transaction. Returns the rows written.
   * The current minute is included so the live candle resumes it (no jump at now), and a
   * start-up that crosses a minute boundary while backfilling leaves no missing minute.
   */
  async backfill(
    pairs: readonly Pair[],
    options: {
      now: number;
      days: number;
      hourlyDays: number;
      seed: number;
      replay: ReadonlyMap<string, BarSeries>;
      usePairSeries: boolean;
      allPairs: readonly Pair[];
    },
  ): Promise<number> {
    if (pairs.length === 0 || options.days <= 0) return 0;
    const to = bucketStart(options.now, 1) + MINUTE_MS;
    const from = bucketStart(to - options.days * DAY_MS, 60);
    const hourlyFrom = bucketStart(to - options.hourlyDays * DAY_MS, DAY_MINUTES);
    const wanted = new Set(pairs.map((p) => p.id));
    let written = 0;
    await writeTransaction(this.ctx.db, async (trx) => {
      // Generated for the whole catalogue so legs and crosses stay consistent; written only where missing.
      // On PostgreSQL the next day is generated while the database stores the previous one.
      let storing: Promise<void> = Promise.resolve();
      for (const chunk of generateHistory({ ...options, pairs: options.allPairs, from, to, hourlyFrom })) {
        const rows = chunk.filter((r) => wanted.has(r.pairId));
        await storing;
        storing = bulkInsertCandles(trx, this.ctx.db.kind, rows);
        written += rows.length;
      }
      await storing;
    });
    await analyzeCandles(this.ctx.db.kysely, this.ctx.db.kind);
    return written;
  }
}

/** Mids of the last candles, for a source to resume from. */
export function lastMids(last: ReadonlyMap<string, ScaledCandle>): Map<string, number> {
  return new Map([...last].map(([symbol, c]) => [symbol, fromScaled(c.close)]));
}
