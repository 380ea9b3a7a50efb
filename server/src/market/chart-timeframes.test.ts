import { type Candle, CHART_RANGES, parsePricesServerMessage, TIMEFRAME_MINUTES, TIMEFRAMES } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../core/clock.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { signedInTrader } from '../test/traders.js';
import { aggregateCandles, bucketStart, MINUTE_MS } from './candles.js';
import { marketMigrations } from './migrations.js';
import { SETTLED_REREAD_MS } from './settled-candles.js';
import { ScriptedPriceSource } from './sources/scripted.js';

type Headers = Record<string, string>;

/** 37 minutes into an hour, so the current candle of every timeframe above m1 is partly formed. */
const NOW = Date.UTC(2026, 2, 10, 14, 37, 20);
const HOUR = 60 * MINUTE_MS;
const DAY = 24 * HOUR;

async function get(t: TestApp, headers: Headers, query: string, symbol = 'EURUSD') {
  return t.app.inject({ method: 'GET', url: `/api/trading/pair/${symbol}/chart-data/?${query}`, headers });
}

async function candles(t: TestApp, headers: Headers, query: string, symbol = 'EURUSD'): Promise<Candle[]> {
  const res = await get(t, headers, query, symbol);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** The candles that `before` paging reaches, newest page first, checking that pages join without overlap or hole. */
async function pageBack(t: TestApp, headers: Headers, timeframe: string, limit: number, step: number) {
  const all: Candle[] = [];
  let before: number | undefined;
  for (let page = 0; page < 100; page++) {
    const got = await candles(
      t,
      headers,
      `timeframe=${timeframe}&limit=${limit}${before === undefined ? '' : `&before=${before}`}`,
    );
    if (got.length === 0) break;
    expect(got.length).toBeLessThanOrEqual(limit);
    if (before !== undefined) expect(got.at(-1)!.time).toBe(before - step);
    all.unshift(...got);
    before = got[0]!.time;
  }
  return all;
}

describe('chart-data with a timeframe over a fresh year of history', () => {
  const clock = new ManualClock(NOW);
  let t: TestApp;
  let headers: Headers;
  beforeAll(async () => {
    const started = performance.now();
    t = await startTestApp({ clock, env: { CHART_HISTORY_DAYS: '2', CHART_HOURLY_HISTORY_DAYS: '366' } });
    console.log(`start-up with 2 days of minutes and 366 days of hours, 12 pairs: ${Math.round(performance.now() - started)} ms`);
    ({ headers } = await signedInTrader(t));
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers each timeframe aligned to UTC, oldest first, without holes, the last one forming, 300 by default', async () => {
    // The one-minute window starts on the hour two days before the current minute's end.
    const minutesFrom = bucketStart(bucketStart(NOW, 1) + MINUTE_MS - 2 * DAY, 60);
    for (const timeframe of TIMEFRAMES) {
      const size = TIMEFRAME_MINUTES[timeframe] * MINUTE_MS;
      const got = await candles(t, headers, `timeframe=${timeframe}`);
      const available = size < HOUR ? (bucketStart(NOW, size / MINUTE_MS) - minutesFrom) / size + 1 : 300;
      expect(got, timeframe).toHaveLength(Math.min(300, available));
      got.forEach((c, i) => {
        expect(c.time % size).toBe(0);
        if (i > 0) expect(c.time - got[i - 1]!.time).toBe(size);
        expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close));
        expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close));
      });
      expect(got.at(-1)!.time).toBe(bucketStart(NOW, size / MINUTE_MS));
    }
  });

  it('answers d1 candles at 00:00 UTC back more than a year, each the aggregate of its hours', async () => {
    const days = await candles(t, headers, 'timeframe=d1&limit=1000');
    expect(days.length).toBeGreaterThanOrEqual(366);
    expect(days[0]!.time).toBeLessThanOrEqual(NOW - 365 * DAY);
    for (const d of days) expect(new Date(d.time).toISOString()).toMatch(/T00:00:00\.000Z$/);
    for (const day of [days[0]!, days[200]!, days.at(-2)!]) {
      const hours = await candles(t, headers, `timeframe=h1&limit=24&before=${day.time + DAY}`);
      expect(hours).toHaveLength(24);
      const [fromHours] = aggregateCandles(hours, 1440);
      expect(day).toEqual(fromHours);
    }
    const fourHours = await candles(t, headers, `timeframe=h4&limit=6&before=${days[100]!.time + DAY}`);
    expect(aggregateCandles(fourHours, 1440)).toEqual([days[100]]);
  });

  it('pages h1 back over a year with `before`: pages join without overlap or hole', async () => {
    const hours = await pageBack(t, headers, 'h1', 1000, HOUR);
    expect(hours[0]!.time).toBeLessThanOrEqual(NOW - 365 * DAY);
    for (let i = 1; i < hours.length; i++) expect(hours[i]!.time - hours[i - 1]!.time).toBe(HOUR);
    expect(hours.at(-1)!.time).toBe(bucketStart(NOW, 60));
  });

  it('pages m5 over the one-minute window, each candle the aggregate of its minutes', async () => {
    const fives = await pageBack(t, headers, 'm5', 250, 5 * MINUTE_MS);
    const minutes = await pageBack(t, headers, 'm1', 1000, MINUTE_MS);
    expect(fives.length).toBeGreaterThan(2 * 288);
    expect(aggregateCandles(minutes, 5).slice(0, -1)).toEqual(fives.slice(0, -1));
    const thirties = await candles(t, headers, `timeframe=m30&limit=40&before=${bucketStart(NOW, 60)}`);
    expect(
      aggregateCandles(
        fives.filter((c) => c.time >= thirties[0]!.time && c.time < bucketStart(NOW, 60)),
        30,
      ),
    ).toEqual(thirties);
  });

  it('answers the spec ranges exactly as the matching timeframe and limit', async () => {
    for (const [range, { timeframeMinutes, count }] of Object.entries(CHART_RANGES)) {
      const timeframe = TIMEFRAMES.find((tf) => TIMEFRAME_MINUTES[tf] === timeframeMinutes)!;
      const byRange = await candles(t, headers, `range=${range}`);
      const byTimeframe = await candles(t, headers, `timeframe=${timeframe}&limit=${count}`);
      // The simulator keeps ticking into the forming candle between the two reads.
      expect(byTimeframe.slice(0, -1)).toEqual(byRange.slice(0, -1));
      expect(byTimeframe.at(-1)!.time).toBe(byRange.at(-1)!.time);
    }
  });

  it('answers 400 for a limit of 0 or 1001, a bad timeframe or before, and ignores before and limit without a timeframe', async () => {
    for (const query of [
      'timeframe=h1&limit=0',
      'timeframe=h1&limit=1001',
      'timeframe=h2',
      'timeframe=1m',
      'timeframe=h1&before=-5',
    ]) {
      const res = await get(t, headers, query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ success: false });
    }
    expect((await get(t, headers, 'timeframe=h2')).json().error).toContain('m1, m5, m15, m30, h1, h4, d1');
    expect(await candles(t, headers, 'timeframe=h1&limit=1000')).toHaveLength(1000);
    const spec = await candles(t, headers, `range=1w&limit=5&before=${NOW - 30 * DAY}`);
    expect(spec).toHaveLength(168);
    expect(spec.at(-1)!.time).toBe(bucketStart(NOW, 60));
  });

  it('builds m5, m30 and d1 for a database from before them (migration 0032), the same as the backfill did', async () => {
    const queries = ['timeframe=m5&limit=1000', 'timeframe=m30&limit=1000', 'timeframe=d1&limit=1000'];
    const before = await Promise.all(queries.map((q) => candles(t, headers, q)));
    const db = t.ctx.db.kysely;
    await db.deleteFrom('market_candles').where('timeframe', 'in', [5, 30, 1440]).execute();
    // Settled candles are kept in memory and read again once a minute (docs/charting.md), so a
    // change made outside the writer shows a minute later (the same m5, m30 and d1 buckets).
    clock.advance(SETTLED_REREAD_MS);
    expect((await candles(t, headers, 'timeframe=d1&limit=1000')).length).toBe(1);
    await marketMigrations(t.ctx.db.kind)['0032_market_timeframes']!.up(db);
    clock.advance(SETTLED_REREAD_MS);
    const after = await Promise.all(queries.map((q) => candles(t, headers, q)));
    // The simulator keeps ticking into the forming candles.
    for (const [i, list] of after.entries()) expect(list.slice(0, -1)).toEqual(before[i]!.slice(0, -1));
  });
});

