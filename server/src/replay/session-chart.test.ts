import { type Candle, chartDataSchema, currentPricesSchema, pairPriceSchema, replayAnswerSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { seededPairs } from '../market/catalogue.js';
import { loadReplayData, WALK_KEYS_MS, walkKeys } from '../market/index.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { SessionMarket } from './session-market.js';

/**
 * The pair page's market calls on a practice account (docs/replay.md#the-accounts-market): the
 * price, the current prices and the chart answer from the session, its candles the real minutes
 * up to its clock and nothing after it; the live market's calls are unchanged without `?account=`.
 */

const MINUTE = 60_000;
const START = Date.UTC(2023, 3, 4, 7, 0, 0);
/** 90 minutes and 25 seconds in: the minute at the clock has played its open and its nearer extreme. */
const CLOCK = START + 90 * MINUTE + 25_000;
const iso = (ms: number) => new Date(ms).toISOString();

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

/** The real minutes of EURUSD that opened in [from, to), as chart candles. */
function realMinutes(from: number, to: number): Candle[] {
  const s = loadReplayData().get('EURUSD')!;
  const out: Candle[] = [];
  for (let i = 0; i < s.length; i++) {
    const time = s.times[i]!;
    if (time < from || time >= to) continue;
    out.push({ time, open: s.open[i]!, high: s.high[i]!, low: s.low[i]!, close: s.close[i]!, volume: WALK_KEYS_MS.length });
  }
  return out;
}

describe('the market calls of a practice account', () => {
  const cleanups: Array<() => Promise<void>> = [];
  let t: TestApp;
  let me: Trader;
  let other: Trader;
  let account: number;
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
  const prices = new ScriptedPriceSource();

  const get = (who: Trader, url: string) => t.app.inject({ method: 'GET', url, headers: who.headers });
  const chart = async (query: string, who: Trader = me) => {
    const res = await get(who, `/api/trading/pair/EURUSD/chart-data/?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return chartDataSchema.parse(res.json().data);
  };

  beforeAll(async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    prices.push({ symbol: 'EURUSD', bid: 1.2, ask: 1.2002, timestamp: clock.now() });
    t = await startTestApp({
      clock,
      priceSource: prices,
      dataDir: db.dataDir,
      ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}),
    });
    me = await insertSignedInTrader(t);
    other = await insertSignedInTrader(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/trading/replays/',
      headers: me.headers,
      payload: { symbols: ['EURUSD', 'GBPUSD'], start: iso(START) },
    });
    expect(created.statusCode, created.body).toBe(201);
    const replay = replayAnswerSchema.parse(created.json().data).replay;
    account = replay.account_id;
    const step = await t.app.inject({
      method: 'POST',
      url: `/api/trading/replays/${replay.id}/step/`,
      headers: me.headers,
      payload: { minutes: 90 },
    });
    expect(step.statusCode, step.body).toBe(200);
    const seek = await t.app.inject({
      method: 'POST',
      url: `/api/trading/replays/${replay.id}/seek/`,
      headers: me.headers,
      payload: { to: iso(CLOCK) },
    });
    expect(seek.statusCode, seek.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    for (const c of cleanups.reverse()) await c();
  });

  it('charts the real minutes up to the session’s clock, the newest cut where the clock stands', async () => {
    const candles = await chart(`timeframe=m1&limit=1000&account=${account}`);
    const last = candles.at(-1)!;
    expect(last.time).toBe(START + 90 * MINUTE);
    expect(candles.every((c) => c.time <= CLOCK)).toBe(true);
    // Every whole minute is the file's.
    const whole = realMinutes(0, START + 90 * MINUTE).slice(-(candles.length - 1));
    expect(candles.slice(0, -1)).toEqual(whole);
    // The minute at the clock: its open and the extreme nearer it (played at +20 s), not yet the rest.
    const s = loadReplayData().get('EURUSD')!;
    const i = s.times.indexOf(START + 90 * MINUTE);
    const keys = walkKeys({ open: s.open[i]!, high: s.high[i]!, low: s.low[i]!, close: s.close[i]!, count: 0 });
    expect(last).toEqual({
      time: START + 90 * MINUTE,
      open: keys[0],
      high: Math.max(keys[0], keys[1]),
      low: Math.min(keys[0], keys[1]),
      close: keys[1],
      volume: 2,
    });
  });

  it('aggregates larger timeframes from the same minutes and pages back with `before`', async () => {
    const hours = await chart(`timeframe=h1&limit=3&account=${account}`);
    expect(hours.map((c) => c.time)).toEqual([START - MINUTE * 60, START, START + 60 * MINUTE]);
    const minutes = await chart(`timeframe=m1&limit=31&account=${account}`);
    const current = hours.at(-1)!;
    expect(current.open).toBe(minutes[0]!.open);
    expect(current.close).toBe(minutes.at(-1)!.close);
    expect(current.high).toBe(Math.max(...minutes.map((c) => c.high)));
    expect(current.low).toBe(Math.min(...minutes.map((c) => c.low)));
    const older = await chart(`timeframe=h1&limit=2&before=${hours[0]!.time}&account=${account}`);
    expect(older.map((c) => c.time)).toEqual([START - 3 * 60 * MINUTE, START - 2 * 60 * MINUTE]);
    // The spec's range is its timeframe and count (1h: 60 one-minute candles), cut at the clock too.
    const range = await chart(`range=1h&account=${account}`);
    expect(range).toEqual(await chart(`timeframe=m1&limit=60&account=${account}`));
  });

  it('answers the price calls with the session’s quote', async () => {
    const market = new SessionMarket({
      data: loadReplayData(),
      pairs: seededPairs().filter((p) => p.symbol === 'EURUSD' || p.symbol === 'GBPUSD'),
      clock: START,
    });
    market.advanceTo(CLOCK);
    const quote = market.quote('EURUSD')!;
    const res = await get(me, `/api/trading/pair/EURUSD/price/?account=${account}`);
    expect(res.statusCode, res.body).toBe(200);
    const price = pairPriceSchema.parse(res.json().data);
    expect({ bid: price.bid, ask: price.ask, timestamp: price.timestamp }).toEqual({
      bid: quote.bid,
      ask: quote.ask,
      timestamp: iso(quote.timestamp),
    });
    const all = await get(me, `/api/trading/current-prices/?account=${account}`);
    expect(all.statusCode, all.body).toBe(200);
    const current = currentPricesSchema.parse(all.json().data);
    expect(current.EURUSD?.bid).toBe(quote.bid);
    expect(current.GBPUSD?.bid).toBe(market.quote('GBPUSD')!.bid);
  });

  it('keeps the live calls as they were, and answers 404 for another trader’s account', async () => {
    const live = await get(me, '/api/trading/pair/EURUSD/price/');
    expect(pairPriceSchema.parse(live.json().data).bid).toBe(1.2);
    const liveChart = await chart('timeframe=m1&limit=5');
    expect(liveChart.at(-1)!.time).toBeGreaterThan(Date.UTC(2025, 0, 1));
    for (const url of [
      `/api/trading/pair/EURUSD/price/?account=${account}`,
      `/api/trading/current-prices/?account=${account}`,
      `/api/trading/pair/EURUSD/chart-data/?timeframe=m1&account=${account}`,
    ]) {
      expect((await get(other, url)).statusCode).toBe(404);
    }
  });
});
