import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { auditAccount } from './audit.js';

/**
 * No fill on a stale quote (docs/trading-rules.md#no-fill-on-a-stale-quote), through the whole
 * server: prices stop, and once the last quote is older than EXTERNAL_FEED_STALE_MS a market
 * order and a close are rejected 422 NO_PRICE with the spec's reason while health names the
 * stale pair; the next tick makes them fill again.
 */
const STALE_MS = 5_000;
const clock = new ManualClock(Date.UTC(2026, 2, 2, 10));
const prices = new ScriptedPriceSource();
let t: TestApp;

const tick = (bid = 1.1, ask = 1.1002) => prices.push({ symbol: 'EURUSD', bid, ask, timestamp: clock.now() });

beforeAll(async () => {
  t = await startTestApp({ priceSource: prices, clock, env: { EXTERNAL_FEED_STALE_MS: String(STALE_MS) } });
});
afterAll(async () => {
  await t?.close();
});

describe('a market order and a close on a stale quote', () => {
  it('are rejected NO_PRICE once the quote is older than the limit, health says which pair, and fill again after a tick', async () => {
    const trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
    const post = (url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url, headers: trader.headers, ...(payload ? { payload } : {}) });
    const buy = () => post('/api/trading/place-market-order/', { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
    tick();
    const opened = await buy();
    expect(opened.statusCode).toBe(201);
    const positionId = opened.json().data.position.id as number;

    // Exactly at the limit the quote still counts.
    clock.advance(STALE_MS);
    expect((await buy()).statusCode).toBe(201);

    clock.advance(1);
    const rejected = await buy();
    expect(rejected.statusCode).toBe(422);
    expect(rejected.json()).toMatchObject({
      success: false,
      code: 'NO_PRICE',
      error: 'No price available for EURUSD',
      data: { order: { status: 'REJECTED', rejection_reason: 'No price available for EURUSD' } },
    });
    const close = await post(`/api/trading/close-position/${positionId}/`);
    expect(close.statusCode).toBe(422);
    expect(close.json()).toMatchObject({ code: 'NO_PRICE', error: 'No price available for EURUSD' });

    const health = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(health.json().data.price_source).toMatchObject({ stale_after_ms: STALE_MS });
    expect(health.json().data.price_source.stale_pairs).toContainEqual({ symbol: 'EURUSD', age_ms: STALE_MS + 1 });

    // A new tick: fresh again.
    tick(1.1001, 1.1003);
    const health2 = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(health2.json().data.price_source.stale_pairs.map((p: { symbol: string }) => p.symbol)).not.toContain('EURUSD');
    const filled = await buy();
    expect(filled.statusCode).toBe(201);
    expect(filled.json().data.order.status).toBe('FILLED');
    const closed = await post(`/api/trading/close-position/${positionId}/`);
    expect(closed.statusCode).toBe(200);
    expect(await auditAccount(t.ctx.db, trader.accountId!)).toEqual([]);
  });
});
