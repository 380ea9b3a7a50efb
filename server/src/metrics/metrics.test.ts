import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';

const TOKEN = 'metrics-token-for-the-test-0123';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** One sample's value from the Prometheus text (`name{labels}`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(app: TestApp): Promise<string> {
  const res = await app.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  return res.body;
}

describe('metrics (docs/operations.md#metrics)', () => {
  it('are off by default: /metrics is a 404 in the envelope', async () => {
    t = await startTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect(t.ctx.metrics.enabled).toBe(false);
  });

  it('with METRICS_TOKEN: served on the main port behind the bearer only', async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN } });
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json()).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
    }
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    for (const name of [
      'pipdesk_http_request_duration_seconds',
      'pipdesk_orders_total',
      'pipdesk_trigger_executions_total',
      'pipdesk_open_sockets',
      'pipdesk_ticks_total',
      'pipdesk_event_loop_lag_seconds',
      'pipdesk_transaction_duration_seconds',
      'pipdesk_bus_delay_seconds',
    ]) {
      expect(res.body).toContain(`# TYPE ${name} `);
    }
  });

  it('count an order, its transaction, its request by route pattern, and ticks', async () => {
    const prices = new ScriptedPriceSource();
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN }, priceSource: prices });
    prices.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1002, timestamp: Date.now() });
    const trader = await insertSignedInTrader(t, { balanceMinor: 10_000_00 });
    const before = await scrape(t);
    expect(sample(before, 'pipdesk_ticks_total{symbol="EURUSD"}')).toBe(1);
    expect(sample(before, 'pipdesk_orders_total{type="MARKET",outcome="filled",reason="client"}')).toBeUndefined();
    const transactionsBefore = sample(before, 'pipdesk_transaction_duration_seconds_count{outcome="commit"}') ?? 0;

    const order = (quantity: number) =>
      t!.app.inject({
        method: 'POST',
        url: '/api/trading/place-market-order/',
        headers: trader.headers,
        payload: { symbol: 'EURUSD', side: 'BUY', quantity },
      });
    expect((await order(0.1)).statusCode).toBe(201);
    // 50 lots need 55,000 USD of margin, far more than 10,000 USD: stored REJECTED.
    expect((await order(50)).statusCode).toBe(422);
    await t.app.inject({ method: 'GET', url: '/api/trading/orders/?page=1', headers: trader.headers });

    const after = await scrape(t);
    expect(sample(after, 'pipdesk_orders_total{type="MARKET",outcome="filled",reason="client"}')).toBe(1);
    expect(sample(after, 'pipdesk_orders_total{type="MARKET",outcome="rejected",reason="INSUFFICIENT_MARGIN"}')).toBe(1);
    expect(sample(after, 'pipdesk_transaction_duration_seconds_count{outcome="commit"}')).toBeGreaterThan(transactionsBefore);
    expect(
      sample(
        after,
        'pipdesk_http_request_duration_seconds_count{route="/api/trading/place-market-order/",method="POST",status="201"}',
      ),
    ).toBe(1);
    // The route's pattern, never the raw URL with its query.
    expect(after).toContain('route="/api/trading/orders/"');
    expect(after).not.toContain('page=1');
  });

  it('count what the trigger engine executes and the pending order it fills', async () => {
    const prices = new ScriptedPriceSource();
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN }, priceSource: prices });
    const app = t;
    prices.push({ symbol: 'EURUSD', bid: 1.085, ask: 1.0852, timestamp: Date.now() });
    const trader = await insertSignedInTrader(t, { balanceMinor: 10_000_00 });
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-pending-order/',
      headers: trader.headers,
      payload: { symbol: 'EURUSD', side: 'BUY', order_type: 'LIMIT', quantity: 0.1, price: 1.08 },
    });
    expect(placed.statusCode, placed.body).toBe(201);
    expect(sample(await scrape(app), 'pipdesk_orders_total{type="LIMIT",outcome="placed",reason="client"}')).toBe(1);
    // The ask falls through the limit: the leader's engine fills it.
    await vi.waitFor(
      async () => {
        prices.push({ symbol: 'EURUSD', bid: 1.0795, ask: 1.0797, timestamp: Date.now() });
        const text = await scrape(app);
        expect(sample(text, 'pipdesk_trigger_executions_total{kind="fill",outcome="filled"}')).toBe(1);
        expect(sample(text, 'pipdesk_orders_total{type="LIMIT",outcome="filled",reason="client"}')).toBe(1);
      },
      { timeout: 10_000, interval: 200 },
    );
  });

  it('with METRICS_PORT: a separate listener serves /metrics and nothing else; the main port answers 404', async () => {
    t = await startTestApp({ env: { METRICS_PORT: '0' } });
    expect(t.metricsPort).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${t.metricsPort}`;
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE pipdesk_orders_total counter');
    const other = await fetch(`${base}/api/health/`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });

  it('with METRICS_PORT and METRICS_TOKEN: the separate listener wants the bearer too', async () => {
    t = await startTestApp({ env: { METRICS_PORT: '0', METRICS_TOKEN: TOKEN } });
    const url = `http://127.0.0.1:${t.metricsPort}/metrics`;
    const refused = await fetch(url, { headers: { authorization: 'Bearer nope' } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('count open sockets by kind', async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN }, listen: true });
    const app = t;
    const open = async () => sample(await scrape(app), 'pipdesk_open_sockets{kind="price"}');
    expect(await open()).toBe(0);
    const socket = new WebSocket(`${t.url.replace('http', 'ws')}/ws/prices/`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    await vi.waitFor(async () => expect(await open()).toBe(1), { timeout: 10_000 });
    socket.close();
    await vi.waitFor(async () => expect(await open()).toBe(0), { timeout: 10_000 });
    expect(sample(await scrape(app), 'pipdesk_open_sockets{kind="trading"}')).toBe(0);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  describe('metrics on the Redis bus', () => {
    it('record the delay of events that crossed the bus', async () => {
      const prices = new ScriptedPriceSource();
      t = await startTestApp({ env: { METRICS_TOKEN: TOKEN, REDIS_URL: redisUrl }, priceSource: prices });
      const app = t;
      await vi.waitFor(
        async () => {
          prices.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1002, timestamp: Date.now() });
          const text = await scrape(app);
          expect(sample(text, 'pipdesk_bus_delay_seconds_count{topic="tick"}')).toBeGreaterThan(0);
          expect(sample(text, 'pipdesk_ticks_total{symbol="EURUSD"}')).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 200 },
      );
    });
  });
}
