import { TIMEFRAME_MINUTES } from '@pipdesk/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { parsedMinutes, type RawBar, readRawMinutes } from '../test/raw-market.js';
import { aggregateCandles, bucketStart, LiveCandles, MINUTE_MS, type ScaledCandle } from './candles.js';
import { PAIR_SEEDS, pairFromRow, seedRow } from './catalogue.js';
import { FormingCandles } from './forming.js';
import { generateHistory } from './history.js';
import { fromScaled } from './quotes.js';
import { loadReplayData } from './replay-data.js';
import type { Pair } from './types.js';

/** Every chart timeframe above one minute, in minutes. */
const LARGER = Object.values(TIMEFRAME_MINUTES).filter((tf) => tf > 1);

/** The raw rows with high and low widened to hold open and close, as the server's parser does. */
function readRaw(symbol: string): RawBar[] {
  return readRawMinutes(symbol).map((r) => ({
    ...r,
    high: Math.max(r.high, r.open, r.close),
    low: Math.min(r.low, r.open, r.close),
  }));
}

/**
 * The reference: group the text timestamps by day and by minute of the day cut to the
 * timeframe (a d1 candle is its date), then first open, highest high, lowest low, last close,
 * summed trade count. No epoch arithmetic is shared with the code under test.
 */
function reference(rows: readonly RawBar[], tf: number) {
  const groups = new Map<string, RawBar[]>();
  for (const r of rows) {
    const minuteOfDay = Number(r.dtime.slice(11, 13)) * 60 + Number(r.dtime.slice(14, 16));
    const key = `${r.dtime.slice(0, 10)}|${tf >= 1440 ? 0 : minuteOfDay - (minuteOfDay % tf)}`;
    const list = groups.get(key) ?? [];
    list.push(r);
    groups.set(key, list);
  }
  return [...groups].map(([key, list]) => {
    const [day, minute] = key.split('|');
    return {
      time: Date.parse(`${day}T00:00:00Z`) + Number(minute) * MINUTE_MS,
      open: list[0]!.open,
      high: Math.max(...list.map((r) => r.high)),
      low: Math.min(...list.map((r) => r.low)),
      close: list.at(-1)!.close,
      volume: list.reduce((sum, r) => sum + r.count, 0),
    };
  });
}

const decimals = (c: ScaledCandle) => ({
  ...c,
  open: fromScaled(c.open),
  high: fromScaled(c.high),
  low: fromScaled(c.low),
  close: fromScaled(c.close),
});

const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD', 'USDCAD', 'EURJPY', 'EURCHF'] as const;

