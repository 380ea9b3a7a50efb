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
  runNode,
  startChildServer,
  TRADER_JS,
} from '../test/child-server.js';
import { freshDatabase, testConfig } from '../test/helpers.js';

const JWT_SECRET = 'deposit-test-secret-deposit-test-secret-012345';

type Message = Record<string, unknown> & { type: string };

/**
 * The real processes (docs/operations.md#deposits): a running server with a trader's socket open,
 * then `npm run trader -- deposit` as its own process (no bus shared with the server, on both
 * databases): the socket's account figures and platform-data show the deposit, without a restart.
 */
describe('a deposit by the CLI process reaches a running server', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;
  let child: ChildServer | undefined;
  let trader: ChildTrader;

  beforeAll(async () => {
    buildServer();
    fresh = await freshDatabase();
    const config = testConfig(fresh.dataDir, { JWT_SECRET });
    const db = openDatabase(config.database, fresh.pgSchema ? { schema: fresh.pgSchema } : {});
    await migrateToLatest(db);
    [trader] = (await insertChildTraders(db, config, 1, 250_000)) as [ChildTrader];
    await db.close();
    env = childServerEnv(fresh, JWT_SECRET, { LOG_LEVEL: 'error' });
    child = await startChildServer(env, { timeoutMs: 60_000 });
  }, 240_000);

  afterAll(async () => {
    await killChildServer(child?.process);
    await fresh?.drop();
  });

  it('the open socket gets the new balance and free margin, and platform-data shows it', async () => {
    const { url } = child!;
    const platform = async () => {
      const res = await fetch(`${url}/api/trading/platform-data/`, { headers: { authorization: trader.authorization } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { trading_account: { balance: number } } }).data;
    };
    const me = await fetch(`${url}/api/auth/me/`, { headers: { authorization: trader.authorization } });
    const email = ((await me.json()) as { data: { email: string } }).data.email;

    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws/trading/`);
    const messages: Message[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    const waitFor = async (type: string, where: (m: Message) => boolean = () => true) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = messages.find((m) => m.type === type && where(m));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching ${type}; got ${JSON.stringify(messages.slice(-5))}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    try {
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'authenticate', token: trader.authorization.slice('Bearer '.length) }));
      await waitFor('connection_established');
      ws.send(JSON.stringify({ type: 'subscribe_to_pnl' }));
      const figures = (m: Message) => m.data as { balance: number; free_margin: number };
      expect(figures(await waitFor('account_update')).balance).toBe(2500);

      const res = await runNode(TRADER_JS, ['deposit', '--email', email, '--amount', '750.25', '--note', 'wire ref 7'], env);
      expect(res).toMatchObject({ code: 0, stderr: '' });
      expect(res.stdout).toContain('Deposited 750.25 USD');

      const update = figures(await waitFor('account_update', (m) => figures(m).balance === 3250.25));
      expect(update.free_margin).toBe(3250.25);
      expect((await platform()).trading_account.balance).toBe(3250.25);
    } finally {
      ws.close();
    }
  });
});
