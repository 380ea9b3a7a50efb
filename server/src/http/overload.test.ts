import net from 'node:net';
import { placeMarketOrderResponseSchema } from '@pipdesk/contract';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ConfigError, loadConfig } from '../config.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { type DatabaseFaultProxy, startDatabaseFaultProxy } from '../test/database-fault-proxy.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { auditAccount } from '../trading/audit.js';

/**
 * Load shedding (docs/operations.md#overload): past a limit, new calls answer 503 SERVER_BUSY
 * with Retry-After at once; calls already admitted complete, orders included; the probes
 * still answer; once the pressure is gone calls succeed again.
 */

const apps: TestApp[] = [];
const proxies: DatabaseFaultProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies) proxy.heal();
  await Promise.all(apps.splice(0).map((a) => a.close()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** Only the shedding asked for: the other checks off, so one signal is tested at a time. */
const NO_SHEDDING = {
  OVERLOAD_MAX_IN_FLIGHT: '0',
  OVERLOAD_MAX_WRITES_IN_FLIGHT: '0',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
};

async function app(env: Record<string, string>, options: { sampleIntervalMs?: number } = {}) {
  const prices = new ScriptedPriceSource();
  const t = await startTestApp({
    env: { CHART_HISTORY_DAYS: '0', ...NO_SHEDDING, ...env },
    priceSource: prices,
    listen: true,
    ...(options.sampleIntervalMs
      ? {
          overrides: {
            overload: {
              ...loadConfig({ ...NO_SHEDDING, ...env, JWT_SECRET: 'x'.repeat(32) }).overload,
              sampleIntervalMs: options.sampleIntervalMs,
            },
          },
        }
      : {}),
  });
  apps.push(t);
  for (const symbol of ['EURUSD', 'GBPUSD']) prices.push({ symbol, bid: 1.1, ask: 1.1002, timestamp: Date.now() });
  return t;
}

/** Keeps this process's event loop busy for `ms` (the server runs in it). */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy on purpose: nothing else may run.
  }
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from `since` to the end of the answer. */
  ms: number;
}

/** One HTTP/1.1 request on its own connection, written in one piece (`Connection: close`). */
function connect(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

function send(socket: net.Socket, text: string, since: () => number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => {
      const ms = performance.now() - since();
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = raw.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, ms });
    });
    socket.write(text);
  });
}

function requestText(method: string, path: string, headers: Record<string, string>, body?: unknown): string {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const all: Record<string, string> = {
    host: 'localhost',
    connection: 'close',
    ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
    ...headers,
  };
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n${payload}`;
}

function expectBusy(answer: { status: number; headers: Record<string, unknown>; body: string }): void {
  expect(answer.status, answer.body).toBe(503);
  expect(JSON.parse(answer.body)).toEqual({
    success: false,
    code: 'SERVER_BUSY',
    error: 'The server is busy. Try again in 1 second.',
    details: { retry_after_seconds: 1 },
  });
  expect(answer.headers['retry-after']).toBe('1');
  // The same answer as any other: security headers included.
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
}

describe('load shedding: a cap on calls in flight (docs/operations.md#overload)', () => {
  it('orders beyond the cap are refused at once; every admitted order completes and is stored; probes answer; then orders succeed', async () => {
    const CAP = 4;
    const ORDERS = 24;
    // On PostgreSQL a slow link to the database holds the admitted orders for a while, so the
    // refused ones must not wait behind them.
    let proxy: DatabaseFaultProxy | undefined;
    if (testDbKind === 'postgres') {
      proxy = await startDatabaseFaultProxy();
      proxies.push(proxy);
    }
    const t = await app({
      OVERLOAD_MAX_IN_FLIGHT: '1000',
      OVERLOAD_MAX_WRITES_IN_FLIGHT: String(CAP),
      ...(proxy ? { DATABASE_URL: proxy.databaseUrl().toString() } : {}),
    });
    const traders = [await insertSignedInTrader(t), await insertSignedInTrader(t)];
    const order = (i: number) =>
      requestText('POST', '/api/trading/place-market-order/', traders[i % 2]!.headers, {
        symbol: i % 3 ? 'EURUSD' : 'GBPUSD',
        side: i % 2 ? 'SELL' : 'BUY',
        quantity: 0.01,
      });

    // Every request is on its connection before the server may read any: they all arrive in one
    // turn of its event loop, as a burst does on a busy node.
    const sockets = await Promise.all(Array.from({ length: ORDERS + 2 }, () => connect(t.url)));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the server accepts them
    let released = 0;
    const since = () => released;
    proxy?.slow(40);
    const orders = sockets.slice(0, ORDERS).map((socket, i) => send(socket, order(i), since));
    // Not writes, and never shed: a read still fits under the total cap; the probe is exempt.
    const read = send(sockets[ORDERS]!, requestText('GET', '/api/auth/me/', traders[0]!.headers), since);
    const probe = send(sockets[ORDERS + 1]!, requestText('GET', '/api/health/live/', {}), since);
    blockEventLoop(300);
    released = performance.now();
    const answers = await Promise.all(orders);
    proxy?.heal();

    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status !== 201);
    expect(created.length).toBe(CAP);
    expect(busy.length).toBe(ORDERS - CAP);
    for (const answer of busy) expectBusy(answer);
    // Refused at once, not after waiting behind the admitted orders.
    const slowestRefusal = Math.max(...busy.map((a) => a.ms));
    expect(slowestRefusal).toBeLessThan(1000);
    if (proxy) expect(slowestRefusal).toBeLessThan(Math.min(...created.map((a) => a.ms)));
    expect((await read).status).toBe(200);
    expect((await probe).status).toBe(200);

    // Every admitted order is stored and filled; nothing of a refused one is; the books add up.
    const createdIds = created.map((a) => placeMarketOrderResponseSchema.parse(JSON.parse(a.body).data).order.id).sort();
    const stored = await t.ctx.db.kysely
      .selectFrom('orders')
      .select(['id', 'status'])
      .where(
        'account_id',
        'in',
        traders.map((trader) => trader.accountId!),
      )
      .execute();
    expect(stored.map((o) => String(o.id)).sort()).toEqual(createdIds.map(String));
    expect(stored.every((o) => o.status === 'FILLED')).toBe(true);
    for (const trader of traders) expect(await auditAccount(t.ctx.db, trader.accountId!)).toEqual([]);

    // The pressure is over: the node takes orders again.
    const after = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers: traders[0]!.headers,
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 },
    });
    expect(after.statusCode, after.body).toBe(201);
  });

  it('the total cap counts reads too; a refused call is not counted, so the node recovers at once', async () => {
    const t = await app({ OVERLOAD_MAX_IN_FLIGHT: '3' });
    const { headers } = await insertSignedInTrader(t);
    const sockets = await Promise.all(Array.from({ length: 10 }, () => connect(t.url)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answers = sockets.map((socket) => send(socket, requestText('GET', '/api/trading/platform-data/', headers), () => 0));
    blockEventLoop(200);
    const statuses = (await Promise.all(answers)).map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 503, 503, 503, 503, 503, 503, 503]);
    // One after another, far more calls than the cap: each is admitted.
    for (let i = 0; i < 20; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers });
      expect(res.statusCode).toBe(200);
    }
  });
});

/** The HTTP status a socket upgrade to /ws/prices/ is answered with (101 when it opens). */
function upgradeStatus(t: TestApp): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws/prices/`);
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

