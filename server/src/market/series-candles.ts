import type { Candle } from '@pipdesk/contract';
import { aggregateCandles, bucketStart, MINUTE_MS, type ScaledCandle, toChartCandle } from './candles.js';
import { toScaled } from './quotes.js';
import { type BarSeries, firstBarAtOrAfter, lastBarAtOrBefore, WALK_KEYS_MS, walkKeys } from './replay-data.js';

/**
 * Candles of a real series as a market whose clock stands at `clock` has seen them
 * (docs/replay.md#the-chart): every minute of the file that opened at or before the clock, the
 * minute at the clock cut to the ticks of its walk played by then (open at +0 s, the nearer
 * extreme at +20 s, the other at +40 s, the close at +55 s), nothing after it. The volume is
 * the ticks played, as a live candle counts its ticks (4 for a whole minute). Aggregated to
 * `timeframeMinutes` as the live chart is (`aggregateCandles`: a bucket without a minute has no
 * candle); the `limit` newest candles that open before `before`, oldest first.
 */
export function seriesCandlesAt(
  series: BarSeries,
  clock: number,
  timeframeMinutes: number,
  window: { before?: number; limit: number },
): Candle[] {
  const size = timeframeMinutes * MINUTE_MS;
  // Minutes whose bucket opens before `before`: those before the first bucket start at or after it.
  const cutoff = window.before === undefined ? Number.POSITIVE_INFINITY : Math.ceil(window.before / size) * size;
  const end = Math.min(lastBarAtOrBefore(series.times, clock) + 1, firstBarAtOrAfter(series.times, cutoff));
  if (end <= 0 || window.limit <= 0) return [];
  // Walk back a bucket at a time until `limit` buckets are covered.
  let buckets = 0;
  let start = end;
  let current = Number.NaN;
  while (start > 0) {
    const bucket = bucketStart(series.times[start - 1]!, timeframeMinutes);
    if (bucket !== current) {
      if (buckets === window.limit) break;
      buckets++;
      current = bucket;
    }
    start--;
  }
  const minutes: ScaledCandle[] = [];
  for (let i = start; i < end; i++) minutes.push(minuteAt(series, i, clock));
  return aggregateCandles(minutes, timeframeMinutes).map(toChartCandle);
}

/** Minute `i` of the series as seen at `clock`: whole, or the part of its walk played by then. */
function minuteAt(series: BarSeries, i: number, clock: number): ScaledCandle {
  const time = series.times[i]!;
  const bar = { open: series.open[i]!, high: series.high[i]!, low: series.low[i]!, close: series.close[i]!, count: 0 };
  const elapsed = clock - time;
  if (elapsed >= WALK_KEYS_MS[3]) {
    return {
      time,
      open: toScaled(bar.open),
      high: toScaled(bar.high),
      low: toScaled(bar.low),
      close: toScaled(bar.close),
      volume: WALK_KEYS_MS.length,
    };
  }
  const keys = walkKeys(bar);
  let played = 1;
  while (played < WALK_KEYS_MS.length && WALK_KEYS_MS[played]! <= elapsed) played++;
  const seen = keys.slice(0, played);
  return {
    time,
    open: toScaled(seen[0]!),
    high: toScaled(Math.max(...seen)),
    low: toScaled(Math.min(...seen)),
    close: toScaled(seen[played - 1]!),
    volume: played,
  };
}
