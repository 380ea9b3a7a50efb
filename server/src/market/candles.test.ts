import { describe, expect, it } from 'vitest';
import { parsedMinutes as minuteCandles, type RawBar, readRawMinutes as readRaw } from '../test/raw-market.js';
import { aggregateCandles, bucketStart, LiveCandles, MINUTE_MS } from './candles.js';
import { fromScaled, toScaled } from './quotes.js';

/** The real data (server/data/replay): tests check against data nobody here generated. */

/**
 * The independent computation: group the text timestamps ("2023-04-03 12:01:00") by hour,
 * or by hour / 4, and take first open, max high, min low, last close, summed count.
 */
function expectedByText(rows: RawBar[], hoursPerCandle: number) {
  const groups = new Map<string, RawBar[]>();
  for (const r of rows) {
    const day = r.dtime.slice(0, 10);
    const hour = Number(r.dtime.slice(11, 13));
    const startHour = hour - (hour % hoursPerCandle);
    const key = `${day}T${String(startHour).padStart(2, '0')}:00:00Z`;
    const list = groups.get(key) ?? [];
    list.push(r);
    groups.set(key, list);
  }
  return [...groups.entries()].map(([key, list]) => ({
    time: Date.parse(key),
    open: list[0]!.open,
    high: Math.max(...list.map((r) => r.high)),
    low: Math.min(...list.map((r) => r.low)),
    close: list[list.length - 1]!.close,
    volume: list.reduce((s, r) => s + r.count, 0),
  }));
}

describe('candle aggregation on the real one-minute data', () => {
  for (const symbol of ['EURUSD', 'GBPUSD', 'USDJPY', 'EURCHF']) {
    it(`${symbol}: hourly and four-hour candles equal an independent computation`, () => {
      const raw = readRaw(symbol);
      const minutes = minuteCandles(symbol);
      expect(minutes.length).toBe(raw.length);
      for (const [tf, hours] of [
        [60, 1],
        [240, 4],
      ] as const) {
        const ours = aggregateCandles(minutes, tf).map((c) => ({
          time: c.time,
          open: fromScaled(c.open),
          high: fromScaled(c.high),
          low: fromScaled(c.low),
          close: fromScaled(c.close),
          volume: c.volume,
        }));
        const expected = expectedByText(raw, hours);
        expect(ours.length).toBe(expected.length);
        for (let i = 0; i < ours.length; i++) {
          const a = ours[i]!;
          const b = expected[i]!;
          expect(a.time).toBe(b.time);
          expect(a.open).toBeCloseTo(b.open, 9);
          expect(a.high).toBeCloseTo(b.high, 9);
          expect(a.low).toBeCloseTo(b.low, 9);
          expect(a.close).toBeCloseTo(b.close, 9);
          expect(a.volume).toBe(b.volume);
        }
      }
    });
  }

  it('invents no candle across the gaps in the data', () => {
    const minutes = minuteCandles('GBPUSD');
    // The file has gaps (the collector was down), the longest about two days.
    const gaps: Array<[number, number]> = [];
    for (let i = 1; i < minutes.length; i++) {
      if (minutes[i]!.time - minutes[i - 1]!.time > MINUTE_MS) gaps.push([minutes[i - 1]!.time, minutes[i]!.time]);
    }
    expect(gaps.length).toBeGreaterThan(0);
    for (const tf of [15, 60, 240]) {
      const candles = aggregateCandles(minutes, tf);
      const present = new Set(minutes.map((m) => bucketStart(m.time, tf)));
      expect(candles.map((c) => c.time)).toEqual([...present]);
      // No bucket lies wholly inside a gap.
      for (const [before, after] of gaps) {
        const inside = candles.filter((c) => c.time > before && c.time + tf * MINUTE_MS <= after);
        expect(inside).toEqual([]);
      }
    }
  });
});

describe('live one-minute candles', () => {
  const t0 = Date.UTC(2026, 0, 5, 12, 0, 0);
  const s = (price: number) => toScaled(price);

  it('builds open, high, low, close and a tick count per minute and closes it when the next minute starts', () => {
    const live = new LiveCandles();
    live.persisting = true;
    live.apply('EURUSD', s(1.1), t0 + 1_000);
    live.apply('EURUSD', s(1.102), t0 + 2_000);
    live.apply('EURUSD', s(1.099), t0 + 30_000);
    live.apply('EURUSD', s(1.1005), t0 + 59_999);
    expect(live.liveCandle('EURUSD')).toEqual({
      time: t0,
      open: s(1.1),
      high: s(1.102),
      low: s(1.099),
      close: s(1.1005),
      volume: 4,
    });
    live.apply('EURUSD', s(1.101), t0 + 60_000);
    expect(live.liveCandle('EURUSD')!.time).toBe(t0 + 60_000);
    const queued = live.takeUnflushed();
    expect(queued).toEqual([{ symbol: 'EURUSD', candle: expect.objectContaining({ time: t0, close: s(1.1005), volume: 4 }) }]);
    expect(live.candles('EURUSD').map((c) => c.time)).toEqual([t0, t0 + 60_000]);
  });

  it('ignores a late tick of a closed minute and invents no candle for a minute without ticks', () => {
    const live = new LiveCandles();
    live.apply('EURUSD', s(1.1), t0 + 5_000);
    live.apply('EURUSD', s(1.2), t0 + 125_000);
    expect(live.apply('EURUSD', s(1.3), t0 + 10_000)).toBeUndefined();
    expect(live.candles('EURUSD').map((c) => c.time)).toEqual([t0, t0 + 120_000]);
    expect(live.candles('EURUSD')[0]!.high).toBe(s(1.1));
  });

  it('closes every stale live candle at the minute roll, even without a new tick', () => {
    const live = new LiveCandles();
    live.persisting = true;
    live.apply('EURUSD', s(1.1), t0 + 5_000);
    live.apply('USDJPY', s(150.1), t0 + 6_000);
    expect(live.roll(t0 + 59_000)).toEqual([]);
    const closed = live.roll(t0 + 60_250);
    expect(closed.map((c) => c.symbol).sort()).toEqual(['EURUSD', 'USDJPY']);
    expect(live.liveCandle('EURUSD')).toBeUndefined();
    expect(live.takeUnflushed()).toHaveLength(2);
  });
});
