import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { type Cluster, databaseUrlInSchema, findNginx, startCluster } from '../../../scripts/cluster-lib.mjs';
import { buildServer } from '../test/child-server.js';
import { freshDatabase, testDbKind, UNTHROTTLED_ENV } from '../test/helpers.js';

/**
 * docs/deployment.md: real server processes (server/dist/main.js) behind a real nginx, with
 * deploy/nginx/pipdesk-proxy.conf's rules, on one PostgreSQL and one Redis, and no JWT_SECRET:
 * each test starts its own two nodes on a fresh schema and Redis prefix (scripts/cluster-lib.mjs,
 * the code `npm run cluster` runs). What a trader and an operator see: a sign-in on one node holds
 * on the other, an order on one reaches a socket on the other, a logout on one closes sockets on
 * the other, and a killed leader hands the price source and the order engine over within 10 s.
 */
const redisUrl = process.env.TEST_REDIS_URL;
const clustered = testDbKind === 'postgres' && redisUrl !== undefined;
const nginx = findNginx();
// CI (.ci/run) requires the services; there a missing nginx must fail the run, not skip it.
const required = process.env.REQUIRE_POSTGRES === '1' || process.env.REQUIRE_REDIS === '1';
if (testDbKind === 'postgres' && required && !redisUrl) throw new Error('REQUIRE_REDIS=1 but TEST_REDIS_URL is not set');
if (clustered && required && !nginx)
  throw new Error('the multi-node suite needs nginx: apt-get install -y nginx (npm test installs it when run as root)');

const DEMO = { email: 'demo@pipdesk.dev', password: 'demo-trader-2026' };

type Message = Record<string, unknown> & { type: string };

async function call(base: string, method: string, route: string, token?: string, body?: object) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: () => JSON.parse(text) as Record<string, unknown> & { data?: Record<string, unknown> },
  };
}

