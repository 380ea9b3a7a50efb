import { equityCurveSchema, replayAnswerSchema } from '@pipdesk/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertSignedInTrader } from '../test/factories.js';
import type { TestApp } from '../test/helpers.js';
import { replaySuiteApp } from '../test/replay.js';

/**
 * What a practice account records beside its orders: its Idempotency-Keys are aged in real time,
 * not in its session's (the session's clock stands years back, and the hourly purge must still
 * leave a retry its first answer, docs/trading-rules.md#idempotency); its equity curve gets a point
 * every 15 minutes of session time, valued at the session's prices (docs/replay.md#equity-points).
 */

const START = Date.UTC(2023, 3, 4, 7, 0, 0);
const HOUR = 3_600_000;
const MINUTE = 60_000;

describe("a practice account's keys and equity curve", () => {
  const suite = replaySuiteApp();
  const { clock } = suite;
  let t: TestApp;
  beforeAll(() => {
    t = suite.app();
  });

  const startSession = async (me: Awaited<ReturnType<typeof insertSignedInTrader>>) => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/trading/replays/',
      headers: me.headers,
      payload: { symbols: ['EURUSD'], start: new Date(START).toISOString() },
    });
    expect(created.statusCode, created.body).toBe(201);
    return replayAnswerSchema.parse(created.json().data).replay;
  };

  it('a key outlives the purge for as long as a live key does, and a retry gets the first answer', async () => {
    const me = await insertSignedInTrader(t);
    const { account_id: account } = await startSession(me);
    const place = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/trading/place-market-order/?account=${account}`,
        headers: { ...me.headers, 'idempotency-key': 'practice-key-1' },
        payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 },
      });

    const first = await place();
    expect(first.statusCode, first.body).toBe(201);
    clock.advance(HOUR / 2);
    await t.trading.service.purgeIdempotencyKeys();
    const again = await place();
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);

    // Past the retention in real time, the key is gone like any other.
    clock.advance(25 * HOUR);
    expect(await t.trading.service.purgeIdempotencyKeys()).toBe(1);
  });

  it('the equity curve gets a point every 15 minutes of session time while a position is open, at the session’s prices', async () => {
    const me = await insertSignedInTrader(t);
    const replay = await startSession(me);
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: me.headers, ...(payload ? { payload } : {}) });
    const placed = await call('POST', `/api/trading/place-market-order/?account=${replay.account_id}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.1,
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const step = await call('POST', `/api/trading/replays/${replay.id}/step/`, { minutes: 61 });
    expect(step.statusCode, step.body).toBe(200);

    const res = await call('GET', `/api/trading/equity-curve/?account=${replay.account_id}`);
    expect(res.statusCode, res.body).toBe(200);
    const points = equityCurveSchema.parse(res.json().data);
    const times = points.map((p) => Date.parse(p.time));
    // The fill's point at the start, then one at the first tick of each quarter hour the step crossed.
    expect(times[0]).toBe(START);
    const sampled = times.slice(1);
    expect(sampled.map((time) => Math.floor((time - START) / (15 * MINUTE)))).toEqual([1, 2, 3, 4]);
    for (const time of sampled) expect(time % (15 * MINUTE)).toBeLessThan(MINUTE);
    // Valued at the session's EURUSD (about 1.09 then), not at the live 1.2: a 0.1 lot moves a few dollars in an hour.
    for (const p of points) expect(Math.abs(p.equity - p.balance)).toBeLessThan(50);
    expect(new Set(points.map((p) => p.equity)).size).toBeGreaterThan(1);

    // Nothing more while the clock stands still; the live leader's round never samples it.
    await t.trading.performance.sampler.sample();
    const again = equityCurveSchema.parse(
      (await call('GET', `/api/trading/equity-curve/?account=${replay.account_id}`)).json().data,
    );
    expect(again).toEqual(points);
  });
});
