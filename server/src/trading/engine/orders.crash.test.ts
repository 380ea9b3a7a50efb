import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Db, openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../migrations.js';
import {
  buildServer,
  type ChildServer,
  type ChildTrader,
  childServerEnv,
  insertChildTraders,
  killChildServer,
  startChildServer,
} from '../../test/child-server.js';
import { freshDatabase, testConfig } from '../../test/helpers.js';
import { auditAccount } from '../audit.js';

/**
 * docs/order-engine.md#the-engine, durability of triggers: a real server process (the built
 * server/dist/main.js) takes its prices from a feed this test runs (PRICE_SOURCE=external),
 * holds pending orders of every type and protected positions of several traders, and is
 * killed with SIGKILL while a sweep of ticks is triggering them, again and again. After each
 * restart:
 * - no order is lost: every acknowledged order is stored, PENDING or with a terminal status
 *   whose effects are applied (the audit: a FILLED order has exactly one trade, of its
 *   quantity and price, the ledger and positions agree; nothing is half-applied);
 * - none is filled twice, no position closed twice;
 * - every order still PENDING, and every protection, is still armed: the same sweep, sent
 *   again to the restarted server, triggers all of them.
 * Replay the kill times with ORDERS_CRASH_SEED=<seed printed below>; ORDERS_CRASH_KILLS for more.
 */
const KILLS = Number(process.env.ORDERS_CRASH_KILLS ?? 20);
const JWT_SECRET = 'orders-crash-test-secret-0123456789-abcdef';
const TRADERS = 3;

const BASE = { EURUSD: 1.1, GBPUSD: 1.27 } as const;
/** Both pairs move together: down 35 pips, up to +35, down to −35 and back, 2 pips a tick (every price within ±33 pips is crossed both ways). */
function sweep(): Array<Record<keyof typeof BASE, number>> {
  const path: number[] = [];
  const leg = (from: number, to: number) => {
    const step = from < to ? 2 : -2;
    for (let pips = from; pips !== to; pips += step) path.push(pips + step);
  };
  leg(0, -36);
  leg(-36, 36);
  leg(36, -36);
  leg(-36, 0);
  return path.map((pips) => ({ EURUSD: BASE.EURUSD + pips / 10_000, GBPUSD: BASE.GBPUSD + pips / 10_000 }));
}
const SPREAD = 0.0002;

/** The price feed the server dials (docs: market/sources/EXTERNAL_FEED.md). */
class Feed {
  readonly server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  private sockets = new Set<WebSocket>();
  private subscribed: Array<() => void> = [];

  constructor() {
    this.server.on('connection', (socket) => {
      socket.on('error', () => {});
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('message', () => {
        // The subscribe message: from now on this connection takes ticks.
        this.sockets.add(socket);
        for (const resolve of this.subscribed.splice(0)) resolve();
      });
    });
  }