describe('timeframes built from live minutes', () => {
  const minute = (h: number, m: number, s = 5) => Date.UTC(2026, 2, 10, h, m, s);

  it('serves the forming and closed candles of h1 and d1 from memory and the database, across a restart', async () => {
    const db = await freshDatabase();
    const clock = new ManualClock(NOW);
    const first = new ScriptedPriceSource();
    let t = await startTestApp({ ...db, keep: true, clock, priceSource: first, env: { CHART_HISTORY_DAYS: '0' } });
    try {
      const { headers } = await signedInTrader(t);
      const push = (source: ScriptedPriceSource, time: number, bid: number) =>
        source.push({ symbol: 'EURUSD', bid, ask: bid + 0.0001, timestamp: time });
      push(first, minute(9, 15), 1.1);
      push(first, minute(13, 50), 1.102);
      push(first, minute(14, 5), 1.101);
      push(first, minute(14, 20), 1.104);
      push(first, minute(14, 37), 1.103);
      const c = (open: number, high: number, low: number, close: number) => ({ open, high, low, close });
      const expectedH1 = [
        { time: minute(9, 0, 0), ...c(1.10005, 1.10005, 1.10005, 1.10005), volume: 1 },
        { time: minute(13, 0, 0), ...c(1.10205, 1.10205, 1.10205, 1.10205), volume: 1 },
        { time: minute(14, 0, 0), ...c(1.10105, 1.10405, 1.10105, 1.10305), volume: 3 },
      ];
      const expectedD1 = [{ time: Date.UTC(2026, 2, 10), ...c(1.10005, 1.10405, 1.10005, 1.10305), volume: 5 }];
      expect(await candles(t, headers, 'timeframe=h1')).toEqual(expectedH1);
      expect(await candles(t, headers, 'timeframe=d1')).toEqual(expectedD1);
      expect(await candles(t, headers, `timeframe=h1&before=${minute(14, 0, 0)}`)).toEqual(expectedH1.slice(0, 2));
      expect(await candles(t, headers, `timeframe=h1&limit=1&before=${minute(14, 0, 0)}`)).toEqual(expectedH1.slice(1, 2));
      await t.market.flushCandles();
      expect(await candles(t, headers, 'timeframe=h1')).toEqual(expectedH1);
      await t.close();

      // Memory is empty after a restart: whole hours come from the stored h1 candles, the rest from minutes.
      const second = new ScriptedPriceSource();
      t = await startTestApp({ ...db, keep: true, clock, priceSource: second, env: { CHART_HISTORY_DAYS: '0' } });
      const again = await signedInTrader(t);
      expect(await candles(t, again.headers, 'timeframe=d1')).toEqual(expectedD1);
      expect(await candles(t, again.headers, 'timeframe=h4')).toEqual([
        { time: minute(8, 0, 0), ...c(1.10005, 1.10005, 1.10005, 1.10005), volume: 1 },
        { time: minute(12, 0, 0), ...c(1.10205, 1.10405, 1.10105, 1.10305), volume: 4 },
      ]);
      push(second, minute(14, 37, 30), 1.099);
      expect((await candles(t, again.headers, 'timeframe=h1')).at(-1)).toEqual({
        time: minute(14, 0, 0),
        ...c(1.10105, 1.10405, 1.09905, 1.09905),
        volume: 4,
      });
    } finally {
      await t.close();
      await db.drop();
    }
  });

  it('deletes one-minute to 30-minute candles past CHART_HISTORY_DAYS and keeps the hours', async () => {
    const clock = new ManualClock(NOW);
    const t = await startTestApp({ clock, env: { CHART_HISTORY_DAYS: '2', CHART_HOURLY_HISTORY_DAYS: '4' } });
    try {
      let { headers } = await signedInTrader(t);
      const oldest = async (timeframe: string) =>
        (await pageBack(t, headers, timeframe, 1000, TIMEFRAME_MINUTES[timeframe as 'm1'] * MINUTE_MS))[0]!.time;
      const hoursFrom = await oldest('h1');
      expect(hoursFrom).toBe(bucketStart(NOW - 4 * DAY, 1440));
      clock.set(NOW + DAY);
      ({ headers } = await signedInTrader(t));
      // (The hourly run may have pruned first when the test runs slowly: then this one finds less.)
      await t.market.pruneCandles();
      const cutoff = bucketStart(NOW + DAY - 2 * DAY, 60);
      expect(await oldest('m1')).toBe(cutoff);
      expect(await oldest('m5')).toBe(cutoff);
      expect(await oldest('m30')).toBe(cutoff);
      expect(await oldest('h1')).toBe(hoursFrom);
      expect(await t.market.pruneCandles()).toBe(0);
    } finally {
      await t.close();
    }
  });
});

