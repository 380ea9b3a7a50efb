import type { Candle } from '@pipdesk/contract';

export const MINUTE_MS = 60_000;

/** The start of the minute `time` (epoch ms) falls in. */
export function minuteOf(time: number): number {
  return Math.floor(time / MINUTE_MS) * MINUTE_MS;
}

/**
 * Folds a live one-minute candle from the price socket into the 1H chart (docs/screens.md#pair-page: live
 * updates aggregated per minute). The socket's candle is the server's whole aggregate of
 * its minute, so it replaces the chart's candle of the same minute; a candle of a new
 * minute is appended and the oldest dropped, so the chart keeps showing `keep` minutes;
 * a closed candle the client missed (gap fill after a reconnect) takes its place in time
 * order. Returns the same array when nothing changed, so React skips the render.
 */
export function mergeMinuteCandle(candles: readonly Candle[], update: Candle, keep: number): readonly Candle[] {
  return mergeCandle(candles, update, keep, MINUTE_MS);
}

/**
 * `mergeMinuteCandle` for candles of `periodMs` (a chart timeframe, DESIGN §18): the update's
 * time is put at the start of its period (UTC multiples, so d1 opens at 00:00 UTC).
 */
export function mergeCandle(candles: readonly Candle[], update: Candle, keep: number, periodMs: number): readonly Candle[] {
  const start = Math.floor(update.time / periodMs) * periodMs;
  const candle = update.time === start ? update : { ...update, time: start };
  const last = candles.at(-1);
  if (!last || candle.time > last.time) return [...candles, candle].slice(-keep);
  if (candle.time === last.time) return sameCandle(last, candle) ? candles : [...candles.slice(0, -1), candle];
  // Older than the newest: a missed candle of the gap fill. Older than the window: nothing to show.
  const first = candles[0];
  if (first && candle.time < first.time && candles.length >= keep) return candles;
  const index = candles.findIndex((c) => c.time >= candle.time);
  const at = candles[index];
  if (at && at.time === candle.time) {
    if (sameCandle(at, candle)) return candles;
    return [...candles.slice(0, index), candle, ...candles.slice(index + 1)];
  }
  return [...candles.slice(0, index), candle, ...candles.slice(index)].slice(-keep);
}

/**
 * The candles to `update` when `next` only changed the newest candle or added one after it
 * (the live candle), else null: whatever is drawn from them must be given everything again.
 */
export function liveTail(shown: readonly Candle[], next: readonly Candle[]): Candle[] | null {
  if (shown.length === 0 || next.length < shown.length || next.length > shown.length + 1) return null;
  for (let i = 0; i < shown.length - 1; i++) if (shown[i] !== next[i]) return null;
  const lastShown = shown.at(-1);
  const lastKept = next[shown.length - 1];
  if (!lastShown || !lastKept || lastKept.time !== lastShown.time) return null;
  return next.slice(shown.length - 1);
}

function sameCandle(a: Candle, b: Candle): boolean {
  return a.open === b.open && a.high === b.high && a.low === b.low && a.close === b.close && a.volume === b.volume;
}

/** A candle as lightweight-charts draws it: the contract's prices, time in whole seconds UTC, no volume. */
export type ChartBar = Pick<Candle, 'time' | 'open' | 'high' | 'low' | 'close'>;

export function toChartBar(candle: Candle): ChartBar {
  return { time: Math.floor(candle.time / 1000), open: candle.open, high: candle.high, low: candle.low, close: candle.close };
}
