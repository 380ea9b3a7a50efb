import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';

/**
 * PostgreSQL on the same machine, reached through its Unix socket rather than TCP
 * (docs/deployment.md#postgresql-on-the-same-machine): `DATABASE_URL` names the socket's folder
 * as `?host=`, and the whole server runs on it. The folder is the one the test server says it
 * listens in, and the port names the socket in it. It needs the test server on this machine (as
 * CI's is) and a `local` rule in its pg_hba.conf that admits the test user.
 */
describe.runIf(testDbKind === 'postgres')('DATABASE_URL through the Unix socket', () => {
  const prices = new ScriptedPriceSource();
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
  let t: TestApp;

  beforeAll(async () => {
    const tcp = new URL(process.env.TEST_DATABASE_URL!);
    const client = new pg.Client({ connectionString: tcp.toString() });
    await client.connect();
    let folders: string;
    try {
      folders = (await client.query<{ unix_socket_directories: string }>('show unix_socket_directories')).rows[0]!
        .unix_socket_directories;
    } finally {
      await client.end();
    }
    const folder = folders.split(',')[0]!.trim();
    const user = tcp.username ? `${tcp.username}${tcp.password ? `:${tcp.password}` : ''}@` : '';
    const socketUrl = `postgres://${user}/${tcp.pathname.slice(1)}?host=${encodeURIComponent(folder)}&port=${tcp.port || 5432}`;
    t = await startTestApp({ priceSource: prices, clock, env: { DATABASE_URL: socketUrl } });
    prices.push({ symbol: 'EURUSD', bid: 1.085, ask: 1.0852, timestamp: clock.now() });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('connects without TCP, and a trader places and sees an order', async () => {
    const { rows } = await sql<{ address: string | null }>`select inet_server_addr() as address`.execute(t.ctx.db.kysely);
    // NULL is PostgreSQL's answer on a Unix-socket connection; over TCP it is the server's address.
    expect(rows[0]!.address).toBeNull();

    const trader = await insertSignedInTrader(t);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers: { ...trader.headers, 'idempotency-key': 'unix-socket-1' },
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 },
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const orders = await t.app.inject({ method: 'GET', url: '/api/trading/orders/', headers: trader.headers });
    expect(orders.statusCode).toBe(200);
    expect(orders.json().results.map((o: { id: number }) => o.id)).toEqual([placed.json().data.order.id]);
  });
});
