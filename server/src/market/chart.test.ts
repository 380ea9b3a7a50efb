import {
  type Candle,
  CHART_RANGES,
  currentPricesSchema,
  fxPairSchema,
  pairPageSchema,
  pairSnapshotSchema,
  priceSchema,
} from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { signedInTrader } from '../test/traders.js';
import { bucketStart, MINUTE_MS } from './candles.js';
import { ScriptedPriceSource } from './sources/scripted.js';

type Headers = Record<string, string>;

/** 37 minutes into an hour, so the current 15m, 1h and 4h candles are all partly formed. */
const NOW = Date.UTC(2026, 2, 10, 14, 37, 20);

async function chartData(t: TestApp, headers: Headers, symbol: string, range?: string) {
  const url = `/api/trading/pair/${symbol}/chart-data/${range === undefined ? '' : `?range=${range}`}`;
  return t.app.inject({ method: 'GET', url, headers });
}

describe('chart data over a month of history', () => {
  let t: TestApp;
  let headers: Headers;
  beforeAll(async () => {
    const started = performance.now();
    t = await startTestApp({ clock: new ManualClock(NOW), env: { CHART_HISTORY_DAYS: '31' } });
    console.log(`start-up with a 31-day backfill of 12 pairs: ${Math.round(performance.now() - started)} ms`);
    ({ headers } = await signedInTrader(t));
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  for (const [range, { timeframeMinutes, count }] of Object.entries(CHART_RANGES)) {
    it(`answers exactly ${count} candles of ${timeframeMinutes} min for range=${range}, oldest first, the last one forming`, async () => {
      for (const symbol of ['EURUSD', 'USDJPY', 'NZDUSD', 'GBPJPY']) {
        const res = await chartData(t, headers, symbol, range);
        expect(res.statusCode).toBe(200);
        const candles: Candle[] = res.json().data;
        expect(candles).toHaveLength(count);
        const size = timeframeMinutes * MINUTE_MS;
        candles.forEach((c, i) => {
          expect(c.time % size).toBe(0);
          if (i > 0) expect(c.time - candles[i - 1]!.time).toBe(size);
          expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close));
          expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close));
          expect(c.volume).toBeGreaterThan(0);
        });
        const last = candles.at(-1)!;
        expect(last.time).toBe(bucketStart(NOW, timeframeMinutes));
        // The forming candle ends at the live price.
        expect(last.close).toBeCloseTo(t.market.prices.latest(symbol)!.mid, 6);
      }
    });
  }

  it('ends the history continuously at the live price (no jump at now)', async () => {
    for (const symbol of ['EURUSD', 'GBPUSD', 'USDJPY', 'EURGBP', 'NZDUSD']) {
      const res = await chartData(t, headers, symbol, '1h');
      const candles: Candle[] = res.json().data;
      const pair = t.market.pairs.get(symbol)!;
      const lastClosed = candles.at(-2)!;
      const live = candles.at(-1)!;
      expect(Math.abs(live.open - lastClosed.close)).toBeLessThanOrEqual(pair.spread * pair.pipSize);
    }
  });

  it('answers a one-month chart fast (stored aggregates, one index range)', async () => {
    for (let i = 0; i < 3; i++) await chartData(t, headers, 'EURUSD', '1m');
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      const res = await chartData(t, headers, i % 2 ? 'GBPJPY' : 'EURUSD', '1m');
      times.push(performance.now() - started);
      expect(res.statusCode).toBe(200);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(`chart-data range=1m on 31 days: median ${median.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
    expect(median).toBeLessThan(50);
  });
});

describe('market calls', () => {
  let t: TestApp;
  let headers: Headers;
  beforeAll(async () => {
    t = await startTestApp({ clock: new ManualClock(NOW) });
    ({ headers } = await signedInTrader(t));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('require a signed-in trader', async () => {
    for (const url of [
      '/api/trading/current-prices/',
      '/api/trading/pair/EURUSD/',
      '/api/trading/pair/EURUSD/price/',
      '/api/trading/pair/EURUSD/chart-data/?range=1h',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false });
    }
  });

  it('seeds the twelve pairs of the catalogue with realistic spreads and digits', () => {
    const pairs = t.market.pairs.list();
    expect(pairs.map((p) => p.symbol)).toEqual([
      'EURUSD',
      'GBPUSD',
      'USDJPY',
      'USDCHF',
      'AUDUSD',
      'USDCAD',
      'NZDUSD',
      'EURGBP',
      'EURJPY',
      'GBPJPY',
      'EURCHF',
      'AUDJPY',
    ]);
    for (const p of pairs) {
      const jpy = p.quoteCurrency === 'JPY';
      expect(p.digits).toBe(jpy ? 3 : 5);
      expect(p.pipSize).toBe(jpy ? 0.01 : 0.0001);
      expect(p).toMatchObject({ minLotSize: 0.01, maxLotSize: 100, contractSize: 100_000, isActive: true });
      expect(p.spread).toBeGreaterThanOrEqual(p.symbol === 'EURUSD' ? 0.8 : 1);
    }
    expect(t.market.pairs.get('EURUSD')!.spread).toBeLessThan(t.market.pairs.get('GBPJPY')!.spread);
    expect(t.market.pairs.get('eurusd')?.name).toBe('Euro / US Dollar');
  });

  it('answers current prices of every pair', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/trading/current-prices/', headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    const prices = currentPricesSchema.parse(body.data);
    expect(Object.keys(prices).sort()).toEqual(
      t.market.pairs
        .list()
        .map((p) => p.symbol)
        .sort(),
    );
    for (const p of Object.values(prices)) {
      expect(p.bid).toBeLessThan(p.ask);
      expect(p.price).toBe(p.mid);
      expect(p.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('answers a pair with its price, symbols in any case', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/trading/pair/usdjpy/', headers });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    const snapshot = pairSnapshotSchema.parse(data);
    expect(Object.keys(data.pair).sort()).toEqual(Object.keys(fxPairSchema.shape).sort());
    expect(snapshot.pair).toMatchObject({ symbol: 'USDJPY', name: 'US Dollar / Japanese Yen', digits: 3, pip_size: 0.01 });
    expect(snapshot.price!.bid).toBeLessThan(snapshot.price!.ask);

    const price = await t.app.inject({ method: 'GET', url: '/api/trading/pair/EurUsd/price/', headers });
    expect(price.statusCode).toBe(200);
    const p = priceSchema.parse(price.json().data);
    expect(p.price).toBe(p.mid);
  });

  it('answers the whole pair page in one typed shape: the market part and the trader part', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/trading/pair/gbpusd/', headers });
    expect(res.statusCode).toBe(200);
    const page = pairPageSchema.strict().parse(res.json().data);
    expect(page.pair.symbol).toBe('GBPUSD');
    expect(page.positions).toEqual([]);
    expect(page.recent_orders).toEqual([]);
    expect(page.trading_account?.balance).toBeGreaterThan(0);
  });

  it('answers 404 "Currency pair {symbol} not found" for an unknown pair on every call', async () => {
    for (const suffix of ['', 'price/', 'chart-data/?range=1h']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/trading/pair/XXXYYY/${suffix}`, headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ success: false, error: 'Currency pair XXXYYY not found', code: 'PAIR_NOT_FOUND' });
    }
  });

  it('answers 400 listing the valid ranges for a bad range, and 1h without one', async () => {
    const res = await chartData(t, headers, 'EURUSD', '2h');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('1h, 24h, 1w, 1m');
    const dflt = await chartData(t, headers, 'EURUSD');
    expect(dflt.statusCode).toBe(200);
    expect(dflt.json().data).toHaveLength(60);
  });

  it('reports the price source in health', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    const source = res.json().data.price_source;
    expect(source).toMatchObject({ name: 'simulator', connected: true });
    expect(typeof source.last_tick_age_ms).toBe('number');
  });
});