async function signIn(base: string): Promise<string> {
  const res = await call(base, 'POST', '/api/auth/login/', undefined, DEMO);
  expect(res.status, res.text).toBe(200);
  return res.json().data!.token as string;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A signed-in trading socket (docs/api.md#trading-socket) that keeps what it receives and how it closed. */
async function tradingSocket(base: string, token: string) {
  const origin = base;
  // The browser's Origin: accepted only if nginx passes the Host (with its port) the browser used.
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/trading/`, { headers: { origin } });
  const messages: Message[] = [];
  let closeCode: number | undefined;
  ws.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
  ws.on('close', (code) => {
    closeCode = code;
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const next = (type: string, where: (m: Message) => boolean = () => true, timeoutMs = 10_000) =>
    until(`${type} on ${base}`, () => messages.find((m) => m.type === type && where(m)), timeoutMs);
  ws.send(JSON.stringify({ type: 'authenticate', token }));
  await next('connection_established');
  return {
    messages,
    next,
    closed: () => until(`the socket on ${base} to close`, () => closeCode, 10_000),
    close: () => ws.close(),
  };
}

const confirms = (orderId: unknown) => (m: Message) =>
  (m.data as { order?: { id?: unknown } } | undefined)?.order?.id === orderId;

describe.skipIf(!clustered || !nginx)('two nodes behind nginx (no JWT_SECRET)', () => {
  let cluster: Cluster | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  let dataDir = '';

  beforeAll(() => buildServer(), 240_000);

  afterEach(async () => {
    await cluster?.stop();
    await dropDatabase?.();
    cluster = undefined;
    dropDatabase = undefined;
  });

  /** Two nodes on a fresh schema and Redis prefix, the demo trader seeded, behind nginx. */
  async function start(env: Record<string, string> = {}): Promise<Cluster> {
    const fresh = await freshDatabase();
    dropDatabase = fresh.drop;
    dataDir = fresh.dataDir;
    cluster = await startCluster({
      nodes: 2,
      dir: fresh.dataDir,
      databaseUrl: databaseUrlInSchema(process.env.TEST_DATABASE_URL!, fresh.pgSchema!),
      redisUrl: redisUrl!,
      redisPrefix: `pipdesk-cluster-test-${randomBytes(4).toString('hex')}:`,
      nginx,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        SEED_DEMO: 'true',
        CHART_HISTORY_DAYS: '0',
        // info: the request lines and the order engine's "leading" line tell which node did what.
        LOG_LEVEL: 'info',
        TRUST_PROXY: 'true',
        ...UNTHROTTLED_ENV,
        ...env,
      },
    });
    return cluster;
  }

  it('a sign-in through one node is honoured by the other; nginx spreads calls over both and passes the true client address', async () => {
    const { url, nodes } = await start({ LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
    const [a, b] = [nodes[0]!, nodes[1]!];
    const token = await signIn(a.url);
    const me = await call(b.url, 'GET', '/api/auth/me/', token);
    expect(me.status, me.text).toBe(200);
    expect(me.json().data).toMatchObject({ email: DEMO.email });
    // Each node generated its own candidate secret in its own data folder; both sign with the database's.
    const candidates = ['node-1', 'node-2'].map((n) => readFileSync(path.join(dataDir, n, 'jwt-secret'), 'utf8'));
    expect(candidates[0]).not.toBe(candidates[1]);

    const viaProxy = await signIn(url);
    for (let i = 0; i < 8; i++) {
      const res = await call(url, 'GET', '/api/trading/platform-data/', viaProxy);
      expect(res.status, res.text).toBe(200);
    }
    for (const node of nodes) expect(node.stdout()).toContain('"path":"/api/trading/platform-data/"');
    // A load balancer's view: ready once the leader's prices reach the node that answers.
    await until('ready through nginx', async () =>
      (await call(url, 'GET', '/api/health/ready/')).status === 200 ? true : undefined,
    );

    // Sign-in failures count per client address (TRUST_PROXY=true). A client that names its own
    // X-Forwarded-For is still counted under the address nginx saw, so it cannot dodge the limit.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/api/auth/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: JSON.stringify({ email: `nobody-${i}@example.com`, password: 'not-the-password' }),
      });
      expect(res.status).toBe(401);
    }
    const throttled = await call(url, 'POST', '/api/auth/login/', undefined, DEMO);
    expect(throttled.status, throttled.text).toBe(429);
  }, 60_000);

  it('an order placed on one node reaches the trader’s sockets on the other and through nginx', async () => {
    const { url, nodes } = await start();
    const [a, b] = [nodes[0]!, nodes[1]!];
    const token = await signIn(url);
    const onB = await tradingSocket(b.url, token);
    const viaProxy = await tradingSocket(url, token);
    await viaProxy.next('price_update');
    for (const node of [a, b]) {
      const res = await call(node.url, 'POST', '/api/trading/place-market-order/', token, {
        symbol: 'EURUSD',
        side: 'BUY',
        quantity: 0.1,
      });
      expect(res.status, res.text).toBe(201);
      const orderId = (res.json().data!.order as { id: number }).id;
      // The nginx socket sits on one of the nodes, so one of these two orders crossed to it.
      for (const socket of [onB, viaProxy]) await socket.next('order_confirmation', confirms(orderId));
    }
    onB.close();
    viaProxy.close();
  }, 60_000);

  it('a logout on one node closes the trader’s sockets on the other and through nginx', async () => {
    const { url, nodes } = await start();
    const [a, b] = [nodes[0]!, nodes[1]!];
    const token = await signIn(a.url);
    const onB = await tradingSocket(b.url, token);
    const viaProxy = await tradingSocket(url, token);
    const out = await call(a.url, 'POST', '/api/auth/logout/', token, {});
    expect(out.status, out.text).toBe(200);
    expect(await onB.closed()).toBe(4001);
    expect(await viaProxy.closed()).toBe(4001);
    expect((await call(b.url, 'GET', '/api/auth/me/', token)).status).toBe(401);
  }, 60_000);

  it('killing the leader moves the price source and the order engine to the other node within 10 s, and trading goes on', async () => {
    const feed = await startFeed();
    try {
      const { url, nodes } = await start({ PRICE_SOURCE: 'external', EXTERNAL_FEED_URL: feed.url });
      const [leader, follower] = [nodes[0]!, nodes[1]!];
      await until('the first node to lead', () => (leader.stdout().includes('order engine: leading') ? true : undefined));
      expect(follower.stdout()).not.toContain('order engine: leading');
      const token = await signIn(url);
      const onFollower = await tradingSocket(follower.url, token);
      await onFollower.next('price_update', (m) => m.symbol === 'EURUSD');
      // A buy limit below the market, armed on the leader's engine before it dies.
      const pending = await call(url, 'POST', '/api/trading/place-pending-order/', token, {
        symbol: 'EURUSD',
        side: 'BUY',
        order_type: 'LIMIT',
        quantity: 0.1,
        price: 1.099,
      });
      expect(pending.status, pending.text).toBe(201);
      const pendingId = (pending.json().data!.order as { id: number }).id;
      const subscribedBefore = feed.subscriptions.length;

      await leader.kill();
      const killedAt = Date.now();
      // From now on the market is below the limit: only a new leader's source and engine can fill it.
      feed.price = { bid: 1.098, ask: 1.0982 };
      await onFollower.next('order_confirmation', confirms(pendingId), 15_000);
      const filledAfterMs = Date.now() - killedAt;
      expect(filledAfterMs).toBeLessThan(10_000);
      // The price source moved: the follower dialled the feed, and its engine leads.
      expect(feed.subscriptions.length).toBeGreaterThan(subscribedBefore);
      expect(feed.subscriptions.at(-1)! - killedAt).toBeLessThan(10_000);
      expect(follower.stdout()).toContain('order engine: leading');
      const orders = await call(url, 'GET', '/api/trading/orders/?page_size=100', token);
      expect((orders.json().results as Array<{ id: number; status: string }>).find((o) => o.id === pendingId)?.status).toBe(
        'FILLED',
      );

      // Trading goes on through nginx, which skips the dead node: market orders fill at the new source's prices.
      for (let i = 0; i < 4; i++) {
        const res = await call(url, 'POST', '/api/trading/place-market-order/', token, {
          symbol: 'EURUSD',
          side: 'BUY',
          quantity: 0.1,
        });
        expect(res.status, res.text).toBe(201);
        expect((res.json().data!.execution_details as { execution_price: number }).execution_price).toBe(1.0982);
      }
      expect((await call(url, 'GET', '/api/health/ready/')).status).toBe(200);
      onFollower.close();
    } finally {
      await feed.close();
    }
  }, 60_000);
});

/**
 * A price feed (server/src/market/sources/EXTERNAL_FEED.md) that the leader dials: it sends
 * EURUSD at `price` every 100 ms to every subscriber and notes when each subscribed.
 */
async function startFeed() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const sockets = new Set<WebSocket>();
  const feed = {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/feed`,
    price: { bid: 1.1, ask: 1.1002 },
    /** When each connection subscribed (the leader of the time). */
    subscriptions: [] as number[],
    close: async () => {
      clearInterval(timer);
      for (const s of sockets) s.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket) => {
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.once('message', () => {
      sockets.add(socket);
      feed.subscriptions.push(Date.now());
    });
  });
  const timer = setInterval(() => {
    const message = JSON.stringify({ type: 'tick', symbol: 'EURUSD', ...feed.price });
    for (const s of sockets) if (s.readyState === s.OPEN) s.send(message);
  }, 100);
  return feed;
}
