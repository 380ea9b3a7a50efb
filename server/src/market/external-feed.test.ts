import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { systemClock } from '../core/clock.js';
import { seededPairs } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { ExternalFeedSource } from './sources/external-feed.js';
import type { Quote } from './types.js';

/** A stand-in for a vendor's feed: records what it is sent, lets the test push ticks. */
class FakeFeed {
  readonly server: WebSocketServer;
  readonly received: unknown[] = [];
  connections = 0;
  private sockets = new Set<WebSocket>();

  constructor() {
    this.server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    this.server.on('connection', (socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('message', (data) => this.received.push(JSON.parse(data.toString())));
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<FakeFeed> {
    const feed = new FakeFeed();
    await new Promise((resolve) => feed.server.once('listening', resolve));
    return feed;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/feed`;
  }

  send(message: unknown): void {
    for (const s of this.sockets) s.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  dropAll(): void {
    for (const s of this.sockets) s.terminate();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function until(check: () => boolean, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('external feed adapter', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function start(feed: FakeFeed, staleMs = 400) {
    const quotes: Quote[] = [];
    const source = new ExternalFeedSource({
      url: feed.url,
      pairs: seededPairs(),
      clock: systemClock,
      staleMs,
      initialBackoffMs: 30,
      maxBackoffMs: 200,
    });
    cleanups.push(() => source.stop());
    return { source, quotes, run: () => source.start((q) => quotes.push(q)) };
  }

  it('subscribes to the catalogue, takes valid ticks and drops bad ones', async () => {
    const feed = await FakeFeed.start();
    cleanups.push(() => feed.close());
    const { source, quotes, run } = start(feed);
    await run();
    await until(() => feed.received.length > 0);
    expect(feed.received[0]).toEqual({ type: 'subscribe', symbols: seededPairs().map((p) => p.symbol) });
    expect(source.connected()).toBe(false);

    feed.send({ type: 'tick', symbol: 'eurusd', bid: 1.084123, ask: 1.08421 });
    feed.send({
      type: 'ticks',
      ticks: [
        { symbol: 'USDJPY', bid: 151.234, ask: 151.246 },
        { symbol: 'XAUUSD', bid: 1, ask: 2 },
      ],
    });
    feed.send({ type: 'tick', symbol: 'GBPUSD', bid: 1.27, ask: 1.26 });
    feed.send({ type: 'tick', symbol: 'GBPUSD', bid: 'abc', ask: 1.26 });
    feed.send('not json');
    feed.send({ type: 'heartbeat' });
    await until(() => quotes.length >= 2);
    await new Promise((r) => setTimeout(r, 50));
    expect(quotes.map((q) => [q.symbol, q.bid, q.ask])).toEqual([
      ['EURUSD', 1.08412, 1.08421],
      ['USDJPY', 151.234, 151.246],
    ]);
    expect(source.connected()).toBe(true);
  });

  it('goes disconnected when ticks stop, drops the quiet connection and dials again', async () => {
    const feed = await FakeFeed.start();
    cleanups.push(() => feed.close());
    const { source, run } = start(feed, 300);
    await run();
    await until(() => feed.connections === 1 && feed.received.length === 1);
    feed.send({ type: 'tick', symbol: 'EURUSD', bid: 1.1, ask: 1.1001 });
    await until(() => source.connected());
    await until(() => !source.connected(), 2000);
    await until(() => feed.connections >= 2, 3000);
    feed.send({ type: 'tick', symbol: 'EURUSD', bid: 1.1, ask: 1.1001 });
    await until(() => source.connected());
  });

  it('reconnects with backoff after the feed drops or is down', async () => {
    const feed = await FakeFeed.start();
    const url = feed.url;
    const { source, run } = start(feed);
    await run();
    await until(() => feed.connections === 1);
    // The feed goes away entirely for a while: attempts fail and back off, then it returns on the same port.
    const port = Number(new URL(url).port);
    await feed.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(source.connected()).toBe(false);
    const back = new WebSocketServer({ port, host: '127.0.0.1' });
    await new Promise((resolve) => back.once('listening', resolve));
    let reconnected = 0;
    back.on('connection', (s) => {
      reconnected++;
      s.send(JSON.stringify({ type: 'tick', symbol: 'EURUSD', bid: 1.2, ask: 1.2001 }));
    });
    cleanups.push(() => new Promise<void>((resolve) => back.close(() => resolve())));
    await until(() => reconnected === 1 && source.connected(), 3000);
  });
});

describe('PRICE_SOURCE=external', () => {
  let t: TestApp | undefined;
  let feed: FakeFeed | undefined;
  afterEach(async () => {
    await t?.close();
    await feed?.close();
  });

  it('reports the feed in health and to price-socket clients', async () => {
    feed = await FakeFeed.start();
    t = await startTestApp({
      listen: true,
      env: { PRICE_SOURCE: 'external', EXTERNAL_FEED_URL: feed.url, EXTERNAL_FEED_STALE_MS: '600', CHART_HISTORY_DAYS: '0' },
    });
    const health = async () => (await t!.app.inject({ method: 'GET', url: '/api/health/' })).json().data.price_source;
    expect(await health()).toMatchObject({ name: 'external', connected: false, last_tick_age_ms: null });

    const client = new WebSocket(`${t.url.replace(/^http/, 'ws')}/ws/prices/`);
    const messages: Array<{ type: string }> = [];
    client.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise((r) => client.once('open', r));
    client.send(JSON.stringify({ type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m' }));

    await until(() => feed!.connections === 1);
    const ticking = setInterval(() => feed?.send({ type: 'tick', symbol: 'EURUSD', bid: 1.1, ask: 1.1001 }), 100);
    try {
      await until(() => messages.some((m) => m.type === 'external_feed_connected'));
      expect(messages.find((m) => m.type === 'external_feed_connected')).toEqual({
        type: 'external_feed_connected',
        source: 'external',
      });
      await until(() => messages.some((m) => m.type === 'price_update'));
      const up = await health();
      expect(up).toMatchObject({ name: 'external', connected: true });
      expect(up.last_tick_age_ms).toBeLessThan(1000);
    } finally {
      clearInterval(ticking);
    }
    await until(() => messages.some((m) => m.type === 'external_feed_disconnected'), 4000);
    expect((await health()).connected).toBe(false);
    client.close();
  });
});