describe('candles from ticks', () => {
  const m = bucketStart(NOW, 1);

  it('builds candles only for minutes that had ticks, before and after they are written', async () => {
    const source = new ScriptedPriceSource();
    const t = await startTestApp({ clock: new ManualClock(NOW), priceSource: source, env: { CHART_HISTORY_DAYS: '0' } });
    try {
      const { headers } = await signedInTrader(t);
      const push = (minute: number, offset: number, bid: number) =>
        source.push({ symbol: 'EURUSD', bid, ask: bid + 0.0001, timestamp: minute + offset });
      push(m - 3 * MINUTE_MS, 1_000, 1.1);
      push(m - 3 * MINUTE_MS, 20_000, 1.102);
      push(m - 2 * MINUTE_MS, 5_000, 1.101);
      // no tick at m - 1 minute
      push(m, 1_000, 1.099);
      push(m, 15_000, 1.1035);
      const expected1h = [
        { time: m - 3 * MINUTE_MS, open: 1.10005, high: 1.10205, low: 1.10005, close: 1.10205, volume: 2 },
        { time: m - 2 * MINUTE_MS, open: 1.10105, high: 1.10105, low: 1.10105, close: 1.10105, volume: 1 },
        { time: m, open: 1.09905, high: 1.10355, low: 1.09905, close: 1.10355, volume: 2 },
      ];
      const read = async (range: string) => (await chartData(t, headers, 'EURUSD', range)).json().data as Candle[];
      expect(await read('1h')).toEqual(expected1h);
      const expected24h = [{ time: bucketStart(NOW, 15), open: 1.10005, high: 1.10355, low: 1.09905, close: 1.10355, volume: 5 }];
      expect(await read('24h')).toEqual(expected24h);

      await t.market.flushCandles();
      expect(await read('1h')).toEqual(expected1h);
      expect(await read('24h')).toEqual(expected24h);
      expect(await read('1m')).toEqual([{ ...expected24h[0]!, time: bucketStart(NOW, 240) }]);
    } finally {
      await t.close();
    }
  });

  it('answers the last hour without a hole a few minutes after a start early in an hour', async () => {
    // Started 4 minutes into the hour: ten minutes back reach into the hour before, which memory
    // never held; those minutes are the backfill's, stored one by one.
    const start = Date.UTC(2026, 2, 10, 16, 4, 10);
    const clock = new ManualClock(start);
    const source = new ScriptedPriceSource();
    const t = await startTestApp({ clock, priceSource: source, env: { CHART_HISTORY_DAYS: '1' } });
    try {
      const { headers } = await signedInTrader(t);
      for (let minute = 0; minute < 4; minute++) {
        source.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1001, timestamp: clock.now() });
        clock.advance(MINUTE_MS);
        await t.market.flushCandles();
      }
      clock.advance(32_000);
      source.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1001, timestamp: clock.now() });
      const candles: Candle[] = (await chartData(t, headers, 'EURUSD', '1h')).json().data;
      expect(candles).toHaveLength(60);
      const gaps = candles.slice(1).map((c, i) => c.time - candles[i]!.time);
      expect(new Set(gaps)).toEqual(new Set([MINUTE_MS]));
      expect(candles.at(-1)!.time).toBe(bucketStart(clock.now(), 1));
    } finally {
      await t.close();
    }
  });

  it('keeps candles across a restart, and the forming one goes on', async () => {
    const db = await freshDatabase();
    const clock = new ManualClock(NOW);
    const first = new ScriptedPriceSource();
    let t = await startTestApp({ ...db, keep: true, clock, priceSource: first, env: { CHART_HISTORY_DAYS: '0' } });
    try {
      first.push({ symbol: 'GBPUSD', bid: 1.25, ask: 1.2501, timestamp: m - MINUTE_MS + 3_000 });
      first.push({ symbol: 'GBPUSD', bid: 1.251, ask: 1.2511, timestamp: m + 2_000 });
      await t.close();
      const second = new ScriptedPriceSource();
      t = await startTestApp({ ...db, keep: true, clock, priceSource: second, env: { CHART_HISTORY_DAYS: '0' } });
      second.push({ symbol: 'GBPUSD', bid: 1.249, ask: 1.2491, timestamp: m + 9_000 });
      const candles = await t.market.chart('GBPUSD', '1h');
      expect(candles).toEqual([
        { time: m - MINUTE_MS, open: 1.25005, high: 1.25005, low: 1.25005, close: 1.25005, volume: 1 },
        { time: m, open: 1.25105, high: 1.25105, low: 1.24905, close: 1.24905, volume: 2 },
      ]);
    } finally {
      await t.close();
      await db.drop();
    }
  });
});