  async listening(): Promise<void> {
    if (this.server.address()) return;
    await new Promise((resolve) => this.server.once('listening', resolve));
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/feed`;
  }

  nextSubscriber(): Promise<void> {
    return new Promise((resolve) => this.subscribed.push(resolve));
  }

  send(prices: Partial<Record<keyof typeof BASE, number>>): void {
    const ticks = Object.entries(prices).map(([symbol, bid]) => ({
      symbol,
      bid: Number(bid!.toFixed(5)),
      ask: Number((bid! + SPREAD).toFixed(5)),
    }));
    const message = JSON.stringify({ type: 'ticks', ticks });
    for (const s of this.sockets) if (s.readyState === s.OPEN) s.send(message);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface Placed {
  round: number;
  trader: number;
  id: number;
  what: string;
  gtd: boolean;
}

describe('crash safety of the trigger engine: SIGKILL while triggers execute', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;
  let dbConfig: ReturnType<typeof testConfig>['database'];
  let traders: ChildTrader[] = [];
  const feed = new Feed();
  let child: ChildProcess | undefined;
  let db: Db;

  beforeAll(async () => {
    buildServer();
    await feed.listening();
    fresh = await freshDatabase();
    const config = testConfig(fresh.dataDir, { JWT_SECRET });
    dbConfig = config.database;
    db = openDatabase(dbConfig, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    await migrateToLatest(db);
    traders = await insertChildTraders(db, config, TRADERS, 100_000_000);
    env = childServerEnv(fresh, JWT_SECRET, { PRICE_SOURCE: 'external', EXTERNAL_FEED_URL: feed.url });
  }, 240_000);

  afterAll(async () => {
    await killChildServer(child);
    await db?.close();
    await feed.close();
    await fresh?.drop();
  });

  /** Starts the built server, waits until it listens, has dialled the feed and holds the base prices. */
  async function startServer(): Promise<ChildServer> {
    const subscribed = feed.nextSubscriber();
    const server = await startChildServer(env);
    child = server.process;
    await subscribed;
    await atBase(server.url);
    return server;
  }

  /** Sends the base prices and waits until the server quotes them. */
  async function atBase(url: string): Promise<void> {
    feed.send(BASE);
    await until(async () => {
      const res = await api(url, 0, 'GET', 'current-prices/');
      const data = res.body.data as Record<string, { bid: number }>;
      return data.EURUSD?.bid === BASE.EURUSD && data.GBPUSD?.bid === BASE.GBPUSD;
    }, 'the base prices');
  }

  async function api(url: string, trader: number, method: 'GET' | 'POST', call: string, body?: object) {
    const res = await fetch(`${url}/api/trading/${call}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: traders[trader]!.authorization },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> } };
  }

  async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The round's orders: one of each type and side on EURUSD, one GTD about to expire, and a protected GBPUSD position. */
  async function placeRound(url: string, round: number, next: (n: number) => number): Promise<Placed[]> {
    const bid = BASE.EURUSD;
    const ask = BASE.EURUSD + SPREAD;
    const pips = (n: number) => n / 10_000;
    const r5 = (x: number) => Number(x.toFixed(5));
    const placed: Placed[] = [];
    await Promise.all(
      traders.map(async (_, trader) => {
        const away = () => pips(1 + next(25));
        const bodies: Array<Record<string, unknown>> = [
          { side: 'BUY', order_type: 'LIMIT', price: r5(ask - away()) },
          { side: 'SELL', order_type: 'LIMIT', price: r5(bid + away()) },
          { side: 'BUY', order_type: 'STOP', price: r5(ask + away()) },
          { side: 'SELL', order_type: 'STOP', price: r5(bid - away()) },
          ...[0, 1].map(() => {
            const stop = r5(ask + away());
            return { side: 'BUY', order_type: 'STOP_LIMIT', price: stop, limit_price: r5(stop + pips(next(11) - 5)) };
          }),
          ...[0, 1].map(() => {
            const stop = r5(bid - away());
            return { side: 'SELL', order_type: 'STOP_LIMIT', price: stop, limit_price: r5(stop - pips(next(11) - 5)) };
          }),
          {
            side: next(2) ? 'BUY' : 'SELL',
            order_type: 'STOP',
            price: 0, // set below
            time_in_force: 'GTD',
            expires_at: '', // set when sent
          },
        ];
        const gtd = bodies.at(-1) as { side: string; price: number };
        gtd.price = r5(gtd.side === 'BUY' ? ask + away() : bid - away());
        for (const body of bodies) {
          if ('expires_at' in body) body.expires_at = new Date(Date.now() + 300 + next(700)).toISOString();
          const quantity = (1 + next(5)) / 100;
          const res = await api(url, trader, 'POST', 'place-pending-order/', { symbol: 'EURUSD', quantity, ...body });
          if (res.status !== 201)
            throw new Error(`placing ${JSON.stringify(body)} answered ${res.status}: ${JSON.stringify(res.body)}`);
          const order = res.body.data!.order as { id: number; status: string };
          expect(order.status).toBe('PENDING');
          placed.push({ round, trader, id: order.id, what: JSON.stringify(body), gtd: 'time_in_force' in body });
        }
        // A protected GBPUSD position: a stop loss and take profit, or a trailing stop.
        const long = next(2) === 1;
        const protection =
          next(3) === 0
            ? { trailing_stop_pips: 10 }
            : {
                stop_loss: r5(BASE.GBPUSD + (long ? -1 : 1) * pips(5 + next(20))),
                take_profit: r5(BASE.GBPUSD + (long ? 1 : -1) * pips(10 + next(20))),
              };
        const res = await api(url, trader, 'POST', 'place-market-order/', {
          symbol: 'GBPUSD',
          side: long ? 'BUY' : 'SELL',
          quantity: 0.05,
          ...protection,
        });
        if (res.status !== 201) throw new Error(`market order answered ${res.status}: ${JSON.stringify(res.body)}`);
      }),
    );
    return placed;
  }

  async function sendSweep(stopped: () => boolean): Promise<void> {
    for (const prices of sweep()) {
      if (stopped()) return;
      feed.send(prices);
      await new Promise((r) => setTimeout(r, 3));
    }
  }

  const placedAll: Placed[] = [];

  /** The orders of `ids` as stored. */
  async function stored(ids: number[]) {
    const rows = ids.length ? await db.kysely.selectFrom('orders').selectAll().where('id', 'in', ids).execute() : [];
    return new Map(rows.map((r) => [Number(r.id), r]));
  }

  async function auditAll(): Promise<void> {
    for (const trader of traders) expect(await auditAccount(db, trader.accountId)).toEqual([]);
  }

  /** No acknowledged order lost; terminal ones with their effects (the audit); no position closed twice. */
  async function verifyDurable(): Promise<Map<number, string>> {
    const rows = await stored(placedAll.map((p) => p.id));
    const statuses = new Map<number, string>();
    for (const p of placedAll) {
      const row = rows.get(p.id);
      expect(row, `acknowledged order ${p.id} (${p.what}) is missing`).toBeDefined();
      expect(Number(row!.account_id)).toBe(traders[p.trader]!.accountId);
      expect(p.gtd ? ['PENDING', 'FILLED', 'EXPIRED'] : ['PENDING', 'FILLED'], `order ${p.id} (${p.what})`).toContain(
        row!.status,
      );
      statuses.set(p.id, row!.status);
    }
    await auditAll();
    // Each position is closed by at most one order (a close of a closed position would be a second trade on it).
    const closes = await db.kysely
      .selectFrom('orders')
      .select(['position_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('reason', 'in', ['stop_loss', 'take_profit', 'trailing_stop'])
      .where('status', '=', 'FILLED')
      .groupBy('position_id')
      .execute();
    for (const c of closes) expect(Number(c.n), `position ${c.position_id} closed ${c.n} times`).toBe(1);
    return statuses;
  }

  it(
    `no trigger lost or executed twice through ${KILLS} kill -9s during a sweep of triggers`,
    async () => {
      const seed = process.env.ORDERS_CRASH_SEED ? Number(process.env.ORDERS_CRASH_SEED) : Date.now() % 2 ** 31;
      console.log(`order engine crash test seed ${seed} (replay with ORDERS_CRASH_SEED=${seed})`);
      const random = fc.sample(fc.integer({ min: 0, max: 2 ** 30 }), { seed, numRuns: 10_000 });
      let r = 0;
      const next = (n: number) => random[r++ % random.length]! % n;
      const sweepMs = sweep().length * 4;

      let server = await startServer();
      let partial = 0;
      let pendingAtRestart = 0;
      let terminalAtRestart = 0;
      for (let round = 0; round < KILLS; round++) {
        const placed = await placeRound(server.url, round, next);
        placedAll.push(...placed);

        // The sweep triggers them; the server is killed somewhere in it.
        let killed = false;
        const sweeping = sendSweep(() => killed);
        await new Promise((resolve) => setTimeout(resolve, 5 + next(sweepMs)));
        killed = true;
        await killChildServer(server.process);
        await sweeping;

        server = await startServer();
        const statuses = await verifyDurable();
        const ofRound = placed.filter((p) => !p.gtd).map((p) => statuses.get(p.id)!);
        const stillPending = ofRound.filter((s) => s === 'PENDING').length;
        pendingAtRestart += stillPending;
        terminalAtRestart += ofRound.length - stillPending;
        if (stillPending > 0 && stillPending < ofRound.length) partial++;

        // Everything still PENDING, and every protection, is armed: the sweep again triggers all of it.
        let done = false;
        // Swept again and again until all of it went (an execution that failed is retried by a later tick).
        const again = (async () => {
          while (!done) await sendSweep(() => done);
        })();
        await until(async () => {
          const rows = await stored(placed.map((p) => p.id));
          const pending = [...rows.values()].filter((row) => row.status === 'PENDING').length;
          const open = await db.kysely
            .selectFrom('positions')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('symbol', '=', 'GBPUSD')
            .where('status', '=', 'OPEN')
            .executeTakeFirstOrThrow();
          return pending === 0 && Number(open.n) === 0;
        }, `round ${round}: every order and protection triggered after the restart`).finally(() => {
          done = true;
        });
        await again;
        await atBase(server.url);
        const after = await verifyDurable();
        for (const p of placed) {
          expect(p.gtd ? ['FILLED', 'EXPIRED'] : ['FILLED'], `order ${p.id} (${p.what})`).toContain(after.get(p.id));
        }
      }
      console.log(
        `${KILLS} kills: ${placedAll.length} pending orders; at the restarts ${terminalAtRestart} GTC orders had been filled and ${pendingAtRestart} were still pending (${partial} kills in the middle of a round's triggers), all triggered after the restart`,
      );
      // The kills landed while triggers were executing, not only before or after.
      expect(partial).toBeGreaterThan(0);
      await killChildServer(server.process);
    },
    Math.max(600_000, KILLS * 10_000),
  ); // `npm run torture` asks for hundreds of kills
});