/** A `ws` client of /ws/prices/ that keeps the chart updates it receives. */
async function openPrices(t: TestApp) {
  const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/ws/prices/`);
  const updates: Array<{ symbol: string; timeframe: string; candle: Candle }> = [];
  socket.on('message', (data) => {
    const parsed = parsePricesServerMessage(data.toString());
    if (!parsed.ok) throw new Error(`outside the contract: ${data.toString()}`);
    if (parsed.message.type === 'chart_update') {
      const { symbol, timeframe, candle } = parsed.message;
      updates.push({ symbol, timeframe, candle });
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const waitFor = async (match: (u: (typeof updates)[number]) => boolean) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = updates.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such chart_update; got ${JSON.stringify(updates)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { socket, updates, waitFor, send: (m: unknown) => socket.send(JSON.stringify(m)) };
}

describe('the price socket with a timeframe', () => {
  it('sends the live h1 candle when subscribed with h1, the closed ones after last_chart_time first, and m1 as m1', async () => {
    const source = new ScriptedPriceSource();
    const t = await startTestApp({
      listen: true,
      clock: new ManualClock(NOW),
      priceSource: source,
      env: { CHART_HISTORY_DAYS: '0' },
    });
    const sockets: WebSocket[] = [];
    try {
      const at = (h: number, m: number, s: number) => Date.UTC(2026, 2, 10, h, m, s);
      for (const [time, bid] of [
        [at(12, 10, 0), 150.1],
        [at(13, 10, 0), 150.2],
        [at(14, 5, 0), 150.3],
        [at(14, 37, 1), 150.25],
      ] as const) {
        source.push({ symbol: 'USDJPY', bid, ask: bid + 0.012, timestamp: time });
      }
      await t.market.flushCandles();
      const h1 = await openPrices(t);
      sockets.push(h1.socket);
      h1.send({ type: 'subscribe_prices', symbol: 'USDJPY', timeframe: 'h1', last_chart_time: at(13, 0, 0) });
      const live = await h1.waitFor((u) => u.candle.time === at(14, 0, 0));
      expect(live).toEqual({
        symbol: 'USDJPY',
        timeframe: 'h1',
        candle: { time: at(14, 0, 0), open: 150.306, high: 150.306, low: 150.256, close: 150.256, volume: 2 },
      });
      // Gap fill first: the closed 13:00 candle (inclusive), not the 12:00 one.
      expect(h1.updates.map((u) => u.candle.time)).toEqual([at(13, 0, 0), at(14, 0, 0)]);
      expect(h1.updates[0]!.candle).toMatchObject({ open: 150.206, close: 150.206, volume: 1 });

      const m1 = await openPrices(t);
      sockets.push(m1.socket);
      m1.send({ type: 'subscribe_prices', symbol: 'USDJPY', timeframe: 'm1' });
      await m1.waitFor((u) => u.timeframe === 'm1' && u.candle.time === at(14, 37, 0));

      // A new tick moves the h1 candle (one chart update a second at most) and the m1 candle.
      source.push({ symbol: 'USDJPY', bid: 150.5, ask: 150.512, timestamp: at(14, 37, 30) });
      const moved = await h1.waitFor((u) => u.candle.volume === 3);
      expect(moved).toEqual({
        symbol: 'USDJPY',
        timeframe: 'h1',
        candle: { time: at(14, 0, 0), open: 150.306, high: 150.506, low: 150.256, close: 150.506, volume: 3 },
      });
      const minute = await m1.waitFor((u) => u.candle.volume === 2);
      expect(minute.candle).toMatchObject({ time: at(14, 37, 0), close: 150.506 });
      expect(h1.updates.every((u) => u.timeframe === 'h1')).toBe(true);
    } finally {
      for (const s of sockets) s.close();
      await t.close();
    }
  });
});
