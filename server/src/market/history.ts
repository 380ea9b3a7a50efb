import { AGGREGATE_TIMEFRAMES, aggregateCandles, bucketStart, DAY_MINUTES, MINUTE_MS, type ScaledCandle } from './candles.js';
import { isMajor } from './catalogue.js';
import { LegModel } from './legs.js';
import { MarketPath, type SeriesSampler } from './market-path.js';
import { PRICE_SCALE } from './quotes.js';
import { createRng } from './random.js';
import { type BarSeries, barAt, walkAt, walkKeys } from './replay-data.js';
import type { CandleRow } from './repo.js';
import type { Pair } from './types.js';

/** Instants of a minute at which history samples the path: they include the walk's four keys, so a real bar comes out exact. */
const SLOTS_MS = [0, 10_000, 20_000, 30_000, 40_000, 50_000, 55_000] as const;

export interface HistoryOptions {
  pairs: readonly Pair[];
  /** First minute (inclusive, hour-aligned) and end (exclusive, minute-aligned) of the one-minute history. */
  from: number;
  to: number;
  /**
   * Start (a UTC midnight before `from`) of the older history that is generated at a coarser
   * step and kept as hourly, four-hour and daily candles only; absent for none.
   */
  hourlyFrom?: number;
  seed: number;
  replay: ReadonlyMap<string, BarSeries>;
  /** Replay mode: a pair with its own file is that file; otherwise pairs come from their legs. */
  usePairSeries: boolean;
}

/**
 * Instants of an hour (ms) at which the older history samples the path: the hour's open and
 * close, and one of the walk's extremes every five minutes (20 s is the first extreme of a
 * real bar, 40 s the second). 14 samples instead of 420 make a year take about half a second;
 * the price stays the real one at every sample, only the hour's range comes out narrower
 * (docs/decisions.md).
 */
const HOURLY_SLOTS_MS: readonly number[] = [
  0,
  ...Array.from({ length: 12 }, (_, k) => (5 * k + 2) * MINUTE_MS + (k % 2 === 0 ? 20_000 : 40_000)),
  59 * MINUTE_MS + 55_000,
];

/** An exact walk sampler with a one-minute cache per series (history samples each minute seven times). */
export function exactSampler(): SeriesSampler {
  const cache = new Map<BarSeries, { minute: number; keys: [number, number, number, number] }>();
  return (series, time) => {
    const minute = time - (((time % MINUTE_MS) + MINUTE_MS) % MINUTE_MS);
    let entry = cache.get(series);
    if (!entry) {
      entry = { minute: Number.NaN, keys: [0, 0, 0, 0] };
      cache.set(series, entry);
    }
    if (entry.minute !== minute) {
      entry.minute = minute;
      entry.keys = walkKeys(barAt(series, minute));
    }
    return walkAt(entry.keys, time - minute);
  };
}

/**
 * Generates history in chunks of whole UTC days (so no bucket up to d1 spans two chunks):
 * from `hourlyFrom`, hourly candles sampled at HOURLY_SLOTS_MS with their 4h and daily
 * aggregates; from `from`, one-minute candles with every aggregate. Real series where the data
 * reaches, the leg model elsewhere; one model run through both parts, deterministic for a seed.
 */
export function* generateHistory(options: HistoryOptions): Generator<CandleRow[]> {
  const { pairs } = options;
  const path = new MarketPath(pairs, options.replay, options.usePairSeries);
  const model = new LegModel(path.currencies);
  const rng = createRng(options.seed, 'history');
  const sample = exactSampler();
  const legs = new Float64Array(path.currencies.length);
  const modelValue = (c: string) => model.value(c);
  const points = pairs.map((p) => 10 ** p.digits);
  const toScale = pairs.map((p) => PRICE_SCALE / 10 ** p.digits);
  const ticksPerMinute = pairs.map((p) => (isMajor(p) ? 200 : 130));
  const first = options.hourlyFrom !== undefined && options.hourlyFrom < options.from ? options.hourlyFrom : options.from;
  let lastSlotTime = first;
  const o = new Float64Array(pairs.length);
  const h = new Float64Array(pairs.length);
  const l = new Float64Array(pairs.length);
  const c = new Float64Array(pairs.length);

  /** Samples the path at `start + offsets` into o/h/l/c (in points of each pair). */
  const candleAt = (start: number, offsets: readonly number[]) => {
    h.fill(-Infinity);
    l.fill(Infinity);
    for (let s = 0; s < offsets.length; s++) {
      const t = start + offsets[s]!;
      model.step(t - lastSlotTime, rng, path.modelLegs);
      lastSlotTime = t;
      path.legValues(t, sample, modelValue, legs);
      for (let p = 0; p < pairs.length; p++) {
        const v = Math.round(path.pairMid(p, legs, t, sample) * points[p]!);
        if (s === 0) o[p] = v;
        if (v > h[p]!) h[p] = v;
        if (v < l[p]!) l[p] = v;
        c[p] = v;
      }
    }
  };
  /** The sampled candle of pair `p`, scaled, with a tick count for `minutes` minutes. */
  const scaled = (p: number, time: number, minutes: number, spread: number): ScaledCandle => {
    const k = toScale[p]!;
    const volume = Math.max(1, Math.round(ticksPerMinute[p]! * minutes * rng.between(1 - spread, 1 + spread)));
    return { time, open: o[p]! * k, high: h[p]! * k, low: l[p]! * k, close: c[p]! * k, volume };
  };

  const day = DAY_MINUTES * MINUTE_MS;
  for (let chunkStart = first; chunkStart < options.to; ) {
    const chunkEnd = Math.min(options.to, bucketStart(chunkStart, DAY_MINUTES) + day);
    const sampledHours: ScaledCandle[][] = pairs.map(() => []);
    const minutes: ScaledCandle[][] = pairs.map(() => []);
    for (let t = chunkStart; t < chunkEnd; ) {
      const coarse = t < options.from;
      candleAt(t, coarse ? HOURLY_SLOTS_MS : SLOTS_MS);
      // An hour's tick count varies less than a minute's (it is the sum of 60 of them).
      for (let p = 0; p < pairs.length; p++) {
        if (coarse) sampledHours[p]!.push(scaled(p, t, 60, 0.1));
        else minutes[p]!.push(scaled(p, t, 1, 0.4));
      }
      t += coarse ? 60 * MINUTE_MS : MINUTE_MS;
    }
    const rows: CandleRow[] = [];
    const push = (pairId: number, timeframe: number, list: readonly ScaledCandle[]) => {
      for (const a of list) {
        rows.push({ pairId, timeframe, time: a.time, open: a.open, high: a.high, low: a.low, close: a.close, volume: a.volume });
      }
    };
    for (let p = 0; p < pairs.length; p++) {
      const pairId = pairs[p]!.id;
      push(pairId, 1, minutes[p]!);
      // A day that starts sampled hourly and ends in minutes (`from` is hour-aligned) has one list of hours.
      const hours = [...sampledHours[p]!, ...aggregateCandles(minutes[p]!, 60)];
      for (const tf of AGGREGATE_TIMEFRAMES) {
        push(pairId, tf, tf === 60 ? hours : tf < 60 ? aggregateCandles(minutes[p]!, tf) : aggregateCandles(hours, tf));
      }
    }
    yield rows;
    chunkStart = chunkEnd;
  }
}