describe('load shedding: the event loop (docs/operations.md#overload)', () => {
  /** Keeps the loop busy `busyMs` out of every few milliseconds, until stopped: a node that cannot keep up. */
  function hogEventLoop(busyMs: number): () => void {
    let running = true;
    const turn = () => {
      if (!running) return;
      blockEventLoop(busyMs);
      setTimeout(turn, 2);
    };
    setTimeout(turn, 0);
    return () => {
      running = false;
    };
  }

  it.each([
    ['delay', { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '30' }],
    ['utilization', { OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0.9' }],
  ])('over the %s limit calls answer 503 SERVER_BUSY; the probes answer; after it calls succeed', async (_name, env) => {
    const t = await app(env, { sampleIntervalMs: 100 });
    const { headers } = await insertSignedInTrader(t);
    const me = () => t.app.inject({ method: 'GET', url: '/api/auth/me/', headers });
    // Start-up itself kept the loop busy: the first sample may be over the limit.
    await expect.poll(async () => (await me()).statusCode, { timeout: 5000, interval: 50 }).toBe(200);
    const stop = hogEventLoop(80);
    try {
      let refused: Awaited<ReturnType<typeof me>> | undefined;
      await expect
        .poll(
          async () => {
            refused = await me();
            return refused.statusCode;
          },
          { timeout: 5000, interval: 20 },
        )
        .toBe(503);
      expectBusy({ status: 503, headers: refused!.headers, body: refused!.body });
      // The probes are never shed: live answers; the report answers for itself (on PostgreSQL its
      // database check may time out on a loop this busy: then it says degraded, which is true).
      const live = await t.app.inject({ method: 'GET', url: '/api/health/live/' });
      expect(live.statusCode, live.body).toBe(200);
      const report = await t.app.inject({ method: 'GET', url: '/api/health/' });
      expect(report.json(), report.body).toMatchObject({ success: true, data: { db: expect.anything() } });
      // A new socket is refused before the upgrade; the client retries later.
      expect(await upgradeStatus(t)).toBe(503);
    } finally {
      stop();
    }
    await expect.poll(async () => (await me()).statusCode, { timeout: 5000, interval: 50 }).toBe(200);
    expect(await upgradeStatus(t)).toBe(101);
  });

  it('one stall of the loop (a long GC, start-up) sheds nothing: only a loop that stays behind does', async () => {
    const t = await app({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '30' }, { sampleIntervalMs: 100 });
    const { headers } = await insertSignedInTrader(t);
    const me = () => t.app.inject({ method: 'GET', url: '/api/auth/me/', headers });
    await expect.poll(async () => (await me()).statusCode, { timeout: 5000, interval: 50 }).toBe(200);
    blockEventLoop(1500);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await me()).statusCode);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statuses).toEqual(Array(8).fill(200));
  });
});

describe('overload settings', () => {
  const base = { JWT_SECRET: 'x'.repeat(32) };
  it('defaults: generous caps, the event-loop delay at 1 s, utilization off, Retry-After 1 s', () => {
    expect(loadConfig(base).overload).toEqual({
      maxInFlight: 1000,
      maxWritesInFlight: 200,
      maxEventLoopDelayMs: 1000,
      maxEventLoopUtilization: 0,
      retryAfterSeconds: 1,
      sampleIntervalMs: 1000,
    });
  });

  it('a bad value stops start-up naming the variable', () => {
    for (const [variable, value] of [
      ['OVERLOAD_MAX_IN_FLIGHT', '-1'],
      ['OVERLOAD_MAX_WRITES_IN_FLIGHT', 'many'],
      ['OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', '1.5'],
      ['OVERLOAD_MAX_EVENT_LOOP_UTILIZATION', '1.2'],
      ['OVERLOAD_RETRY_AFTER_SECONDS', '0'],
    ] as const) {
      expect(() => loadConfig({ ...base, [variable]: value }), variable).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, [variable]: value }), variable).toThrow(variable);
    }
  });
});
