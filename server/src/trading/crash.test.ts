import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSession } from '../auth/repo.js';
import { createTokens, newTokenId } from '../auth/tokens.js';
import { systemClock } from '../core/clock.js';
import { openDatabase } from '../db/database.js';
import { writeTransaction } from '../db/transaction.js';
import { migrateToLatest } from '../migrations.js';
import { insertTrader } from '../test/factories.js';
import { freshDatabase, testConfig, testDbKind, UNTHROTTLED_ENV } from '../test/helpers.js';
import { auditAccount } from './audit.js';

/**
 * Durability (docs/operations.md#durability): a real server process takes orders from several traders at once
 * and is killed with SIGKILL at a random moment, again and again. After each restart every
 * acknowledged order is there with the status it was acknowledged with, nothing is
 * half-applied (the audit's invariants), and a retry of an unanswered request with its
 * Idempotency-Key executes it exactly once: in the end each key is exactly one order.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const KILLS = Number(process.env.CRASH_KILLS ?? 22);
const JWT_SECRET = 'crash-test-secret-crash-test-secret-0123456789';
const SYMBOLS = ['EURUSD', 'USDJPY', 'GBPUSD', 'EURJPY'];

interface Sent {
  key: string;
  trader: number;
  body: { symbol: string; side: 'BUY' | 'SELL'; quantity: number };
  answer?: { status: number; orderId: number; orderStatus: string; replayed: boolean };
}

interface Trader {
  userId: number;
  accountId: number;
  authorization: string;
}

describe('crash safety: SIGKILL while taking orders', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;
  let dbConfig: ReturnType<typeof testConfig>['database'];
  const traders: Trader[] = [];
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-b', 'server/tsconfig.json'], { cwd: ROOT, stdio: 'pipe' });
    fresh = await freshDatabase();
    const config = testConfig(fresh.dataDir, { JWT_SECRET });
    dbConfig = config.database;
    const db = openDatabase(dbConfig, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    await migrateToLatest(db);
    const tokens = createTokens({ ...config, accessTokenTtlSeconds: 24 * 3600 }, systemClock);
    for (let i = 0; i < 3; i++) {
      const trader = await insertTrader({ db, clock: systemClock }, { balanceMinor: 100_000_000 });
      const sessionId = newTokenId();
      await writeTransaction(db, (trx) => insertSession(trx, { id: sessionId, userId: trader.userId, now: Date.now() }));
      const { token } = await tokens.sign('access', trader.userId, sessionId);
      traders.push({ userId: trader.userId, accountId: trader.accountId!, authorization: `Bearer ${token}` });
    }
    await db.close();
    env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: fresh.dataDir,
      JWT_SECRET,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'fatal',
      CHART_HISTORY_DAYS: '0',
      PRICE_SOURCE: 'simulator',
      PRICE_SEED: '4242',
      // Orders as fast as the server takes them: not throttled.
      ...UNTHROTTLED_ENV,
      ...(testDbKind === 'postgres'
        ? { DATABASE_URL: `${process.env.TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${fresh.pgSchema}`)}` }
        : {}),
    };
  }, 240_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    await fresh?.drop();
  });

  /** Starts the built server; resolves with its URL once it listens. */
  function startServer(): Promise<{ url: string; process: ChildProcess }> {
    const proc = spawn(process.execPath, [path.join(ROOT, 'server/dist/main.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    return new Promise((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /running at (http:\/\/[^\s]+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve({ url: match[1]!, process: proc });
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}: ${output}`));
      });
    });
  }

  async function send(url: string, sent: Sent): Promise<void> {
    const res = await fetch(`${url}/api/trading/place-market-order/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: traders[sent.trader]!.authorization,
        'idempotency-key': sent.key,
      },
      body: JSON.stringify(sent.body),
      signal: AbortSignal.timeout(10_000),
    });
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

  it(`keeps every acknowledged order through ${KILLS} kill -9s, with nothing half-applied`, async () => {
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
      const exited = new Promise((resolve) => server.process.once('exit', resolve));
      server.process.kill('SIGKILL');
      await exited;
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
    server.process.kill('SIGKILL');
  }, 600_000);
});
