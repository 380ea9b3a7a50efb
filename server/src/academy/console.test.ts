import {
  commentResponseSchema,
  journalPageSchema,
  leaderboardSchema,
  ordersPageSchema,
  performanceSchema,
  platformDataSchema,
  type RosterRowDto,
  resetResponseSchema,
  rosterSchema,
} from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries, ledgerSum } from '../accounts/index.js';
import { ManualClock } from '../core/clock.js';
import { writeTransaction } from '../db/transaction.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';

// docs/academy.md: the instructor's console (roster, leaderboard, a student's data, reset,
// comments), each call against each role, on SQLite and PostgreSQL.

let t: TestApp;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
type User = Awaited<ReturnType<typeof insertSignedInTrader>>;

const lastQuotes = new Map<string, { bid: number; ask: number }>();
function quote(symbol: string, bid: number, ask = bid) {
  lastQuotes.set(symbol, { bid, ask });
  prices.push({ symbol, bid, ask, timestamp: clock.now() });
}

const call = (user: User | null, method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method,
    url,
    headers: { ...(user ? user.headers : {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

async function order(user: User, symbol: string, side: 'BUY' | 'SELL', quantity: number, extra: Record<string, unknown> = {}) {
  clock.advance(1000);
  // The market ticks again at its last prices: an order is never judged on a quote older than
  // the stale limit (docs/trading-rules.md#no-fill-on-a-stale-quote), and no price moves.
  for (const [symbol, q] of lastQuotes) quote(symbol, q.bid, q.ask);
  const res = await call(user, 'POST', '/api/trading/place-market-order/', { symbol, side, quantity, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { order: { id: number }; position: { id: number } };
}

async function withRole(role: 'instructor' | 'admin'): Promise<User> {
  const user = await insertSignedInTrader(t, { withAccount: false });
  await t.ctx.db.kysely.updateTable('users').set({ role }).where('id', '=', user.userId).execute();
  return user;
}

async function student(balanceMinor = 1_000_000): Promise<User> {
  clock.advance(1000);
  return insertSignedInTrader(t, { balanceMinor });
}

async function cohort(options: {
  instructors?: User[];
  members: User[];
  startingBalanceMinor?: number;
  allowSelfReset?: boolean;
}): Promise<number> {
  const now = clock.now();
  return writeTransaction(t.ctx.db, async (trx) => {
    const row = await trx
      .insertInto('cohorts')
      .values({
        name: `Cohort ${now}`,
        description: '',
        starting_balance_minor: options.startingBalanceMinor ?? 1_000_000,
        leverage: 100,
        starts_at: null,
        ends_at: null,
        allow_self_reset: options.allowSelfReset ? 1 : 0,
        status: 'active',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(row.id);
    for (const i of options.instructors ?? []) {
      await trx.insertInto('cohort_instructors').values({ cohort_id: id, user_id: i.userId, added_at: now }).execute();
    }
    for (const m of options.members) {
      await trx.insertInto('cohort_members').values({ cohort_id: id, user_id: m.userId, added_at: now, active: 1 }).execute();
    }
    return id;
  });
}

async function rosterRow(cohortId: number, as: User, userId: number): Promise<RosterRowDto> {
  const res = await call(as, 'GET', `/api/academy/cohorts/${cohortId}/roster/`);
  expect(res.statusCode, res.body).toBe(200);
  const row = rosterSchema.parse(res.json().data).find((r) => r.user.id === userId);
  expect(row).toBeDefined();
  return row!;
}

let admin: User;
let teacherA: User;
let teacherB: User;
let outsider: User;

beforeAll(async () => {
  // Many orders a second from one trader: the rate limits are tested where they live.
  t = await startTestApp({ priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000', RATE_LIMITS: 'false' } });
  for (const [symbol, bid] of [
    ['EURUSD', 1.1],
    ['GBPUSD', 1.25],
    ['AUDUSD', 0.66],
    ['NZDUSD', 0.61],
    ['USDCAD', 1.36],
  ] as const) {
    quote(symbol, bid);
  }
  admin = await withRole('admin');
  teacherA = await withRole('instructor');
  teacherB = await withRole('instructor');
  outsider = await student();
});
afterAll(async () => {
  await t?.close();
});

describe('who may make each call', () => {
  let cohortA: number;
  let a1: User;
  let a2: User;
  let tradeId: number;

  beforeAll(async () => {
    a1 = await student();
    a2 = await student();
    const b1 = await student();
    cohortA = await cohort({ instructors: [teacherA], members: [a1, a2] });
    await cohort({ instructors: [teacherB], members: [b1] });
    await order(a1, 'EURUSD', 'BUY', 0.1);
    await order(a1, 'EURUSD', 'SELL', 0.1);
    const journal = journalPageSchema.parse((await call(a1, 'GET', '/api/trading/journal/')).json());
    tradeId = journal.results[0]!.trade.id;
  });

  it('roster: admin and the cohort’s instructors; another instructor 404; traders 403', async () => {
    const url = `/api/academy/cohorts/${cohortA}/roster/`;
    expect((await call(admin, 'GET', url)).statusCode).toBe(200);
    expect((await call(teacherA, 'GET', url)).statusCode).toBe(200);
    expect((await call(teacherB, 'GET', url)).statusCode).toBe(404);
    expect((await call(a1, 'GET', url)).statusCode).toBe(403);
    expect((await call(outsider, 'GET', url)).statusCode).toBe(403);
    expect((await call(admin, 'GET', '/api/academy/cohorts/999999/roster/')).statusCode).toBe(404);
    expect((await call(null, 'GET', url)).statusCode).toBe(401);
  });

  it('leaderboard: members, the cohort’s instructors and admin; anyone else 404', async () => {
    const url = `/api/academy/cohorts/${cohortA}/leaderboard/`;
    for (const user of [admin, teacherA, a1, a2]) expect((await call(user, 'GET', url)).statusCode).toBe(200);
    expect((await call(teacherB, 'GET', url)).statusCode).toBe(404);
    expect((await call(outsider, 'GET', url)).statusCode).toBe(404);
  });

  it('a student’s read-only calls: admin and their instructors; another instructor 404; traders, the student too, 403', async () => {
    for (const path of ['', 'orders/', 'performance/', 'journal/']) {
      const url = `/api/academy/students/${a1.userId}/${path}`;
      expect((await call(admin, 'GET', url)).statusCode, url).toBe(200);
      expect((await call(teacherA, 'GET', url)).statusCode, url).toBe(200);
      expect((await call(teacherB, 'GET', url)).statusCode, url).toBe(404);
      expect((await call(a1, 'GET', url)).statusCode, url).toBe(403);
      expect((await call(outsider, 'GET', url)).statusCode, url).toBe(403);
      expect((await call(admin, 'GET', `/api/academy/students/999999/${path}`)).statusCode, url).toBe(404);
    }
  });

  it('reset: admin and the student’s instructors; another instructor 404; traders 403 without self-reset', async () => {
    const url = `/api/academy/students/${a2.userId}/reset/`;
    expect((await call(teacherB, 'POST', url)).statusCode).toBe(404);
    expect((await call(a2, 'POST', url)).statusCode).toBe(403);
    expect((await call(outsider, 'POST', url)).statusCode).toBe(403);
    expect((await call(admin, 'POST', url)).statusCode).toBe(200);
    expect((await call(teacherA, 'POST', url)).statusCode).toBe(200);
  });

  it('comments: the student’s instructors only; admin and traders 403, another instructor 404', async () => {
    const url = `/api/academy/students/${a1.userId}/comments/`;
    const body = { trade_id: tradeId, text: 'Good exit.' };
    expect((await call(teacherB, 'POST', url, body)).statusCode).toBe(404);
    expect((await call(admin, 'POST', url, body)).statusCode).toBe(403);
    expect((await call(a1, 'POST', url, body)).statusCode).toBe(403);
    expect((await call(outsider, 'POST', url, body)).statusCode).toBe(403);
    expect((await call(teacherA, 'POST', url, body)).statusCode).toBe(201);
  });
});

describe('the student’s data, read-only', () => {
  it('is what the student sees of their own: dashboard, orders with filters, performance, journal', async () => {
    const s = await student();
    await cohort({ instructors: [teacherA], members: [s] });
    await order(s, 'GBPUSD', 'BUY', 0.2);
    await order(s, 'GBPUSD', 'SELL', 0.1);
    const own = platformDataSchema.parse((await call(s, 'GET', '/api/trading/platform-data/')).json().data);
    const seen = platformDataSchema.parse((await call(teacherA, 'GET', `/api/academy/students/${s.userId}/`)).json().data);
    expect(seen).toEqual(own);
    const orders = ordersPageSchema.parse(
      (await call(teacherA, 'GET', `/api/academy/students/${s.userId}/orders/?side=SELL&page_size=1`)).json(),
    );
    expect(orders.count).toBe(1);
    expect(orders.results[0]).toMatchObject({ side: 'SELL', quantity: 0.1 });
    expect((await call(teacherA, 'GET', `/api/academy/students/${s.userId}/orders/?ordering=sideways`)).statusCode).toBe(400);
    const performance = performanceSchema.parse(
      (await call(teacherA, 'GET', `/api/academy/students/${s.userId}/performance/`)).json().data,
    );
    expect(performance).toEqual(performanceSchema.parse((await call(s, 'GET', '/api/trading/performance/')).json().data));
    expect(performance.closed_trades).toBe(1);
    const journal = journalPageSchema.parse((await call(teacherA, 'GET', `/api/academy/students/${s.userId}/journal/`)).json());
    expect(journal).toEqual(journalPageSchema.parse((await call(s, 'GET', '/api/trading/journal/')).json()));
  });
});

describe('the roster', () => {
  it('shows live figures equal to the live valuation, and follows ticks and orders', async () => {
    const s = await student();
    const idle = await student();
    const id = await cohort({ instructors: [teacherA], members: [s, idle] });
    await order(s, 'AUDUSD', 'BUY', 1);
    const dashboard = async () => platformDataSchema.parse((await call(s, 'GET', '/api/trading/platform-data/')).json().data);

    let row = await rosterRow(id, teacherA, s.userId);
    let account = (await dashboard()).trading_account!;
    expect(row.account).toEqual({
      balance: account.balance,
      equity: account.equity,
      margin_used: account.margin_used,
      free_margin: account.free_margin,
      margin_level: account.margin_level,
    });
    expect(row).toMatchObject({ open_positions: 1, unprotected_positions: 1, pending_orders: 0, closed_trades: 0 });
    expect(row.flags).toContain('no_stop_loss');
    expect(row.last_trade_at).toBe(new Date(clock.now()).toISOString());

    // A tick: 1 lot AUDUSD bought at the ask 0.66001, valued at the bid 0.66200: +199.00 USD (a quote's ask is a point above its bid at least).
    quote('AUDUSD', 0.662);
    await expect.poll(async () => (await rosterRow(id, teacherA, s.userId)).account?.equity).toBe(10_199);
    row = await rosterRow(id, teacherA, s.userId);
    account = (await dashboard()).trading_account!;
    expect(row.account?.margin_used).toBe(account.margin_used);
    expect(row.return_pct).toBe(1.99);
    expect(row.today_pnl).toBe(199);

    // An order: a protected second position, and a pending order.
    await order(s, 'NZDUSD', 'SELL', 0.5, { stop_loss: 0.65 });
    const pending = await call(s, 'POST', '/api/trading/place-pending-order/', {
      symbol: 'AUDUSD',
      side: 'SELL',
      order_type: 'LIMIT',
      quantity: 0.1,
      price: 0.7,
    });
    expect(pending.statusCode, pending.body).toBe(201);
    await expect.poll(async () => (await rosterRow(id, teacherA, s.userId)).open_positions).toBe(2);
    row = await rosterRow(id, teacherA, s.userId);
    expect(row).toMatchObject({ unprotected_positions: 1, pending_orders: 1 });
    account = (await dashboard()).trading_account!;
    expect(row.account?.margin_used).toBe(account.margin_used);

    const quiet = await rosterRow(id, teacherA, idle.userId);
    expect(quiet).toMatchObject({
      account: { balance: 10_000, equity: 10_000, margin_used: 0, free_margin: 10_000, margin_level: null },
      open_positions: 0,
      return_pct: 0,
      last_trade_at: null,
      flags: [],
    });
  });

  it('shows a new member at once, and a removed one no more (the cached part follows the membership)', async () => {
    const first = await student();
    const id = await cohort({ instructors: [teacherA], members: [first] });
    const ids = async () =>
      rosterSchema.parse((await call(teacherA, 'GET', `/api/academy/cohorts/${id}/roster/`)).json().data).map((r) => r.user.id);
    expect(await ids()).toEqual([first.userId]);
    const second = await student();
    await t.ctx.db.kysely
      .insertInto('cohort_members')
      .values({ cohort_id: id, user_id: second.userId, added_at: clock.now(), active: 1 })
      .execute();
    expect(await ids()).toEqual([first.userId, second.userId]);
    await t.ctx.db.kysely.deleteFrom('cohort_members').where('cohort_id', '=', id).where('user_id', '=', first.userId).execute();
    expect(await ids()).toEqual([second.userId]);
  });

  it('flags high exposure below 200 % and margin call at 100 %, and a week without trading', async () => {
    const s = await student();
    const id = await cohort({ instructors: [teacherA], members: [s] });
    quote('USDCAD', 1.36);
    // 7 lots of USDCAD at leverage 100: 7,000.00 USD of margin (the base is USD). Bought at the ask
    // 1.36001 and valued at the bid 1.36: −7 CAD = −5.15 USD. 9,994.85 ÷ 7,000.00 = 142.78 %.
    await order(s, 'USDCAD', 'BUY', 7, { stop_loss: 1.2 });
    let row = await rosterRow(id, teacherA, s.userId);
    expect(row.account?.margin_level).toBe(142.78);
    expect(row.flags).toEqual(['high_exposure']);
    // Margin call at equity ≤ 7,000.00, a loss of 3,000.00 USD: 700,000 × (p − 1.36) ÷ p ≤ −3,000 → p ≤ 1.3541963.
    quote('USDCAD', 1.35419);
    await expect.poll(async () => (await rosterRow(id, teacherA, s.userId)).flags).toContain('margin_call');
    row = await rosterRow(id, teacherA, s.userId);
    expect(row.account!.margin_level!).toBeLessThanOrEqual(100);
    expect(row.flags).toEqual(['margin_call', 'high_exposure']);
    quote('USDCAD', 1.36);

    const sleeper = await student();
    const other = await cohort({ instructors: [teacherA], members: [sleeper] });
    expect((await rosterRow(other, teacherA, sleeper.userId)).flags).toEqual([]);
    clock.advance(8 * 86_400_000);
    expect((await rosterRow(other, teacherA, sleeper.userId)).flags).toEqual(['inactive_7d']);
  });
});

describe('the leaderboard', () => {
  it('ranks by return %, then lower drawdown, then earlier period start, against hand-computed returns', async () => {
    // Buys fill at the ask, positions are valued at the bid.
    quote('EURUSD', 1.09999, 1.1);
    quote('GBPUSD', 1.24999, 1.25);
    const winner = await student();
    const flatEarly = await student();
    const flatLate = await student();
    const recovered = await student();
    const id = await cohort({ instructors: [teacherA], members: [recovered, flatLate, winner, flatEarly] });
    // The winner: 1 lot GBPUSD bought at 1.25000, bid now 1.26250: +1,250.00 USD on 10,000.00 → +12.50 %.
    await order(winner, 'GBPUSD', 'BUY', 1);
    // Recovered: 1 lot EURUSD bought at 1.10000 (equity 9,999.00 at the bid), sold at 1.09000
    // (−1,000.00 realized: equity 9,000.00), bought again at 1.09001 (equity 8,999.00), bid now
    // 1.10001: +1,000.00 unrealized, equity 10,000.00 → 0.00 %. Max drawdown (9,999 − 8,999) ÷ 9,999 = 10.00 %.
    await order(recovered, 'EURUSD', 'BUY', 1);
    quote('EURUSD', 1.09, 1.09001);
    await order(recovered, 'EURUSD', 'SELL', 1);
    await order(recovered, 'EURUSD', 'BUY', 1);
    quote('EURUSD', 1.10001, 1.10002);
    quote('GBPUSD', 1.2625, 1.26251);
    await expect
      .poll(async () => {
        const res = await call(flatEarly, 'GET', `/api/academy/cohorts/${id}/leaderboard/`);
        return leaderboardSchema.parse(res.json().data)[0]?.return_pct;
      })
      .toBe(12.5);
    const board = leaderboardSchema.parse((await call(flatEarly, 'GET', `/api/academy/cohorts/${id}/leaderboard/`)).json().data);
    expect(board.map((r) => [r.rank, r.user.id, r.return_pct, r.max_drawdown_pct])).toEqual([
      [1, winner.userId, 12.5, 0],
      [2, flatEarly.userId, 0, 0],
      [3, flatLate.userId, 0, 0],
      [4, recovered.userId, 0, 10],
    ]);
    expect(board[0]).toMatchObject({ user: { display_name: winner.fullName }, equity: 11_250, closed_trades: 0 });
    expect(board[3]).toMatchObject({ equity: 10_000, closed_trades: 1, win_rate: 0, profit_factor: 0 });
  });
});

describe('reset', () => {
  async function resetFixture(options: { allowSelfReset?: boolean } = {}) {
    // The long NZDUSD buys at 0.61000, the short USDCAD sells at 1.36000.
    quote('NZDUSD', 0.60999, 0.61);
    quote('USDCAD', 1.36, 1.36001);
    const s = await student();
    const id = await cohort({
      instructors: [teacherA],
      members: [s],
      startingBalanceMinor: 500_000,
      ...(options.allowSelfReset === undefined ? {} : { allowSelfReset: options.allowSelfReset }),
    });
    await order(s, 'NZDUSD', 'BUY', 0.5);
    await order(s, 'USDCAD', 'SELL', 0.1, { stop_loss: 1.4 });
    const pending = await call(s, 'POST', '/api/trading/place-pending-order/', {
      symbol: 'NZDUSD',
      side: 'BUY',
      order_type: 'LIMIT',
      quantity: 0.1,
      price: 0.6,
    });
    expect(pending.statusCode, pending.body).toBe(201);
    // The long closes at the bid 0.61200: 0.5 × 100,000 × 0.002 = +100.00 USD; the short at the ask 1.36000: 0.
    quote('NZDUSD', 0.612, 0.61201);
    quote('USDCAD', 1.35999, 1.36);
    return { s, cohortId: id, pendingId: pending.json().data.order.id as number };
  }

  const accountOf = (s: User) => s.accountId!;

  it('closes every position with reason reset, cancels pending orders, restores the balance by one ledger entry, starts a new period', async () => {
    const { s, cohortId, pendingId } = await resetFixture();
    clock.advance(1000);
    const before = await t.ctx.db.kysely
      .selectFrom('trading_accounts')
      .select('balance_minor')
      .where('id', '=', accountOf(s))
      .executeTakeFirstOrThrow();
    const res = await call(teacherA, 'POST', `/api/academy/students/${s.userId}/reset/`);
    expect(res.statusCode, res.body).toBe(200);
    const answer = resetResponseSchema.parse(res.json().data);
    expect(answer.account).toMatchObject({ balance: 5_000, equity: 5_000, margin_used: 0, margin_level: null });
    expect(answer.closed_positions).toHaveLength(2);
    expect(answer.cancelled_orders).toEqual([pendingId]);
    expect(answer.period_start).toBe(new Date(clock.now()).toISOString());

    const db = t.ctx.db.kysely;
    const resetOrders = await db
      .selectFrom('orders')
      .selectAll()
      .where('account_id', '=', accountOf(s))
      .where('reason', '=', 'reset')
      .orderBy('symbol')
      .execute();
    expect(resetOrders.map((o) => [o.symbol, o.side, o.status])).toEqual([
      ['NZDUSD', 'SELL', 'FILLED'],
      ['USDCAD', 'BUY', 'FILLED'],
    ]);
    const open = await db
      .selectFrom('positions')
      .select('id')
      .where('account_id', '=', accountOf(s))
      .where('status', '=', 'OPEN')
      .execute();
    expect(open).toEqual([]);
    const cancelled = await db.selectFrom('orders').select('status').where('id', '=', pendingId).executeTakeFirstOrThrow();
    expect(cancelled.status).toBe('CANCELLED');

    const ledger = await ledgerEntries(db, accountOf(s));
    const resets = ledger.filter((e) => e.kind === 'reset');
    expect(resets).toHaveLength(1);
    // Before the reset: 10,000.00 + 100.00 realized by the NZDUSD close (the USDCAD short closes flat).
    expect(Number(before.balance_minor)).toBe(1_000_000);
    expect(Number(resets[0]!.amount_minor)).toBe(500_000 - 1_010_000);
    expect(Number(ledger.at(-1)!.balance_after_minor)).toBe(500_000);
    expect(await ledgerSum(db, accountOf(s))).toBe(500_000);

    const periods = await db
      .selectFrom('performance_periods')
      .selectAll()
      .where('account_id', '=', accountOf(s))
      .orderBy('id')
      .execute();
    expect(periods).toHaveLength(2);
    expect(Number(periods[0]!.ended_at)).toBe(clock.now());
    expect(Number(periods[0]!.closed_trades)).toBe(2);
    expect(periods[1]).toMatchObject({ ended_at: null });
    expect(Number(periods[1]!.started_at)).toBe(clock.now());
    expect(Number(periods[1]!.start_balance_minor)).toBe(500_000);

    const performance = performanceSchema.parse((await call(s, 'GET', '/api/trading/performance/')).json().data);
    expect(performance).toMatchObject({ start_balance: 5_000, equity: 5_000, return_pct: 0, closed_trades: 0 });
    const journal = journalPageSchema.parse((await call(s, 'GET', '/api/trading/journal/')).json());
    expect(journal.count).toBe(0);
    // The live book heard of it: the roster and the student's account show the new balance.
    await expect.poll(async () => (await rosterRow(cohortId, teacherA, s.userId)).account?.balance).toBe(5_000);
    expect(await rosterRow(cohortId, teacherA, s.userId)).toMatchObject({
      open_positions: 0,
      pending_orders: 0,
      closed_trades: 0,
    });
    const dashboard = platformDataSchema.parse((await call(s, 'GET', '/api/trading/platform-data/')).json().data);
    expect(dashboard.trading_account).toMatchObject({ balance: 5_000, equity: 5_000 });
    expect(dashboard.open_positions).toEqual([]);
    expect(dashboard.pending_orders).toEqual([]);
  });

  it('is idempotent with an Idempotency-Key: a retry answers the first answer and resets nothing again', async () => {
    const { s } = await resetFixture();
    const url = `/api/academy/students/${s.userId}/reset/`;
    const key = { 'idempotency-key': `reset-${s.userId}` };
    const first = await call(teacherA, 'POST', url, undefined, key);
    expect(first.statusCode, first.body).toBe(200);
    // The student trades again; a retry of the same reset must not wipe this.
    await order(s, 'NZDUSD', 'BUY', 0.1);
    const retry = await call(teacherA, 'POST', url, undefined, key);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json().data).toEqual(first.json().data);
    const db = t.ctx.db.kysely;
    expect((await ledgerEntries(db, accountOf(s))).filter((e) => e.kind === 'reset')).toHaveLength(1);
    const open = await db
      .selectFrom('positions')
      .select('id')
      .where('account_id', '=', accountOf(s))
      .where('status', '=', 'OPEN')
      .execute();
    expect(open).toHaveLength(1);
    // The same key for another student is another request: 422, nothing done.
    const other = await student();
    await cohort({ instructors: [teacherA], members: [other] });
    const reused = await call(teacherA, 'POST', `/api/academy/students/${other.userId}/reset/`, undefined, key);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await ledgerEntries(db, other.accountId!)).filter((e) => e.kind === 'reset')).toHaveLength(0);
    // Without a key a second reset is a second reset.
    expect((await call(teacherA, 'POST', url)).statusCode).toBe(200);
    expect((await ledgerEntries(db, accountOf(s))).filter((e) => e.kind === 'reset')).toHaveLength(2);
  });

  it('lets the student reset themself only when the cohort allows it', async () => {
    const denied = await resetFixture({ allowSelfReset: false });
    const refused = await call(denied.s, 'POST', `/api/academy/students/${denied.s.userId}/reset/`);
    expect(refused.statusCode).toBe(403);
    expect((await ledgerEntries(t.ctx.db.kysely, accountOf(denied.s))).filter((e) => e.kind === 'reset')).toHaveLength(0);
    const allowed = await resetFixture({ allowSelfReset: true });
    const own = await call(allowed.s, 'POST', `/api/academy/students/${allowed.s.userId}/reset/`);
    expect(own.statusCode, own.body).toBe(200);
    expect(resetResponseSchema.parse(own.json().data).account.balance).toBe(5_000);
    // Self-reset is for oneself: another student's account is still 403.
    expect((await call(allowed.s, 'POST', `/api/academy/students/${denied.s.userId}/reset/`)).statusCode).toBe(403);
  });

  it('rejects a body with fields (400) and changes nothing', async () => {
    const { s } = await resetFixture();
    const res = await call(teacherA, 'POST', `/api/academy/students/${s.userId}/reset/`, { balance: 1 });
    expect(res.statusCode).toBe(400);
    expect((await ledgerEntries(t.ctx.db.kysely, accountOf(s))).filter((e) => e.kind === 'reset')).toHaveLength(0);
  });
});

describe('comments', () => {
  it('appear in the student’s journal; another trade or a bad text is refused', async () => {
    const s = await student();
    const other = await student();
    await cohort({ instructors: [teacherA], members: [s, other] });
    await order(s, 'EURUSD', 'BUY', 0.1);
    const closing = await order(s, 'EURUSD', 'SELL', 0.1);
    await order(other, 'EURUSD', 'BUY', 0.1);
    await order(other, 'EURUSD', 'SELL', 0.1);
    const trades = await t.ctx.db.kysely.selectFrom('trades').select(['id', 'order_id', 'account_id']).execute();
    const closedTrade = Number(trades.find((r) => Number(r.order_id) === closing.order.id)!.id);
    const openingTrade = Number(
      trades.filter((r) => Number(r.account_id) === s.accountId).sort((a, b) => Number(a.id) - Number(b.id))[0]!.id,
    );
    const othersTrade = Number(trades.filter((r) => Number(r.account_id) === other.accountId).at(-1)!.id);
    const url = `/api/academy/students/${s.userId}/comments/`;

    const res = await call(teacherA, 'POST', url, { trade_id: closedTrade, text: '  Where was your stop?  ' });
    expect(res.statusCode, res.body).toBe(201);
    const comment = commentResponseSchema.parse(res.json().data);
    expect(comment).toMatchObject({
      trade_id: closedTrade,
      text: 'Where was your stop?',
      author: { id: teacherA.userId, full_name: teacherA.fullName },
    });

    const journal = journalPageSchema.parse((await call(s, 'GET', '/api/trading/journal/')).json());
    const entry = journal.results.find((e) => e.trade.id === closedTrade)!;
    expect(entry.comments).toEqual([
      { id: comment.id, author: comment.author, text: comment.text, created_at: comment.created_at },
    ]);

    for (const tradeId of [openingTrade, othersTrade, 999_999]) {
      const refused = await call(teacherA, 'POST', url, { trade_id: tradeId, text: 'x' });
      expect(refused.statusCode, String(tradeId)).toBe(404);
    }
    for (const [body, field] of [
      [{ trade_id: closedTrade, text: 'x'.repeat(2001) }, 'text'],
      [{ trade_id: closedTrade, text: '   ' }, 'text'],
      [{ trade_id: 'one', text: 'x' }, 'trade_id'],
      [{ trade_id: closedTrade, text: 'x', extra: 1 }, 'extra'],
    ] as const) {
      const bad = await call(teacherA, 'POST', url, body);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details[0].field).toBe(field);
    }
    expect((await call(teacherA, 'POST', url, { trade_id: closedTrade, text: 'y'.repeat(2000) })).statusCode).toBe(201);
    const after = journalPageSchema.parse((await call(s, 'GET', '/api/trading/journal/')).json());
    expect(after.results.find((e) => e.trade.id === closedTrade)!.comments).toHaveLength(2);
  });
});
