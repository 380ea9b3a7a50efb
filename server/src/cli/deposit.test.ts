import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { findAccountByUser, ledgerEntries } from '../accounts/index.js';
import { openDatabase } from '../db/database.js';
import { ScriptedPriceSource } from '../market/index.js';
import { MemoryBus } from '../realtime/bus.js';
import { freshDatabase, startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { addTrader, signedInTrader } from '../test/traders.js';
import { auditAccount } from '../trading/audit.js';
import { parseDepositAmount, runTraderCommand } from './commands.js';

type Message = Record<string, unknown> & { type: string };

/**
 * `npm run trader -- deposit` against a running server: the CLI has its own database connection
 * and its own bus (as the separate process it is), so the server learns of the deposit only
 * through the database (docs/operations.md#deposits). The real processes: deposit-process.test.ts.
 */
describe('npm run trader -- deposit', () => {
  let t: TestApp;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const prices = new ScriptedPriceSource();

  beforeAll(async () => {
    database = await freshDatabase();
    prices.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1001, timestamp: Date.now() });
    t = await startTestApp({
      dataDir: database.dataDir,
      ...(database.pgSchema ? { pgSchema: database.pgSchema } : {}),
      keep: true,
      listen: true,
      priceSource: prices,
      env: { CHART_HISTORY_DAYS: '0' },
    });
  });
  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  async function cli(...argv: string[]) {
    const db = openDatabase(t.config.database, database.pgSchema ? { schema: database.pgSchema } : {});
    const out: string[] = [];
    const err: string[] = [];
    try {
      const code = await runTraderCommand(
        argv,
        { db, bus: new MemoryBus(), clock: t.ctx.clock },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    } finally {
      await db.close();
    }
  }

  async function openSocket(token: string, node: TestApp = t) {
    const ws = new WebSocket(`${node.url.replace('http', 'ws')}/ws/trading/`);
    const messages: Message[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    const waitFor = async (type: string, where: (m: Message) => boolean = () => true, timeoutMs = 8_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.type === type && where(m));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching ${type}; got ${JSON.stringify(messages.slice(-5))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'authenticate', token }));
    await waitFor('connection_established');
    ws.send(JSON.stringify({ type: 'subscribe_to_pnl' }));
    await waitFor('pnl_subscription_confirmed');
    return { ws, messages, waitFor };
  }

  const get = async (url: string, headers: Record<string, string>) => {
    const res = await t.app.inject({ method: 'GET', url, headers });
    expect(res.statusCode).toBe(200);
    return res.json().data;
  };

  it('posts one deposit ledger entry with the note; the open socket and every call see the new balance and free margin', async () => {
    const trader = await signedInTrader(t);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers: trader.headers,
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 1 },
    });
    expect(placed.statusCode).toBe(201);
    const { ws, messages, waitFor } = await openSocket(trader.session.token);
    const account = (m: Message) => m.data as { balance: number; free_margin: number; equity: number };
    const before = account(await waitFor('account_update'));
    const performanceBefore = await get('/api/trading/performance/', trader.headers);

    const res = await cli(
      'deposit',
      '--email',
      trader.email.toUpperCase(),
      '--amount',
      '1234.56',
      '--note',
      ' Wire 2026-11-24, ref 88 ',
    );
    expect(res).toEqual({
      code: 0,
      out: `Deposited 1,234.56 USD to ${trader.email} (account ${trader.account!.accountId}): balance 11,234.56 USD.`,
      err: '',
    });

    // The server hears of it from the database within about a second, without a restart.
    const after = account(await waitFor('account_update', (m) => account(m).balance === 11_234.56));
    expect(after.free_margin).toBeCloseTo(before.free_margin + 1234.56, 2);
    expect(after.equity).toBeCloseTo(before.equity + 1234.56, 2);
    ws.close();

    const platform = await get('/api/trading/platform-data/', trader.headers);
    expect(platform.trading_account.balance).toBe(11_234.56);

    const ledger = await ledgerEntries(t.ctx.db.kysely, trader.account!.accountId);
    expect(ledger.map((e) => [e.kind, Number(e.amount_minor), Number(e.balance_after_minor), e.note])).toEqual([
      ['deposit', 1_000_000, 1_000_000, null],
      ['deposit', 123_456, 1_123_456, 'Wire 2026-11-24, ref 88'],
    ]);
    expect(await auditAccount(t.ctx.db, trader.account!.accountId)).toEqual([]);

    // A deposit is not P&L: the period's start grows by it, the net P&L does not.
    const performanceAfter = await get('/api/trading/performance/', trader.headers);
    expect(performanceAfter.net_pnl).toBe(performanceBefore.net_pnl);
    expect(performanceAfter.closed_trades).toBe(performanceBefore.closed_trades);
    expect(performanceAfter.start_balance).toBeCloseTo(performanceBefore.start_balance + 1234.56, 2);
    expect(messages.filter((m) => m.type === 'error')).toEqual([]);
  });

  it('a trader who subscribes after the deposit starts from the new balance', async () => {
    const trader = await signedInTrader(t, { balanceMinor: 50_000 });
    expect((await cli('deposit', '--email', trader.email, '--amount', '0.5', '--note', 'bonus')).code).toBe(0);
    const { ws, waitFor } = await openSocket(trader.session.token);
    const update = await waitFor('account_update');
    expect((update.data as { balance: number }).balance).toBe(500.5);
    ws.close();
  });

  it('refuses a bad command line with exit 2 and an unknown or account-less trader with exit 1, writing nothing', async () => {
    const trader = await addTrader(t);
    const noAccount = await addTrader(t, { withAccount: false });
    const cases: Array<[string[], number, RegExp]> = [
      [['--amount', '0', '--note', 'x'], 2, /--amount must be more than 0/],
      [['--amount=-5', '--note', 'x'], 2, /no withdrawals/],
      [['--amount', '1.234', '--note', 'x'], 2, /--amount must be an amount in USD with at most 2 decimals/],
      [['--amount', 'abc', '--note', 'x'], 2, /--amount must be an amount in USD/],
      [['--amount', '1e3', '--note', 'x'], 2, /--amount must be an amount in USD/],
      [['--amount', '1000000000.01', '--note', 'x'], 2, /--amount must be at most 1,000,000,000.00 USD/],
      [['--amount', '10'], 2, /--note is required/],
      [['--amount', '10', '--note', '   '], 2, /--note is required/],
      [['--amount', '10', '--note', 'n'.repeat(501)], 2, /--note must be at most 500 characters/],
      [['--amount', '10', '--note', 'x', 'extra'], 2, /Unexpected argument 'extra'/],
      [['--amount', '10', '--note', 'x', '--password', 'p'], 2, /Unknown option '--password'/],
    ];
    for (const [args, code, message] of cases) {
      const res = await cli('deposit', '--email', trader.email, ...args);
      expect({ args, code: res.code }).toEqual({ args, code });
      expect(res.err).toMatch(message);
      expect(res.out).toBe('');
    }
    expect(await cli('deposit', '--amount', '10', '--note', 'x')).toMatchObject({ code: 2, err: /--email is required/ });
    const unknown = await cli('deposit', '--email', 'nobody@example.com', '--amount', '10', '--note', 'x');
    expect(unknown).toMatchObject({ code: 1, err: 'Error: No trader with e-mail nobody@example.com' });
    const without = await cli('deposit', '--email', noAccount.email, '--amount', '10', '--note', 'x');
    expect(without).toMatchObject({
      code: 1,
      err: `Error: ${noAccount.email} has no trading account (created with --no-account).`,
    });

    const row = await findAccountByUser(t.ctx.db.kysely, trader.userId);
    expect(Number(row!.balance_minor)).toBe(1_000_000);
    expect(await ledgerEntries(t.ctx.db.kysely, Number(row!.id))).toHaveLength(1);
  });

  it.runIf(testDbKind === 'postgres')('reaches every node: sockets on two nodes both see the deposit', async () => {
    const redisUrl = process.env.TEST_REDIS_URL;
    const second = await startTestApp({
      dataDir: database.dataDir,
      pgSchema: database.pgSchema!,
      keep: true,
      listen: true,
      priceSource: new ScriptedPriceSource(),
      env: { CHART_HISTORY_DAYS: '0', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) },
    });
    try {
      const trader = await signedInTrader(t, { balanceMinor: 100_000 });
      const sockets = [await openSocket(trader.session.token), await openSocket(trader.session.token, second)];
      expect((await cli('deposit', '--email', trader.email, '--amount', '99.99', '--note', 'x')).code).toBe(0);
      for (const { ws, waitFor } of sockets) {
        await waitFor('account_update', (m) => (m.data as { balance: number }).balance === 1099.99);
        ws.close();
      }
    } finally {
      await second.close();
    }
  });

  it('reads amounts exactly', () => {
    expect(parseDepositAmount('0.01')).toBe(1);
    expect(parseDepositAmount('+19.9')).toBe(1990);
    expect(parseDepositAmount('1000000000')).toBe(100_000_000_000);
    expect(parseDepositAmount(' 0.29 ')).toBe(29); // 0.29 × 100 is 28.999… in floating point
  });
});
