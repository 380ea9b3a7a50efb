import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { PriceSocketClient as Client } from '../test/price-socket-client.js';
import { signedInTrader } from '../test/traders.js';
import { bucketStart, MINUTE_MS } from './candles.js';
import { ScriptedPriceSource } from './sources/scripted.js';

const NOW = Date.UTC(2026, 2, 10, 14, 37, 20);
const M = bucketStart(NOW, 1);

describe('/ws/prices/', () => {
  let t: TestApp;
  let source: ScriptedPriceSource;
  const clients: Client[] = [];
  const open = async (headers?: Record<string, string>) => {
    const c = await Client.open(t, headers);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    source = new ScriptedPriceSource();
    t = await startTestApp({ listen: true, clock: new ManualClock(NOW), priceSource: source, env: { CHART_HISTORY_DAYS: '0' } });
    // History the gap-fill tests read: minutes M-4 … M-2 (closed) and the live minute M of USDJPY.
    for (const [minute, bid] of [
      [M - 4 * MINUTE_MS, 150.1],
      [M - 3 * MINUTE_MS, 150.2],
      [M - 2 * MINUTE_MS, 150.3],
      [M, 150.4],
    ] as const) {
      source.push({ symbol: 'USDJPY', bid, ask: bid + 0.012, timestamp: minute + 5_000 });
    }
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  it('tells a new connection the price source is up', async () => {
    const c = await open();
    const [notice] = await c.waitFor('external_feed_connected');
    expect(notice).toEqual({ type: 'external_feed_connected', source: 'scripted' });
  });

  it('streams price updates and the live candle of a subscribed pair', async () => {
    const c = await open();
    c.send({ type: 'subscribe_prices', symbol: 'eurusd', timeframe: '1m' });
    await new Promise((r) => setTimeout(r, 100));
    source.push({ symbol: 'EURUSD', bid: 1.08412, ask: 1.08422, timestamp: NOW });
    const [price] = await c.waitFor('price_update', (m) => m.bid === 1.08412);
    expect(price).toEqual({
      type: 'price_update',
      symbol: 'EURUSD',
      price: 1.08417,
      bid: 1.08412,
      ask: 1.08422,
      timestamp: new Date(NOW).toISOString(),
    });
    const [chart] = await c.waitFor('chart_update', (m) => m.symbol === 'EURUSD');
    expect(chart).toMatchObject({ symbol: 'EURUSD', timeframe: '1m', candle: { time: M, close: 1.08417 } });
    source.push({ symbol: 'EURUSD', bid: 1.0845, ask: 1.0846, timestamp: NOW });
    await c.waitFor('price_update', (m) => m.bid === 1.0845);
    const updates = await c.waitFor('chart_update', (m) => m.candle.close === 1.08455);
    expect(updates[0]!.candle).toMatchObject({ time: M, open: 1.08417, high: 1.08455, low: 1.08417, close: 1.08455 });
    // Other pairs do not reach this client.
    source.push({ symbol: 'GBPUSD', bid: 1.25, ask: 1.2501, timestamp: NOW });
    await new Promise((r) => setTimeout(r, 100));
    expect(c.messages.some((m) => m.type === 'price_update' && m.symbol === 'GBPUSD')).toBe(false);
  });

  it('sends the current price and live candle at once on subscribe', async () => {
    const c = await open();
    c.send({ type: 'subscribe_prices', symbol: 'USDJPY', timeframe: '1m', last_chart_time: null });
    const [chart] = await c.waitFor('chart_update');
    expect(chart!.candle).toMatchObject({ time: M, close: 150.406 });
    const [price] = await c.waitFor('price_update');
    expect(price).toMatchObject({ symbol: 'USDJPY', bid: 150.4, ask: 150.412, price: 150.406 });
  });

  it('fills the gap after last_chart_time with the closed candles, then the live one', async () => {
    const expectGapFill = async (lastChartTime: number) => {
      const c = await open();
      c.send({ type: 'subscribe_prices', symbol: 'USDJPY', timeframe: '1m', last_chart_time: lastChartTime });
      const charts = await c.waitFor('chart_update', () => true, 3);
      expect(charts.map((m) => m.candle.time)).toEqual([M - 3 * MINUTE_MS, M - 2 * MINUTE_MS, M]);
      expect(charts.map((m) => m.candle.close)).toEqual([150.206, 150.306, 150.406]);
      expect(charts[0]).toEqual({
        type: 'chart_update',
        symbol: 'USDJPY',
        timeframe: '1m',
        candle: { time: M - 3 * MINUTE_MS, open: 150.206, high: 150.206, low: 150.206, close: 150.206, volume: 1 },
      });
      // The price comes after the candles.
      const types = c.messages.filter((m) => m.type !== 'external_feed_connected').map((m) => m.type);
      await c.waitFor('price_update');
      expect(types.slice(0, 3)).toEqual(['chart_update', 'chart_update', 'chart_update']);
    };
    await expectGapFill(M - 3 * MINUTE_MS);
    // Seconds (as charting libraries count) are understood too.
    await expectGapFill((M - 3 * MINUTE_MS) / 1000);
    // Once written to the database, the same answer.
    await t.market.flushCandles();
    await expectGapFill(M - 3 * MINUTE_MS);
  });

  it('answers an unknown pair with an error and keeps the connection', async () => {
    const c = await open();
    c.send({ type: 'subscribe_prices', symbol: 'XXXYYY', timeframe: '1m' });
    const [error] = await c.waitFor('error');
    expect(error).toEqual({ type: 'error', message: 'Currency pair XXXYYY not found' });
    c.send({ type: 'ping', ts: 7 });
    const [pong] = await c.waitFor('pong');
    expect(pong).toEqual({ type: 'pong', ts: 7 });
    expect(c.closed).toBeUndefined();
  });

  it('answers malformed messages with an error and keeps the connection', async () => {
    const c = await open();
    const cases: Array<[unknown, RegExp]> = [
      ['this is not json', /^Malformed message/],
      ['[1,2,3]', /^Malformed message/],
      [{ symbol: 'EURUSD' }, /missing "type"/],
      [{ type: 'buy_everything' }, /^Unknown message type: buy_everything/],
      [{ type: 'subscribe_prices' }, /^Invalid subscribe_prices: symbol/],
      [
        { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '5m' },
        /^Invalid subscribe_prices: timeframe must be one of 1m, m1, m5/,
      ],
      [
        { type: 'subscribe_prices', symbol: 'EURUSD', last_chart_time: 'yesterday' },
        /^Invalid subscribe_prices: last_chart_time/,
      ],
    ];
    for (const [message, expected] of cases) {
      const before = c.messages.filter((m) => m.type === 'error').length;
      c.send(message);
      const errors = await c.waitFor('error', () => true, before + 1);
      expect(errors.at(-1)!.message).toMatch(expected);
    }
    c.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    await c.waitFor('error', () => true, cases.length + 1);
    c.send({ type: 'ping' });
    await c.waitFor('pong');
    expect(c.closed).toBeUndefined();
  });

  it('stops sending a pair after unsubscribe_prices', async () => {
    const c = await open();
    c.send({ type: 'subscribe_prices', symbol: 'AUDUSD' });
    c.send({ type: 'unsubscribe_prices', symbol: 'AUDUSD' });
    c.send({ type: 'ping' });
    await c.waitFor('pong');
    source.push({ symbol: 'AUDUSD', bid: 0.66, ask: 0.6601, timestamp: NOW });
    c.send({ type: 'ping' });
    await c.waitFor('pong', () => true, 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(c.messages.some((m) => m.type === 'price_update')).toBe(false);
  });

  it('tells clients when the feed goes down and comes back', async () => {
    const c = await open();
    await c.waitFor('external_feed_connected');
    source.setConnected(false);
    const [down] = await c.waitFor('external_feed_disconnected');
    expect(down).toEqual({ type: 'external_feed_disconnected', source: 'scripted' });
    const health = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(health.json().data.price_source).toMatchObject({ name: 'scripted', connected: false });
    source.setConnected(true);
    await c.waitFor('external_feed_connected', () => true, 2);
  });

  it('limits the message rate of a connection', async () => {
    const c = await open();
    for (let i = 0; i < 40; i++) c.send({ type: 'ping', ts: i });
    await c.waitFor('error', (m) => m.message === 'Too many messages: slow down');
    await c.waitFor('pong', () => true, 20);
    await new Promise((r) => setTimeout(r, 200));
    const pongs = c.messages.filter((m) => m.type === 'pong').length;
    expect(pongs).toBeLessThan(30);
    expect(c.closed).toBeUndefined();
    // After a pause the bucket has refilled.
    await new Promise((r) => setTimeout(r, 1100));
    c.send({ type: 'ping', ts: 999 });
    await c.waitFor('pong', (m) => m.ts === 999);
  });

  it('closes a connection that keeps flooding', async () => {
    const c = await open();
    for (let i = 0; i < 300; i++) c.send({ type: 'ping', ts: i });
    const closed = await c.waitClosed();
    expect(closed.code).toBe(1008);
    expect(c.messages.some((m) => m.type === 'error' && m.message === 'Too many messages: slow down')).toBe(true);
  });

  it('accepts a valid bearer token and refuses a bad one', async () => {
    const { headers } = await signedInTrader(t);
    const good = await open(headers);
    good.send({ type: 'ping' });
    await good.waitFor('pong');
    expect(good.closed).toBeUndefined();

    const bad = await open({ authorization: 'Bearer not-a-token' });
    const [error] = await bad.waitFor('error');
    expect(error!.message).toBe('Invalid or expired token');
    expect((await bad.waitClosed()).code).toBe(4001);
  });
});
