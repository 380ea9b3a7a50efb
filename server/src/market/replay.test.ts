import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { seededPairs } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { signedInTrader } from '../test/traders.js';
import { bucketStart, MINUTE_MS } from './candles.js';
import { generateHistory } from './history.js';
import { fromScaled } from './quotes.js';
import { barAt, loadReplayData, REPLAY_ANCHOR } from './replay-data.js';
import { ModelPriceSource } from './sources/model-source.js';
import { ManualTimers } from './sources/timers.js';
import type { Quote } from './types.js';

const replay = loadReplayData();
const pairs = seededPairs();
const eurusd = replay.get('EURUSD')!;

describe('replay timeline', () => {
  it('ships the real files and plays them forward, then backward, without a jump at the turns', () => {
    expect([...replay.keys()].sort()).toEqual(['AUDUSD', 'EURCHF', 'EURJPY', 'EURUSD', 'GBPUSD', 'USDCAD', 'USDJPY']);
    const n = eurusd.length;
    // 49,838 rows, three of them repeats of bars already played (data/replay/README.md).
    expect(n).toBe(49_835);
    const at = (k: number) => barAt(eurusd, REPLAY_ANCHOR + k * MINUTE_MS);
    expect(at(0)).toMatchObject({ open: 1.08635, close: 1.08646 });
    // Forward to the last bar, then the same bars backward: each turn starts where the last bar ended.
    expect(at(n).open).toBe(at(n - 1).close);
    expect(at(n).close).toBe(eurusd.open[n - 1]);
    expect(at(2 * n - 1).close).toBe(eurusd.open[0]);
    expect(at(2 * n)).toEqual(at(0));
    expect(at(-1)).toEqual(at(2 * n - 1));
  });

  it('backfills history that is the real bars for pairs with data, and consistent crosses elsewhere', () => {
    const to = bucketStart(Date.UTC(2026, 2, 10, 14, 37), 1);
    const from = to - 6 * 60 * MINUTE_MS;
    const rows = [...generateHistory({ pairs, from, to, seed: 7, replay, usePairSeries: true })].flat();
    const minutes = (symbol: string) => {
      const id = pairs.find((p) => p.symbol === symbol)!.id;
      return rows.filter((r) => r.pairId === id && r.timeframe === 1);
    };
    for (const symbol of ['EURUSD', 'USDJPY', 'EURJPY', 'EURCHF']) {
      const series = replay.get(symbol)!;
      const got = minutes(symbol);
      expect(got).toHaveLength(360);
      for (const c of got) {
        const bar = barAt(series, c.time);
        expect(fromScaled(c.open)).toBeCloseTo(bar.open, 8);
        expect(fromScaled(c.high)).toBeCloseTo(bar.high, 8);
        expect(fromScaled(c.low)).toBeCloseTo(bar.low, 8);
        expect(fromScaled(c.close)).toBeCloseTo(bar.close, 8);
      }
    }
    // GBPJPY has no file: it is GBPUSD × USDJPY of the same minute.
    const gbpusd = minutes('GBPUSD');
    const usdjpy = minutes('USDJPY');
    minutes('GBPJPY').forEach((c, i) => {
      expect(fromScaled(c.close)).toBeCloseTo(fromScaled(gbpusd[i]!.close) * fromScaled(usdjpy[i]!.close), 2);
    });
  });
});

describe('replay source', () => {
  it('walks each minute through its bar: open, extremes and close are the real ones', async () => {
    const minute = bucketStart(Date.UTC(2026, 2, 10, 14, 37), 1);
    const clock = new ManualClock(minute - 2_000);
    const timers = new ManualTimers(
      () => clock.now(),
      (ms) => clock.set(ms),
    );
    const source = new ModelPriceSource({ pairs, seed: 11, clock, timers, replay });
    expect(source.name).toBe('replay');
    const snapshots: Array<{ time: number; quotes: Quote[] }> = [];
    await source.start(() => {});
    while (clock.now() < minute + 3 * MINUTE_MS) {
      timers.runNext();
      snapshots.push({ time: clock.now(), quotes: source.snapshot() });
    }
    await source.stop();
    for (const symbol of ['EURUSD', 'GBPUSD', 'EURJPY']) {
      const p = pairs.findIndex((x) => x.symbol === symbol);
      const pair = pairs[p]!;
      for (let k = 0; k < 3; k++) {
        const start = minute + k * MINUTE_MS;
        const mids = snapshots.filter((s) => s.time >= start && s.time < start + MINUTE_MS).map((s) => s.quotes[p]!.mid);
        const bar = barAt(replay.get(symbol)!, start);
        // Quotes round outward to the pair's digits; the mid is within one point of the model.
        const point = 10 ** -pair.digits;
        expect(Math.abs(mids[0]! - bar.open)).toBeLessThanOrEqual(point);
        expect(Math.abs(Math.max(...mids) - bar.high)).toBeLessThanOrEqual(point);
        expect(Math.abs(Math.min(...mids) - bar.low)).toBeLessThanOrEqual(point);
        expect(Math.abs(mids.at(-1)! - bar.close)).toBeLessThanOrEqual(point);
      }
    }
    // NZD has no file: the model moves it.
    const nz = pairs.findIndex((x) => x.symbol === 'NZDUSD');
    const nzMids = new Set(snapshots.map((s) => s.quotes[nz]!.mid));
    expect(nzMids.size).toBeGreaterThan(10);
  });
});

describe('PRICE_SOURCE=replay', () => {
  let t: TestApp;
  const now = Date.UTC(2026, 2, 10, 14, 37, 20);
  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock(now), env: { PRICE_SOURCE: 'replay' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves real prices, and history that is the real bars', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(health.json().data.price_source).toMatchObject({ name: 'replay', connected: true });
    const { headers } = await signedInTrader(t);
    const res = await t.app.inject({ method: 'GET', url: '/api/trading/pair/EURUSD/chart-data/?range=1h', headers });
    const candles = res.json().data as Array<{ time: number; open: number; close: number }>;
    expect(candles).toHaveLength(60);
    for (const c of candles.slice(0, -1)) {
      const bar = barAt(eurusd, c.time);
      expect(c.open).toBeCloseTo(bar.open, 8);
      expect(c.close).toBeCloseTo(bar.close, 8);
    }
    const quote = t.market.prices.latest('EURUSD')!;
    const bar = barAt(eurusd, bucketStart(now, 1));
    expect(quote.mid).toBeGreaterThanOrEqual(bar.low - 0.0001);
    expect(quote.mid).toBeLessThanOrEqual(bar.high + 0.0001);
  });
});
