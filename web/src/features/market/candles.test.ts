import type { Candle } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import { mergeMinuteCandle, toChartBar } from './candles';
import { minuteCandles } from './testMarket';

const T0 = Date.UTC(2026, 2, 12, 10, 0);
const MIN = 60_000;

const live = (time: number, close: number, volume = 5): Candle => ({
  time,
  open: 1.08,
  high: Math.max(1.08, close),
  low: Math.min(1.08, close),
  close,
  volume,
});

describe('mergeMinuteCandle (docs/screens.md#pair-page: live candles aggregated per minute)', () => {
  const hour = minuteCandles(60, T0 + 59 * MIN);

  it('replaces the candle of the same minute with the live one, keeping the count', () => {
    const update = live(T0 + 59 * MIN, 1.0911, 42);
    const merged = mergeMinuteCandle(hour, update, 60);
    expect(merged).toHaveLength(60);
    expect(merged.at(-1)).toEqual(update);
    expect(merged.slice(0, -1)).toEqual(hour.slice(0, -1));
  });

  it('puts a candle whose time is inside the minute on the minute', () => {
    const merged = mergeMinuteCandle(hour, live(T0 + 59 * MIN + 12_345, 1.0911), 60);
    expect(merged).toHaveLength(60);
    expect(merged.at(-1)?.time).toBe(T0 + 59 * MIN);
    expect(merged.at(-1)?.close).toBe(1.0911);
  });

  it('starts a new candle for a new minute and drops the oldest, so the chart still shows an hour', () => {
    const next = live(T0 + 60 * MIN, 1.0905);
    const merged = mergeMinuteCandle(hour, next, 60);
    expect(merged).toHaveLength(60);
    expect(merged[0]?.time).toBe(T0 + MIN);
    expect(merged.at(-1)).toEqual(next);
    expect(merged.at(-2)).toBe(hour.at(-1));
  });

  it('fills a missed minute (gap fill after a reconnect) in time order', () => {
    const withGap = hour.filter((c) => c.time !== T0 + 57 * MIN);
    const missed = live(T0 + 57 * MIN, 1.0899);
    const merged = mergeMinuteCandle(withGap, missed, 60);
    expect(merged.map((c) => c.time)).toEqual(hour.map((c) => c.time));
    expect(merged[57]).toEqual(missed);
  });

  it('ignores a candle older than a full window, and returns the same array when nothing changed', () => {
    expect(mergeMinuteCandle(hour, live(T0 - 5 * MIN, 1.07), 60)).toBe(hour);
    const last = hour.at(-1) as Candle;
    expect(mergeMinuteCandle(hour, { ...last }, 60)).toBe(hour);
  });

  it('starts an empty chart with the live candle', () => {
    expect(mergeMinuteCandle([], live(T0, 1.08), 60)).toEqual([live(T0, 1.08)]);
  });

  it('folds a run of updates into one candle per minute', () => {
    let candles: readonly Candle[] = hour;
    for (let second = 0; second < 180; second += 7) {
      candles = mergeMinuteCandle(candles, live(T0 + 60 * MIN + second * 1000, 1.08 + second / 1e5, second), 60);
    }
    expect(candles).toHaveLength(60);
    expect(candles.slice(-3).map((c) => c.time)).toEqual([T0 + 60 * MIN, T0 + 61 * MIN, T0 + 62 * MIN]);
    const times = candles.map((c) => c.time);
    for (let i = 1; i < times.length; i++) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBe(MIN);
  });
});

describe('toChartBar', () => {
  it('gives lightweight-charts the time in whole seconds UTC', () => {
    expect(toChartBar({ time: 1_773_309_600_000, open: 1, high: 2, low: 0.5, close: 1.5, volume: 3 })).toEqual({
      time: 1_773_309_600,
      open: 1,
      high: 2,
      low: 0.5,
      close: 1.5,
    });
  });
});