describe('timeframes on windows of the real one-minute data (property)', () => {
  const raw = new Map(SYMBOLS.map((s) => [s, readRaw(s)]));
  const minutes = new Map(SYMBOLS.map((s) => [s, parsedMinutes(s)]));
  /** Indices of the first minute after each gap in the data (the collector was down). */
  const gapsAfter = new Map(
    SYMBOLS.map((s) => {
      const list = minutes.get(s)!;
      return [s, list.flatMap((m, i) => (i > 0 && m.time - list[i - 1]!.time > MINUTE_MS ? [i] : []))];
    }),
  );

  /** A window: a pair, a start (anywhere, or just before a gap so the window spans it) and a length. */
  const windowArb = fc
    .record({
      symbol: fc.constantFrom(...SYMBOLS),
      nearGap: fc.boolean(),
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      before: fc.integer({ min: 0, max: 600 }),
      length: fc.integer({ min: 1, max: 3 * 1440 }),
    })
    .map(({ symbol, nearGap, at, before, length }) => {
      const list = minutes.get(symbol)!;
      const gaps = gapsAfter.get(symbol)!;
      const anchor = nearGap && gaps.length > 0 ? gaps[Math.floor(at * gaps.length)]! - before : Math.floor(at * list.length);
      const start = Math.max(0, Math.min(list.length - 1, anchor));
      return { symbol, start, end: Math.min(list.length, start + length) };
    });

  it('aggregates every timeframe like the reference, gaps staying gaps', () => {
    const seed = Number(process.env.TIMEFRAMES_SEED ?? Date.now() % 2 ** 31);
    console.log(`timeframes property seed ${seed} (replay with TIMEFRAMES_SEED=${seed})`);
    let spannedGaps = 0;
    fc.assert(
      fc.property(windowArb, ({ symbol, start, end }) => {
        const window = minutes.get(symbol)!.slice(start, end);
        const rawWindow = raw.get(symbol)!.slice(start, end);
        expect(rawWindow.length).toBe(window.length);
        if (gapsAfter.get(symbol)!.some((g) => g > start && g < end)) spannedGaps++;
        for (const tf of LARGER) {
          // Scaled prices come back to the same double the text parses to (at most 6 decimals), so equality is exact.
          expect(aggregateCandles(window, tf).map(decimals)).toEqual(reference(rawWindow, tf));
        }
      }),
      { seed, numRuns: 60 },
    );
    // The windows that start just before a gap must really have crossed some.
    expect(spannedGaps).toBeGreaterThan(0);
  });

  it('keeps the live candle of every timeframe equal to the aggregate of its minutes, tick by tick', async () => {
    const seed = Number(process.env.TIMEFRAMES_SEED ?? Date.now() % 2 ** 31);
    console.log(`forming candle property seed ${seed} (replay with TIMEFRAMES_SEED=${seed})`);
    const pair = { symbol: 'EURUSD' } as Pair;
    await fc.assert(
      fc.asyncProperty(windowArb, fc.constantFrom(...LARGER), async ({ symbol, start, end }, tf) => {
        const window = minutes.get(symbol)!.slice(start, Math.min(end, start + 1500));
        const live = new LiveCandles();
        const clock = new ManualClock(window[0]!.time);
        const played: ScaledCandle[] = [];
        // The database as the reader sees it: every minute played and closed before `before`.
        const forming = new FormingCandles(live, clock, async (_p, size, from, before) =>
          aggregateCandles(
            played.filter((m) => m.time >= from && m.time < before),
            size,
          ).find((c) => c.time === from),
        );
        await forming.prepare(pair, tf);
        for (const m of window) {
          clock.set(m.time + 59_000);
          live.roll(m.time);
          // Four ticks walk the bar: its candle comes out exact, with a count of 4.
          for (const [offset, price] of [
            [0, m.open],
            [20_000, m.high],
            [40_000, m.low],
            [55_000, m.close],
          ] as const) {
            live.apply('EURUSD', price, m.time + offset);
          }
          played.push({ ...m, volume: 4 });
          let candle = forming.candle(pair, tf);
          if (candle === undefined) {
            // Memory no longer holds the minutes since the last read (a gap over ten minutes): read again.
            await forming.prepare(pair, tf);
            candle = forming.candle(pair, tf);
          }
          const bucket = bucketStart(m.time, tf);
          let first = played.length - 1;
          while (first > 0 && played[first - 1]!.time >= bucket) first--;
          const expected = aggregateCandles(played.slice(first), tf).at(-1);
          expect(candle).toEqual(expected);
        }
      }),
      { seed, numRuns: 25 },
    );
  });
});

describe('history backfill: a year of hours, then minutes', () => {
  it('gives continuous hourly candles from the first UTC midnight, minutes only in the recent window, and consistent aggregates', () => {
    const pairs = PAIR_SEEDS.slice(0, 4).map((s, i) => pairFromRow(i + 1, { ...seedRow(s), is_active: 1 }));
    const day = 1440 * MINUTE_MS;
    const to = Date.UTC(2026, 2, 10, 14, 38);
    const from = Date.UTC(2026, 2, 8, 14);
    const hourlyFrom = Date.UTC(2025, 2, 9);
    const rows = [
      ...generateHistory({ pairs, from, to, hourlyFrom, seed: 7, replay: loadReplayData(), usePairSeries: false }),
    ].flat();
    const of = (tf: number) => rows.filter((r) => r.pairId === 1 && r.timeframe === tf);
    const hours = of(60);
    expect(hours[0]!.time).toBe(hourlyFrom);
    for (let i = 1; i < hours.length; i++) expect(hours[i]!.time - hours[i - 1]!.time).toBe(60 * MINUTE_MS);
    expect(hours.at(-1)!.time).toBe(Date.UTC(2026, 2, 10, 14));
    const ms = of(1);
    expect(ms[0]!.time).toBe(from);
    expect(ms.at(-1)!.time).toBe(to - MINUTE_MS);
    const days = of(1440);
    expect(days.length).toBe(Math.ceil((to - hourlyFrom) / day));
    for (const d of days) expect(d.time % day).toBe(0);
    for (const tf of [240, 1440]) expect(of(tf).map(({ pairId, timeframe, ...c }) => c)).toEqual(aggregateCandles(hours, tf));
    for (const tf of [5, 15, 30]) expect(of(tf).map(({ pairId, timeframe, ...c }) => c)).toEqual(aggregateCandles(ms, tf));
    // The hourly part runs into the minutes without a jump: the last sampled hour closes where the first minute opens.
    const lastSampled = hours.find((h) => h.time === from - 60 * MINUTE_MS)!;
    expect(Math.abs(lastSampled.close - ms[0]!.open)).toBeLessThan(lastSampled.close * 0.002);
  });
});
