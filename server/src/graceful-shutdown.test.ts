import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './migrations.js';
import {
  buildServer,
  type ChildServer,
  type ChildTrader,
  childServerEnv,
  insertChildTraders,
  killChildServer,
  postMarketOrder,
  startChildServer,
} from './test/child-server.js';
import { freshDatabase, testConfig } from './test/helpers.js';
import { auditAccount } from './trading/audit.js';

/**
 * Graceful shutdown (docs/operations.md#shutdown): a real server process takes market orders
 * from several traders under Idempotency-Keys and gets SIGTERM in the middle. No answer is a
 * 500; every request it answered 201 or 422 is stored as answered, and nothing it did not
 * answer is stored; a request that reaches it after the shutdown began is answered 503 with
 * Retry-After (or finds the port closed); it exits 0 within the bound.
 */
const JWT_SECRET = 'shutdown-test-secret-shutdown-test-secret-0123';
const SYMBOLS = ['EURUSD', 'USDJPY', 'GBPUSD'];
/** The process must be gone this long after SIGTERM (main.ts forces an exit at 10 s). */
const EXIT_BOUND_MS = 10_000;

interface Sent {
  trader: number;
  startedAt: number;
  status?: number;
  body?: { code?: string; data?: { order?: { id: number; status: string } } };
  retryAfter?: string | null;
  networkError?: string;
}

