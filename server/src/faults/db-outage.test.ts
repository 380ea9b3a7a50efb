import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../migrations.js';
import {
  buildServer,
  type ChildServer,
  type ChildTrader,
  childServerEnv,
  insertChildTraders,
  killChildServer,
  postMarketOrder,
  startChildServer,
} from '../test/child-server.js';
import { type DatabaseFaultProxy, startDatabaseFaultProxy } from '../test/database-fault-proxy.js';
import { freshDatabase, testConfig, testDbKind } from '../test/helpers.js';
import { auditAccount } from '../trading/audit.js';

/**
 * A PostgreSQL outage degrades, never kills (docs/operations.md#database-outages): a real
 * server process, talking to PostgreSQL through a fault proxy, takes orders from several
 * traders while the proxy cuts the database for 10 s. The process must live through it,
 * answer 503 with Retry-After (never hang, never 500), report not-ready, keep its prices
 * flowing, and take orders again within 5 s of the database's return; every acknowledged
 * order is stored as acknowledged and every account's invariants hold.
 */
const JWT_SECRET = 'outage-test-secret-outage-test-secret-0123456';
const SYMBOLS = ['EURUSD', 'USDJPY', 'GBPUSD', 'EURJPY'];
const OUTAGE_MS = 10_000;

interface Sent {
  key: string;
  trader: number;
  body: { symbol: string; side: 'BUY' | 'SELL'; quantity: number };
  /** The acknowledged answer (201 executed or 422 stored REJECTED). */
  answer?: { orderId: number; orderStatus: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(testDbKind === 'postgres')('PostgreSQL outage under an order load', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let dbConfig: ReturnType<typeof testConfig>['database'];
  let proxy: DatabaseFaultProxy;
  let child: ChildServer | undefined;
  let traders: ChildTrader[] = [];

  beforeAll(async () => {
    buildServer();
    fresh = await freshDatabase();
    const config = testConfig(fresh.dataDir, { JWT_SECRET });
    dbConfig = config.database;
    const db = openDatabase(dbConfig, { schema: fresh.pgSchema! });
    await migrateToLatest(db);
    traders = await insertChildTraders(db, config, 3, 100_000_000);
    await db.close();

    proxy = await startDatabaseFaultProxy();
    const viaProxy = proxy.databaseUrl();
    viaProxy.searchParams.set('options', `-c search_path=${fresh.pgSchema}`);
    // The database through the proxy, in this test's schema (the child's own DATABASE_URL).
    const env = childServerEnv({ dataDir: fresh.dataDir }, JWT_SECRET, {
      DATABASE_URL: viaProxy.toString(),
      LOG_LEVEL: 'error',
      PRICE_SOURCE: 'simulator',
      PRICE_SEED: '4242',
      DB_CONNECT_TIMEOUT_MS: '1000',
    });
    child = await startChildServer(env, { timeoutMs: 60_000 });
  }, 240_000);

  afterAll(async () => {
    await killChildServer(child?.process);
    await proxy?.close();
    await fresh?.drop();
  });

  it('answers 503 with Retry-After during a 10 s cut, resumes by itself, loses nothing', async () => {
    const { url, process: server, output } = child!;
    let exit: string | undefined;
    // Every wait below races the process's death, so an exit fails the test with its output.
    const died = new Promise<never>((_, reject) => {
      server.once('exit', (code, signal) => {
        exit = `server exited (${code ?? signal}) during the outage test:\n${output()}`;
        reject(new Error(exit));
      });
    });
    died.catch(() => {});
    const alive = <T>(wait: Promise<T>) => Promise.race([wait, died]);

    const all: Sent[] = [];
    const unavailable: Sent[] = [];
    const statuses = new Map<number, number>();
    let lastRetryAfter: string | null = null;
    let firstAckAfterHeal: number | undefined;
    let healedAt: number | undefined;
    let stopping = false;

    /** Sends one order; an answer must come within 10 s and be 201, 422 or the 503 of the catalogue. */
    const send = async (sent: Sent): Promise<void> => {
      const res = await postMarketOrder(url, traders[sent.trader]!, sent.key, sent.body);
      const body = (await res.json()) as {
        code?: string;
        details?: { retry_after_seconds?: number };
        data?: { order?: { id: number; status: string } };
      };
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 503) {
        expect(body.code, JSON.stringify(body)).toBe('DATABASE_UNAVAILABLE');
        lastRetryAfter = res.headers.get('retry-after');
        expect(Number(lastRetryAfter)).toBeGreaterThanOrEqual(1);
        expect(body.details?.retry_after_seconds).toBe(Number(lastRetryAfter));
        unavailable.push(sent);
        return;
      }
      expect([201, 422], `unexpected ${res.status}: ${JSON.stringify(body)}`).toContain(res.status);
      const order = body.data?.order;
      expect(order, JSON.stringify(body)).toBeDefined();
      sent.answer = { orderId: order!.id, orderStatus: order!.status };
      if (res.status === 201 && healedAt !== undefined && firstAckAfterHeal === undefined) firstAckAfterHeal = Date.now();
    };

    let n = 0;
    const workers = traders.flatMap((_, trader) =>
      Array.from({ length: 2 }, async () => {
        while (!stopping) {
          n += 1;
          const sent: Sent = {
            key: randomUUID(),
            trader,
            body: { symbol: SYMBOLS[n % SYMBOLS.length]!, side: n % 3 === 0 ? 'SELL' : 'BUY', quantity: 0.01 * (1 + (n % 7)) },
          };
          all.push(sent);
          await send(sent);
          // During the outage the answers are instant: do not spin.
          if (!sent.answer) await sleep(50);
        }
      }),
    );
    const load = Promise.all(workers);
    // A failed worker is reported where `load` is awaited; until then it is not "unhandled".
    load.catch(() => {});

    // A price socket, subscribed before the outage: its stream comes from memory.
    const prices = new WebSocket(`${url.replace(/^http/, 'ws')}/ws/prices/`);
    let priceUpdates = 0;
    prices.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { type?: string }).type === 'price_update') priceUpdates += 1;
    });
    await alive(new Promise((resolve, reject) => prices.once('open', resolve).once('error', reject)));
    prices.send(JSON.stringify({ type: 'subscribe_prices', symbol: 'EURUSD' }));

    // Before: orders execute and the node is ready.
    await alive(expect.poll(() => all.filter((s) => s.answer).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(10));
    expect((await fetch(`${url}/api/health/ready/`)).status).toBe(200);

    // The outage.
    await alive(expect.poll(() => priceUpdates, { timeout: 10_000 }).toBeGreaterThan(0));
    proxy.cut();
    const cutAt = Date.now();
    const updatesAtCut = priceUpdates;
    await alive(expect.poll(() => unavailable.length, { timeout: 8_000 }).toBeGreaterThan(0));
    const ready = await fetch(`${url}/api/health/ready/`);
    expect(ready.status).toBe(503);
    const readyBody = (await ready.json()) as { code: string; details: { failed: string[] } };
    expect(readyBody.code).toBe('UNAVAILABLE');
    // Only the database is down: prices keep flowing from memory.
    expect(readyBody.details.failed).toEqual(['database']);
    expect((await fetch(`${url}/api/health/live/`)).status).toBe(200);
    const health = await fetch(`${url}/api/health/`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { data: { status: string } }).data.status).toBe('degraded');
    await alive(sleep(Math.max(0, OUTAGE_MS - (Date.now() - cutAt))));
    // A long outage: still instant answers (the breaker), still the same process.
    const late = performance.now();
    expect((await fetch(`${url}/api/health/ready/`)).status).toBe(503);
    expect(performance.now() - late).toBeLessThan(3_000);
    expect(exit).toBeUndefined();
    // Prices kept streaming through the outage, on the same socket.
    expect(priceUpdates).toBeGreaterThan(updatesAtCut);
    expect(prices.readyState).toBe(WebSocket.OPEN);
    prices.close();

    // The database is back: orders execute again within 5 s, readiness follows.
    proxy.heal();
    healedAt = Date.now();
    await alive(expect.poll(() => firstAckAfterHeal, { timeout: 5_000, interval: 100 }).toBeDefined());
    await alive(expect.poll(async () => (await fetch(`${url}/api/health/ready/`)).status, { timeout: 5_000 }).toBe(200));
    await alive(sleep(1_000));
    stopping = true;
    await alive(load);
    expect(exit).toBeUndefined();

    // A 503 promised nothing, but the commit may have landed before the link broke: the retry
    // with the same key executes the order or replays its stored answer, never twice.
    for (const sent of unavailable) await send(sent);
    expect(all.every((s) => s.answer)).toBe(true);

    const db = openDatabase(dbConfig, { schema: fresh.pgSchema! });
    try {
      const ids = all.map((s) => s.answer!.orderId);
      const rows = await db.kysely.selectFrom('orders').select(['id', 'status', 'account_id']).execute();
      const stored = new Map(rows.map((r) => [Number(r.id), r]));
      for (const s of all) {
        const row = stored.get(s.answer!.orderId);
        expect(row, `acknowledged order ${s.answer!.orderId} is missing`).toBeDefined();
        expect(row!.status).toBe(s.answer!.orderStatus);
        expect(Number(row!.account_id)).toBe(traders[s.trader]!.accountId);
      }
      // Each key is exactly one order: nothing executed twice, nothing stored without an answer.
      expect(new Set(ids).size).toBe(all.length);
      expect(rows.length).toBe(all.length);
      for (const trader of traders) expect(await auditAccount(db, trader.accountId)).toEqual([]);
    } finally {
      await db.close();
    }
    expect(server.exitCode).toBeNull();
    console.log(
      `outage test: ${all.length} orders, answers ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `${unavailable.length} answered 503 (Retry-After ${lastRetryAfter}), first order ${firstAckAfterHeal! - healedAt} ms after healing`,
    );
  }, 90_000);
});
