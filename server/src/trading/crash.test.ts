import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { freshDatabase, testConfig } from '../test/helpers.js';
import { auditAccount } from './audit.js';

/**
 * Durability (docs/operations.md#durability): a real server process takes orders from several traders at once
 * and is killed with SIGKILL at a random moment, again and again. After each restart every
 * acknowledged order is there with the status it was acknowledged with, nothing is
 * half-applied (the audit's invariants), and a retry of an unanswered request with its
 * Idempotency-Key executes it exactly once: in the end each key is exactly one order.
 */
const KILLS = Number(process.env.CRASH_KILLS ?? 22);
const JWT_SECRET = 'crash-test-secret-crash-test-secret-0123456789';
const SYMBOLS = ['EURUSD', 'USDJPY', 'GBPUSD', 'EURJPY'];

interface Sent {
  key: string;
  trader: number;
  body: { symbol: string; side: 'BUY' | 'SELL'; quantity: number };
  answer?: { status: number; orderId: number; orderStatus: string; replayed: boolean };
}

describe('crash safety: SIGKILL while taking orders', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;
  let dbConfig: ReturnType<typeof testConfig>['database'];
  let traders: ChildTrader[] = [];
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    buildServer();
    fresh = await freshDatabase();
    const config = testConfig(fresh.dataDir, { JWT_SECRET });
    dbConfig = config.database;
    const db = openDatabase(dbConfig, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    await migrateToLatest(db);
    traders = await insertChildTraders(db, config, 3, 100_000_000);
    await db.close();
    env = childServerEnv(fresh, JWT_SECRET, { PRICE_SOURCE: 'simulator', PRICE_SEED: '4242' });
  }, 240_000);

  afterAll(async () => {
    await killChildServer(child);
    await fresh?.drop();
  });

  /** Starts the built server; resolves with its URL once it listens. */
  async function startServer(): Promise<ChildServer> {
    const server = await startChildServer(env);
    child = server.process;
    return server;
  }

  async function send(url: string, sent: Sent): Promise<void> {
    const res = await postMarketOrder(url, traders[sent.trader]!, sent.key, sent.body);
    const body = (await res.json()) as { data?: { order?: { id: number; status: string } } };
    if (res.status !== 201 && res.status !== 422) throw new Error(`unexpected ${res.status}: ${JSON.stringify(body)}`);
    const order = body.data?.order;
    if (!order) throw new Error(`answer without an order: ${JSON.stringify(body)}`);
    sent.answer = {
      status: res.status,
      orderId: order.id,
      orderStatus: order.status,
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  }

  async function verify(): Promise<void> {
    const db = openDatabase(dbConfig, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    try {
      const acked = all.filter((s) => s.answer);
      const ids = acked.map((s) => s.answer!.orderId);
      const rows = ids.length
        ? await db.kysely.selectFrom('orders').select(['id', 'status', 'account_id']).where('id', 'in', ids).execute()
        : [];
      const stored = new Map(rows.map((r) => [Number(r.id), r]));
      for (const s of acked) {
        const row = stored.get(s.answer!.orderId);
        expect(row, `acknowledged order ${s.answer!.orderId} is missing`).toBeDefined();
        expect(row!.status).toBe(s.answer!.orderStatus);
        expect(Number(row!.account_id)).toBe(traders[s.trader]!.accountId);
      }
      for (const trader of traders) expect(await auditAccount(db, trader.accountId)).toEqual([]);
    } finally {
      await db.close();
    }
  }

  const all: Sent[] = [];

  it(
    `keeps every acknowledged order through ${KILLS} kill -9s, with nothing half-applied`,
    async () => {
      const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : Date.now() % 2 ** 31;
      console.log(`crash test seed ${seed} (replay with CRASH_SEED=${seed})`);
      const random = fc.sample(fc.integer({ min: 0, max: 2 ** 30 }), { seed, numRuns: 10_000 });
      let r = 0;
      const next = (n: number) => random[r++ % random.length]! % n;

      let server = await startServer();
      let unanswered = 0;
      for (let round = 0; round < KILLS; round++) {
        let killed = false;
        const workers = traders.flatMap((_, trader) =>
          Array.from({ length: 3 }, async () => {
            while (!killed) {
              const sent: Sent = {
                key: randomUUID(),
                trader,
                body: { symbol: SYMBOLS[next(SYMBOLS.length)]!, side: next(2) ? 'BUY' : 'SELL', quantity: (1 + next(100)) / 100 },
              };
              all.push(sent);
              try {
                await send(server.url, sent);
              } catch (err) {
                if (!killed) throw err;
              }
            }
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 50 + next(500)));
        killed = true;
        await killChildServer(server.process);
        await Promise.all(workers);

        server = await startServer();
        await verify();
        // Every request the kill left unanswered is retried with its key: it executes at most once.
        const pending = all.filter((s) => !s.answer);
        unanswered += pending.length;
        for (const s of pending) await send(server.url, s);
      }
      await verify();
      // Each key is exactly one order.
      const db = openDatabase(dbConfig, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
      try {
        const counts = await db.kysely
          .selectFrom('orders')
          .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy('account_id')
          .execute();
        const byAccount = new Map(counts.map((c) => [Number(c.account_id), Number(c.n)]));
        for (const [i, trader] of traders.entries()) {
          expect(byAccount.get(trader.accountId) ?? 0).toBe(all.filter((s) => s.trader === i).length);
        }
        expect(new Set(all.map((s) => s.answer!.orderId)).size).toBe(all.length);
      } finally {
        await db.close();
      }
      const replayed = all.filter((s) => s.answer?.replayed).length;
      console.log(
        `${KILLS} kills: ${all.length} orders, ${unanswered} unanswered at a kill and retried (${replayed} of them had committed: replayed)`,
      );
      await killChildServer(server.process);
    },
    Math.max(600_000, KILLS * 10_000),
  ); // `npm run torture` asks for hundreds of kills
});