describe('graceful shutdown: SIGTERM under load', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let dbConfig: ReturnType<typeof testConfig>['database'];
  let traders: ChildTrader[] = [];
  let server: ChildServer | undefined;

  beforeAll(async () => {
    buildServer();
    fresh = await freshDatabase();
    const config = testConfig(fresh.dataDir, { JWT_SECRET });
    dbConfig = config.database;
    const db = openDatabase(dbConfig, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    await migrateToLatest(db);
    traders = await insertChildTraders(db, config, 4, 100_000_000);
    await db.close();
  }, 240_000);

  afterAll(async () => {
    await killChildServer(server?.process);
    await fresh?.drop();
  });

  it('answers what it accepted, refuses the rest with 503 Retry-After, closes the database and exits 0', async () => {
    // Info logs: the shutdown's first line carries the moment it began (pino's `time`).
    const env = childServerEnv(fresh, JWT_SECRET, { PRICE_SOURCE: 'simulator', PRICE_SEED: '77', LOG_LEVEL: 'info' });
    server = await startChildServer(env);
    const { url } = server;
    // The whole standard output (the child helper keeps only its tail, and every request logs a line).
    let stdout = '';
    server.process.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      server!.process.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    // Prices first: an order before the first tick would be rejected NO_PRICE, which proves nothing here.
    for (let i = 0; i < 100; i++) {
      const ready = await fetch(`${url}/api/health/ready/`).catch(() => undefined);
      if (ready?.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    const sent: Sent[] = [];
    let exitedYet = false;
    void exited.then(() => {
      exitedYet = true;
    });
    const workers = traders.flatMap((trader, index) =>
      Array.from({ length: 3 }, async (_, w) => {
        let n = 0;
        while (!exitedYet) {
          const s: Sent = { trader: index, startedAt: Date.now() };
          sent.push(s);
          try {
            const res = await postMarketOrder(url, trader, randomUUID(), {
              symbol: SYMBOLS[(w + n++) % SYMBOLS.length],
              side: n % 2 ? 'BUY' : 'SELL',
              quantity: 0.01,
            });
            s.status = res.status;
            s.retryAfter = res.headers.get('retry-after');
            s.body = (await res.json()) as Sent['body'];
          } catch (err) {
            s.networkError = String((err as Error).cause ?? err);
            // The port is closed: later tries find it closed too.
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      }),
    );
    // A request that arrives after the shutdown began, on a connection opened before: its first
    // line now (the connection is busy, so the close does not cut it), the rest once the shutdown began.
    const late = lateRequest(url, traders[0]!);
    await new Promise((r) => setTimeout(r, 1_500));
    const signalledAt = Date.now();
    server.process.kill('SIGTERM');
    while (shutdownBeganAt(stdout) === undefined && Date.now() - signalledAt < 5_000) await new Promise((r) => setTimeout(r, 5));
    late.finish();
    const lateAnswer = await late.answer;
    const { code, at } = await exited;
    await Promise.all(workers);

    expect(lateAnswer).toMatch(/^HTTP\/1\.1 503 /);
    expect(lateAnswer).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(lateAnswer).toMatch(/\r\nconnection: close\r\n/i);
    expect(lateAnswer).toContain('"code":"UNAVAILABLE"');
    expect(lateAnswer).toContain('The server is shutting down. Try again in 1 second.');

    expect(code, server.output()).toBe(0);
    expect(at - signalledAt).toBeLessThan(EXIT_BOUND_MS);
    const began = shutdownBeganAt(stdout);
    expect(began, 'the shutdown logs when it begins').toBeGreaterThanOrEqual(signalledAt - 5);

    const answered = sent.filter((s) => s.status !== undefined);
    expect(answered.filter((s) => s.status === 201).length, 'orders filled before the signal').toBeGreaterThan(10);
    for (const s of answered) {
      expect([201, 422, 503], JSON.stringify(s)).toContain(s.status);
      if (s.status === 503) {
        expect(s.body?.code).toBe('UNAVAILABLE');
        expect(Number(s.retryAfter)).toBeGreaterThan(0);
      }
    }
    // A request sent after the shutdown began is never executed.
    for (const s of sent.filter((x) => x.startedAt > began!)) expect([503, undefined], JSON.stringify(s)).toContain(s.status);
    const refused = answered.filter((s) => s.status === 503).length;
    const unreachable = sent.filter((s) => s.networkError).length;
    console.log(
      `shutdown: ${sent.length} requests, ${answered.length - refused} executed, ${refused} answered 503, ${unreachable} found the port closed; exit after ${at - signalledAt} ms`,
    );

    // Every executed answer is stored as answered, and nothing else was stored.
    const db = openDatabase(dbConfig, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    try {
      const executed = answered.filter((s) => s.status === 201 || s.status === 422);
      const ids = executed.map((s) => s.body!.data!.order!.id);
      const rows = await db.kysely.selectFrom('orders').select(['id', 'status', 'account_id']).execute();
      const stored = new Map(rows.map((r) => [Number(r.id), r]));
      for (const s of executed) {
        const row = stored.get(s.body!.data!.order!.id);
        expect(row, `answered order ${JSON.stringify(s.body)} is stored`).toBeDefined();
        expect(row!.status).toBe(s.body!.data!.order!.status);
        expect(Number(row!.account_id)).toBe(traders[s.trader]!.accountId);
      }
      expect(rows.length, 'no order is stored that was not answered').toBe(new Set(ids).size);
      for (const trader of traders) expect(await auditAccount(db, trader.accountId)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 90_000);
});

/** A market order written to a raw socket in two parts: the request line now, the rest on `finish()`. */
function lateRequest(url: string, trader: ChildTrader): { finish(): void; answer: Promise<string> } {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.write('POST /api/trading/place-market-order/ HTTP/1.1\r\n');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
  const body = JSON.stringify({ symbol: 'EURUSD', side: 'BUY', quantity: 0.01 });
  return {
    finish: () =>
      socket.write(
        `Host: ${hostname}\r\ncontent-type: application/json\r\nauthorization: ${trader.authorization}\r\n` +
          `idempotency-key: ${randomUUID()}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      ),
    answer,
  };
}

/** The `time` of the server's "shutting down" log line. */
function shutdownBeganAt(stdout: string): number | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.includes('shutting down')) continue;
    try {
      return (JSON.parse(line) as { time: number }).time;
    } catch {
      // Not a JSON log line.
    }
  }
  return undefined;
}
