import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { PRICE_MAX_AGE_MS } from './service.js';

/** The probes (docs/operations.md#health); the database outage itself is in faults/db-outage.test.ts. */
describe('health probes', () => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 2, 3, 10, 0, 0));
  const prices = new ScriptedPriceSource();
  const get = (url: string) => t.app.inject({ method: 'GET', url });
  const tick = () => prices.push({ symbol: 'EURUSD', bid: 1.08, ask: 1.0801, timestamp: clock.now() });

  beforeAll(async () => {
    t = await startTestApp({ clock, priceSource: prices });
  });
  afterAll(async () => {
    await t.close();
  });

  it('live answers 200 whatever the state', async () => {
    const res = await get('/api/health/live/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { status: 'live' } });
  });

  it('without a price yet: ready and health answer 503 naming the price', async () => {
    const ready = await get('/api/health/ready/');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      success: false,
      code: 'UNAVAILABLE',
      error: 'Not ready: price',
      details: { failed: ['price'], db: { kind: testDbKind, ok: true }, bus: { ok: true } },
    });
    const health = await get('/api/health/');
    expect(health.statusCode).toBe(503);
    expect(health.json().data).toMatchObject({ status: 'degraded', db: { ok: true }, price_source: { last_tick_age_ms: null } });
    expect((await get('/api/health/live/')).statusCode).toBe(200);
  });

  it('with a fresh price: 200, and health keeps its shape', async () => {
    tick();
    const ready = await get('/api/health/ready/');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      success: true,
      data: {
        status: 'ready',
        db: { kind: testDbKind, ok: true },
        bus: { kind: 'memory', ok: true },
        price_source: {
          name: 'scripted',
          connected: true,
          last_tick_age_ms: 0,
          stale_after_ms: 10_000,
          // Only EURUSD has ticked: the other pairs have no price here yet.
          stale_pairs: expect.arrayContaining([{ symbol: 'GBPUSD', age_ms: null }]),
        },
      },
    });
    const health = await get('/api/health/');
    expect(health.statusCode).toBe(200);
    expect(Object.keys(health.json().data)).toEqual(['status', 'db', 'bus', 'price_source', 'news']);
    expect(health.json().data.status).toBe('ok');
  });

  it('a price older than 10 s makes the node not ready; the next tick makes it ready again', async () => {
    clock.advance(PRICE_MAX_AGE_MS);
    expect((await get('/api/health/ready/')).statusCode).toBe(200);
    clock.advance(1);
    const stale = await get('/api/health/ready/');
    expect(stale.statusCode).toBe(503);
    expect(stale.json().details.failed).toEqual(['price']);
    expect((await get('/api/health/')).statusCode).toBe(503);
    tick();
    expect((await get('/api/health/ready/')).statusCode).toBe(200);
    expect((await get('/api/health/')).statusCode).toBe(200);
  });
});
