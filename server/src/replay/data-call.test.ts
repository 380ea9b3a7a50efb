import { replayDataSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReplayData } from '../market/index.js';
import { insertSignedInTrader } from '../test/factories.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { dataRange, replaySymbols } from './data-range.js';

/** GET trading/replays/data/ (docs/replay.md#which-pairs-and-when): the pairs a session can play, from the loaded series. */
describe('the pairs with data', () => {
  const cleanups: Array<() => Promise<void>> = [];
  let t: TestApp;

  beforeAll(async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    t = await startTestApp({ dataDir: db.dataDir, ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}) });
  });
  afterAll(async () => {
    await t?.close();
    for (const c of cleanups.reverse()) await c();
  });

  it('lists every shipped pair with its own data range, by symbol, to a signed-in trader only', async () => {
    const me = await insertSignedInTrader(t);
    const answer = await t.app.inject({ method: 'GET', url: '/api/trading/replays/data/', headers: me.headers });
    expect(answer.statusCode, answer.body).toBe(200);
    const { pairs } = replayDataSchema.parse(answer.json().data);
    const data = loadReplayData();
    expect(pairs.map((p) => p.symbol)).toEqual(replaySymbols(data));
    expect(pairs.map((p) => p.symbol)).toEqual(['AUDUSD', 'EURCHF', 'EURJPY', 'EURUSD', 'GBPUSD', 'USDCAD', 'USDJPY']);
    // The range docs/replay.md names for EURUSD alone, and each pair's as a session of it alone would run.
    expect(pairs.find((p) => p.symbol === 'EURUSD')).toEqual({
      symbol: 'EURUSD',
      data_from: '2023-04-03T12:01:00.000Z',
      data_to: '2023-05-10T15:00:00.000Z',
    });
    for (const p of pairs) {
      const range = dataRange(data, [p.symbol]);
      expect([p.data_from, p.data_to]).toEqual([new Date(range!.from).toISOString(), new Date(range!.to).toISOString()]);
    }
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/trading/replays/data/' });
    expect(anonymous.statusCode).toBe(401);
  });
});
