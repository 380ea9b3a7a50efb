import { chartLayoutSchema, DEFAULT_CHART_LAYOUT } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import * as repo from './repo.js';

// docs/charting.md#layouts-and-chart-settings: one layout per trader, the default until one is saved.

let t: TestApp;
type Who = Awaited<ReturnType<typeof insertSignedInTrader>>;

const get = (who: Who) => t.app.inject({ method: 'GET', url: '/api/trading/chart-layout/', headers: who.headers });
const put = (who: Who, payload: unknown) =>
  t.app.inject({ method: 'PUT', url: '/api/trading/chart-layout/', headers: who.headers, payload: payload as object });

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('the chart layout', () => {
  it('is the default until the trader saves one, then the one saved, on every device', async () => {
    const trader = await insertSignedInTrader(t);
    const first = await get(trader);
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toEqual(DEFAULT_CHART_LAYOUT);

    const saved = await put(trader, {
      layout: 2,
      charts: [
        { symbol: 'eurusd', timeframe: 'm15', indicators: [{ kind: 'ema', period: 50 }, { kind: 'rsi' }] },
        { symbol: 'USDJPY', timeframe: 'h4' },
      ],
      settings: { one_click: true },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    // As kept: symbols upper case, every default filled in.
    const kept = {
      layout: 2,
      charts: [
        {
          symbol: 'EURUSD',
          timeframe: 'm15',
          indicators: [
            { kind: 'ema', period: 50 },
            { kind: 'rsi', period: 14 },
          ],
        },
        { symbol: 'USDJPY', timeframe: 'h4', indicators: [] },
      ],
      settings: { one_click: true, one_click_lots: 0.01 },
    };
    expect(saved.json().data).toEqual(kept);
    expect((await get(trader)).json().data).toEqual(kept);

    // Saving again replaces it; another trader still has the default.
    const single = { layout: 1, charts: [{ symbol: 'GBPJPY', timeframe: 'd1', indicators: [] }], settings: kept.settings };
    expect((await put(trader, single)).json().data).toEqual(single);
    expect((await get(trader)).json().data).toEqual(single);
    expect((await get(await insertSignedInTrader(t))).json().data).toEqual(DEFAULT_CHART_LAYOUT);
  });

  it('is refused when it does not read as a layout (400) or names a pair outside the catalogue (404)', async () => {
    const trader = await insertSignedInTrader(t);
    const chart = { symbol: 'EURUSD', timeframe: 'h1' };
    const mismatch = await put(trader, { layout: 2, charts: [chart] });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().details[0].field).toBe('charts');
    expect((await put(trader, { layout: 3, charts: [chart, chart, chart] })).statusCode).toBe(400);
    expect((await put(trader, { layout: 1, charts: [{ ...chart, timeframe: 'h2' }] })).statusCode).toBe(400);
    expect((await put(trader, { layout: 1, charts: [{ ...chart, indicators: [{ kind: 'sma', period: 0 }] }] })).statusCode).toBe(
      400,
    );
    expect((await put(trader, { layout: 1, charts: [chart], extra: true })).statusCode).toBe(400);
    const unknown = await put(trader, { layout: 2, charts: [chart, { symbol: 'XAUUSD', timeframe: 'h1' }] });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('PAIR_NOT_FOUND');
    // Nothing refused was kept.
    expect((await get(trader)).json().data).toEqual(DEFAULT_CHART_LAYOUT);
  });

  it('kept in a form that no longer reads as a layout gives the default', async () => {
    const trader = await insertSignedInTrader(t);
    const q = t.ctx.db.kysely;
    await repo.saveLayout(q, trader.userId, '{"layout": 4, "charts": []}', Date.now());
    expect((await get(trader)).json().data).toEqual(DEFAULT_CHART_LAYOUT);
    await repo.saveLayout(q, trader.userId, 'not json', Date.now());
    expect((await get(trader)).json().data).toEqual(DEFAULT_CHART_LAYOUT);
    // A layout kept before a field had its default reads with the default filled in.
    await repo.saveLayout(q, trader.userId, '{"layout": 1, "charts": [{"symbol": "EURUSD", "timeframe": "m5"}]}', Date.now());
    const read = (await get(trader)).json().data;
    expect(chartLayoutSchema.parse(read)).toEqual(read);
    expect(read.charts[0]).toEqual({ symbol: 'EURUSD', timeframe: 'm5', indicators: [] });
  });
});
