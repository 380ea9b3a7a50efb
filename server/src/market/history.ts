import { AGGREGATE_TIMEFRAMES, aggregateCandles, bucketStart, MINUTE_MS, type ScaledCandle } from './candles.js';
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
  /** First minute (inclusive) and end (exclusive), both minute-aligned. */
  from: number;
  to: number;
  seed: number;
  replay: ReadonlyMap<string, BarSeries>;
  /** Replay mode: a pair with its own file is that file; otherwise pairs come from their legs. */
  usePairSeries: boolean;
}

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
 * Generates one-minute candles for [from, to) in chunks of whole UTC days (so no 15m/1h/4h
 * bucket spans two chunks), each with its aggregates. Real series where the data reaches,
 * the leg model elsewhere; deterministic for a seed.
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
  let lastSlotTime = options.from;

  const day = 1440 * MINUTE_MS;
  const o = new Float64Array(pairs.length);
  const h = new Float64Array(pairs.length);
  const l = new Float64Array(pairs.length);
  const c = new Float64Array(pairs.length);
  for (let chunkStart = options.from; chunkStart < options.to; ) {
    const chunkEnd = Math.min(options.to, bucketStart(chunkStart, 1440) + day);
    const minutes: ScaledCandle[][] = pairs.map(() => []);
    for (let minute = chunkStart; minute < chunkEnd; minute += MINUTE_MS) {
      h.fill(-Infinity);
      l.fill(Infinity);
      for (let s = 0; s < SLOTS_MS.length; s++) {
        const t = minute + SLOTS_MS[s]!;
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
      for (let p = 0; p < pairs.length; p++) {
        const k = toScale[p]!;
        const volume = Math.max(1, Math.round(ticksPerMinute[p]! * rng.between(0.6, 1.4)));
        minutes[p]!.push({ time: minute, open: o[p]! * k, high: h[p]! * k, low: l[p]! * k, close: c[p]! * k, volume });
      }
    }
    const rows: CandleRow[] = [];
    for (let p = 0; p < pairs.length; p++) {
      const pairId = pairs[p]!.id;
      for (const tf of [1, ...AGGREGATE_TIMEFRAMES]) {
        for (const a of tf === 1 ? minutes[p]! : aggregateCandles(minutes[p]!, tf)) {
          rows.push({
            pairId,
            timeframe: tf,
            time: a.time,
            open: a.open,
            high: a.high,
            low: a.low,
            close: a.close,
            volume: a.volume,
          });
        }
      }
    }
    yield rows;
    chunkStart = chunkEnd;
  }
}
