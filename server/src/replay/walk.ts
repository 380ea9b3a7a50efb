import { type BarSeries, firstBarAtOrAfter, lastBarAtOrBefore, WALK_KEYS_MS, walkKeys } from '../market/index.js';

export { firstBarAtOrAfter, lastBarAtOrBefore };

/**
 * A minute of real data played as four ticks, at the live replay source's offsets
 * (market/replay-data.ts `WALK_KEYS_MS`: 0, 20, 40 and 55 s): open, the extreme nearer the
 * open, the other extreme, close (docs/replay.md#inside-a-minute).
 */
export const TICKS_PER_BAR = WALK_KEYS_MS.length;

/** How many of a bar's ticks are at or before `t` (0 to 4). */
export function ticksPassed(barOpen: number, t: number): number {
  let k = 0;
  while (k < TICKS_PER_BAR && barOpen + WALK_KEYS_MS[k]! <= t) k++;
  return k;
}

// One reused bar for walkKeys, so filling a bar's keys allocates only walkKeys' own tuple.
const scratch = { open: 0, high: 0, low: 0, close: 0, count: 0 };

/** Writes bar `i`'s four tick prices into `out` from `at`: the walk's order is market/replay-data.ts's, one rule for live and replay. */
export function fillTickPrices(series: BarSeries, i: number, out: Float64Array, at: number): void {
  scratch.open = series.open[i]!;
  scratch.high = series.high[i]!;
  scratch.low = series.low[i]!;
  scratch.close = series.close[i]!;
  const keys = walkKeys(scratch);
  out[at] = keys[0];
  out[at + 1] = keys[1];
  out[at + 2] = keys[2];
  out[at + 3] = keys[3];
}

const one = new Float64Array(TICKS_PER_BAR);

/**
 * The price of the series' last tick at or before `t`, or undefined when `t` is before its
 * first bar. In a gap this is the close before it: a missing minute is never filled in.
 */
export function priceAtOrBefore(series: BarSeries, t: number): number | undefined {
  const i = lastBarAtOrBefore(series.times, t);
  if (i < 0) return undefined;
  fillTickPrices(series, i, one, 0);
  // The bar opens at or before t, so at least its open has passed.
  return one[ticksPassed(series.times[i]!, t) - 1]!;
}
