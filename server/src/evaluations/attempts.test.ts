import { accountsListSchema, attemptsStartResponseSchema, meterSchema, programSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ledgerEntries } from '../accounts/index.js';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { academyCast, api } from '../test/academy.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { TradingSocketClient } from '../test/trading-socket-client.js';
import { auditAccount } from '../trading/audit.js';

/**
 * Attempts on challenge accounts (docs/evaluations.md#attempts): started by an instructor or the
 * student, judged on every tick and fill from memory, ended once with a snapshot, passed into the
 * next phase, and their days recorded in the program's time zone.
 */
let t: TestApp;
let cast: Awaited<ReturnType<typeof academyCast>>;
const prices = new ScriptedPriceSource();
// Monday 2026-11-02 10:00 UTC (11:00 in Prague).
const clock = new ManualClock(Date.UTC(2026, 10, 2, 10, 0, 0));

const quote = (bid: number, ask = bid + 0.0002) => prices.push({ symbol: 'EURUSD', bid, ask, timestamp: clock.now() });

/** 100.00 at 1:100, so 0.01 lot of EURUSD moves the equity a cent a point. */
const phase = {
  name: 'Challenge',
  profit_target_pct: 1,
  max_daily_loss_pct: 5,
  max_loss_pct: 10,
};

async function program(body: Record<string, unknown>) {
  const res = await api(t, cast.instructorA, 'POST', `/api/academy/cohorts/${cast.cohortA.id}/programs/`, {
    name: `Program ${Math.random()}`,
    initial_balance: 100,
    leverage: 100,
    allow_self_start: true,
    phases: [phase],
    ...body,
  });
  expect(res.statusCode).toBe(201);
  return programSchema.parse(res.json().data);
}

/** A new attempt of memberA, started by the student (self-start); its challenge account id. */
async function attempt(programId: number): Promise<{ attemptId: number; account: number }> {
  const res = await api(t, cast.memberA, 'POST', `/api/trading/programs/${programId}/attempts/`);
  expect(res.statusCode).toBe(201);
  return { attemptId: res.json().data.id, account: res.json().data.account_id };
}

const on = (account: number, path: string) => `${path}${path.includes('?') ? '&' : '?'}account=${account}`;
const meter = async (account: number) =>
  meterSchema.parse((await api(t, cast.memberA, 'GET', on(account, '/api/trading/challenge/'))).json().data);
const buy = (account: number, quantity: number, extra: Record<string, unknown> = {}) =>
  api(t, cast.memberA, 'POST', on(account, '/api/trading/place-market-order/'), {
    symbol: 'EURUSD',
    side: 'BUY',
    quantity,
    ...extra,
  });

beforeAll(async () => {
  quote(1.1);
  t = await startTestApp({ listen: true, priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000' } });
  cast = await academyCast(t);
});
afterAll(async () => {
  await t?.close();
});

describe('starting attempts', () => {
  it('starts one per chosen member on a challenge account at the program’s money; others are listed with why', async () => {
    const p = await program({ allow_self_start: false });
    const res = await api(t, cast.instructorA, 'POST', `/api/academy/programs/${p.id}/attempts/`, {
      user_ids: [cast.memberA.userId, cast.outsider.userId],
    });
    expect(res.statusCode).toBe(201);
    const body = attemptsStartResponseSchema.parse(res.json().data);
    expect(body.started.map((a) => [a.user.id, a.phase_index, a.status])).toEqual([[cast.memberA.userId, 0, 'active']]);
    expect(body.errors).toEqual([{ user_id: cast.outsider.userId, error: 'NOT_A_MEMBER' }]);
    const again = await api(t, cast.instructorA, 'POST', `/api/academy/programs/${p.id}/attempts/`, { all_members: true });
    expect(again.json().data.errors).toEqual([{ user_id: cast.memberA.userId, error: 'ATTEMPT_ACTIVE' }]);

    const accounts = accountsListSchema.parse((await api(t, cast.memberA, 'GET', '/api/trading/accounts/')).json().data);
    const challenge = accounts.find((a) => a.id === body.started[0]!.account_id)!;
    expect(challenge).toMatchObject({ kind: 'challenge', name: p.name, balance: 100, leverage: 100 });
    expect(challenge.challenge).toEqual({ attempt_id: body.started[0]!.id, status: 'active' });
    // The cohort's roster shows the student's attempt.
    const roster = (await api(t, cast.instructorA, 'GET', `/api/academy/cohorts/${cast.cohortA.id}/roster/`)).json()
      .data as Array<{
      user: { id: number };
      attempt: unknown;
    }>;
    expect(roster.find((r) => r.user.id === cast.memberA.userId)?.attempt).toEqual({
      id: body.started[0]!.id,
      program_id: p.id,
      program_name: p.name,
      phase_index: 0,
      status: 'active',
    });
    // Self-start is off for this program, and another cohort's instructor cannot start it.
    expect((await api(t, cast.memberA, 'POST', `/api/trading/programs/${p.id}/attempts/`)).json().code).toBe(
      'SELF_START_NOT_ALLOWED',
    );
    expect(
      (await api(t, cast.instructorB, 'POST', `/api/academy/programs/${p.id}/attempts/`, { all_members: true })).json().code,
    ).toBe('PROGRAM_NOT_FOUND');
    expect((await api(t, cast.memberB, 'POST', `/api/trading/programs/${p.id}/attempts/`)).json().code).toBe('PROGRAM_NOT_FOUND');
  });
});

describe('a breach ends the attempt on the tick that causes it', () => {
  it('a cent inside the daily floor is not a breach; at it, the attempt fails once, its position closes and the account is read-only', async () => {
    quote(1.1);
    const p = await program({});
    const { account, attemptId } = await attempt(p.id);
    const opened = await buy(account, 0.01);
    expect(opened.statusCode).toBe(201);
    expect(opened.json().data.execution_details.execution_price).toBe(1.1002);
    let m = await meter(account);
    // Daily floor 100.00 − 5 % × 100.00 = 95.00; max loss floor 90.00.
    expect(m).toMatchObject({ daily_loss_floor: 95, max_loss_floor: 90, day_basis: 100, status: 'active' });

    // Bought at 1.10020: the floor 95.00 is a loss of 5.00, a bid of 1.09520; a cent inside is 1.09521.
    quote(1.09521);
    m = await meter(account);
    expect([m.equity, m.daily_loss_left, m.status]).toEqual([95.01, 0.01, 'active']);

    quote(1.0952);
    await expect.poll(async () => (await meter(account)).status, { timeout: 5_000 }).toBe('failed');
    m = await meter(account);
    expect(m.failure).toEqual({
      rule: 'daily_loss',
      at: new Date(clock.now()).toISOString(),
      equity: 95,
      floor: 95,
      balance: 100,
    });
    expect(m.attempt.id).toBe(attemptId);
    // The position closed at that tick's bid, by the evaluation.
    const closes = async () =>
      (await api(t, cast.memberA, 'GET', on(account, '/api/trading/orders/')))
        .json()
        .results.filter((o: { reason: string }) => o.reason === 'challenge_breach');
    await expect.poll(closes, { timeout: 5_000 }).toHaveLength(1);
    expect(await closes()).toMatchObject([{ status: 'FILLED', side: 'SELL', average_fill_price: 1.0952 }]);
    // The meter reads the node's live book, which hears of the close on the bus just after its commit.
    await expect.poll(async () => (await meter(account)).balance, { timeout: 5_000 }).toBe(95);
    // Read-only from now on: 409, nothing stored.
    const refused = await buy(account, 0.01);
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'CHALLENGE_CLOSED']);
    expect((await api(t, cast.memberA, 'GET', on(account, '/api/trading/orders/'))).json().count).toBe(2);
    expect(await auditAccount(t.ctx.db, account)).toEqual([]);
    // A second breaching tick changes nothing.
    quote(1.05);
    expect((await meter(account)).failure?.equity).toBe(95);
  });
});

describe('the meter', () => {
  it('counts a fill made after it was read: the trading days it keeps are read again after every fill', async () => {
    quote(1.1);
    const p = await program({});
    const { account } = await attempt(p.id);
    expect(await meter(account)).toMatchObject({ status: 'active', trading_days: 0 });
    expect((await buy(account, 0.01)).statusCode).toBe(201);
    await vi.waitFor(async () => expect((await meter(account)).trading_days).toBe(1));
  });
});

describe('challenge_update on the trading socket', () => {
  it('sends the meter to the account’s socket after a fill and when the attempt fails, and nothing to the primary account’s', async () => {
    quote(1.1);
    const p = await program({});
    const { account } = await attempt(p.id);
    const token = cast.memberA.headers.authorization.slice('Bearer '.length);
    const challenge = await TradingSocketClient.signedIn(t, token, account);
    const primary = await TradingSocketClient.signedIn(t, token);
    try {
      expect((await buy(account, 0.01)).statusCode).toBe(201);
      // Generous waits: the whole PostgreSQL project on two cores once took more than 5 s to deliver one.
      const afterFill = await challenge.next('challenge_update', { timeoutMs: 15_000 });
      expect(meterSchema.safeParse(afterFill.data).success).toBe(true);
      expect(afterFill.data).toMatchObject({ status: 'active', daily_loss_floor: 95, trading_days: 1 });
      const from = challenge.mark();
      quote(1.0952);
      const failed = await challenge.next('challenge_update', {
        from,
        where: (m) => m.data.status === 'failed',
        timeoutMs: 15_000,
      });
      expect(failed.data.failure).toMatchObject({ rule: 'daily_loss', equity: 95, floor: 95 });
      expect(primary.of('challenge_update')).toEqual([]);
    } finally {
      challenge.close();
      primary.close();
    }
  });
});

describe('a breach racing the trader’s own close', () => {
  it('ends in exactly one close, the attempt failed once and the ledger exact, whichever comes first', async () => {
    quote(1.1);
    const p = await program({});
    const { account } = await attempt(p.id);
    const opened = await buy(account, 0.01);
    expect(opened.statusCode).toBe(201);
    const positionId = opened.json().data.position.id as number;
    // The tick that takes equity to the floor, and the trader's close at the same moment.
    const [closed] = await Promise.all([
      api(t, cast.memberA, 'POST', on(account, `/api/trading/close-position/${positionId}/`), {}),
      Promise.resolve().then(() => quote(1.0952)),
    ]);
    // The trader's close wins (200), or the evaluation's came first (409: already closed, or the account closed).
    expect([200, 409]).toContain(closed.statusCode);
    await expect.poll(async () => (await meter(account)).status, { timeout: 5_000 }).toBe('failed');
    const closes = async () =>
      (
        (await api(t, cast.memberA, 'GET', on(account, '/api/trading/orders/'))).json().results as Array<{
          reason: string;
          status: string;
        }>
      ).filter((o) => o.status === 'FILLED' && o.reason !== 'client');
    // The evaluation's own close runs after the attempt is marked failed: wait for the position to be gone.
    await expect.poll(async () => (await meter(account)).balance, { timeout: 5_000 }).toBe(95);
    expect(await closes()).toHaveLength(1);
    expect(await auditAccount(t.ctx.db, account)).toEqual([]);
    const rows = await t.ctx.db.kysely
      .selectFrom('evaluation_attempts')
      .select('status')
      .where('account_id', '=', account)
      .execute();
    expect(rows).toEqual([{ status: 'failed' }]);
  });
});

describe('order rules', () => {
  it('refuses above max lots and without a stop loss when required, storing nothing; at the limit with a stop loss it fills', async () => {
    quote(1.1);
    const p = await program({ phases: [{ ...phase, require_stop_loss: true, max_lots: 0.05 }] });
    const { account } = await attempt(p.id);
    const big = await buy(account, 0.06, { stop_loss: 1.09 });
    expect([big.statusCode, big.json().code]).toEqual([400, 'MAX_LOTS_EXCEEDED']);
    const bare = await buy(account, 0.05);
    expect([bare.statusCode, bare.json().code]).toEqual([400, 'STOP_LOSS_REQUIRED']);
    const pending = await api(t, cast.memberA, 'POST', on(account, '/api/trading/place-pending-order/'), {
      symbol: 'EURUSD',
      side: 'BUY',
      order_type: 'LIMIT',
      quantity: 0.01,
      price: 1.05,
    });
    expect(pending.json().code).toBe('STOP_LOSS_REQUIRED');
    expect((await api(t, cast.memberA, 'GET', on(account, '/api/trading/orders/'))).json().count).toBe(0);
    const ok = await buy(account, 0.05, { stop_loss: 1.09 });
    expect(ok.statusCode).toBe(201);
    const cleared = await api(t, cast.memberA, 'PATCH', on(account, `/api/trading/positions/${ok.json().data.position.id}/`), {
      stop_loss: null,
    });
    expect(cleared.json().code).toBe('STOP_LOSS_REQUIRED');
    // Selling back what is held needs no stop loss: it leaves no position.
    const close = await api(t, cast.memberA, 'POST', on(account, '/api/trading/place-market-order/'), {
      symbol: 'EURUSD',
      side: 'SELL',
      quantity: 0.05,
    });
    expect(close.statusCode).toBe(201);
  });
});

describe('passing', () => {
  it('passes phase 1 into phase 2 on the same account (balance back to the initial one), then passes the attempt', async () => {
    quote(1.1);
    const p = await program({ phases: [phase, { ...phase, name: 'Verification' }] });
    const { account } = await attempt(p.id);
    // Bought at 1.1002, sold at a bid of 1.1012: +1.00, the 1 % target of 100.00.
    expect((await buy(account, 0.01)).statusCode).toBe(201);
    quote(1.1012);
    const sold = await api(t, cast.memberA, 'POST', on(account, '/api/trading/place-market-order/'), {
      symbol: 'EURUSD',
      side: 'SELL',
      quantity: 0.01,
    });
    expect(sold.statusCode).toBe(201);
    await expect.poll(async () => (await meter(account)).phase.index, { timeout: 5_000 }).toBe(1);
    const second = await meter(account);
    expect(second).toMatchObject({ balance: 100, status: 'active', phase: { name: 'Verification' }, trading_days: 0 });
    const ledger = await ledgerEntries(t.ctx.db.kysely, account);
    expect(ledger.at(-1)).toMatchObject({ kind: 'reset', amount_minor: -100, balance_after_minor: 10_000 });
    expect(await auditAccount(t.ctx.db, account)).toEqual([]);

    quote(1.1);
    expect((await buy(account, 0.01)).statusCode).toBe(201);
    quote(1.1012);
    await api(t, cast.memberA, 'POST', on(account, '/api/trading/place-market-order/'), {
      symbol: 'EURUSD',
      side: 'SELL',
      quantity: 0.01,
    });
    await expect.poll(async () => (await meter(account)).status, { timeout: 5_000 }).toBe('passed');
    expect((await buy(account, 0.01)).json().code).toBe('CHALLENGE_CLOSED');
  });
});

describe('the day, in the program’s time zone', () => {
  it('records the next day’s basis once at its start, and ends a phase whose days ran out', async () => {
    quote(1.1);
    const p = await program({ time_zone: 'Europe/Prague', phases: [{ ...phase, max_days: 2 }] });
    const { account } = await attempt(p.id);
    const first = await meter(account);
    // Started Monday 2 November 11:00 in Prague: the day ends at midnight local (23:00 UTC).
    expect(first.day_ends_at).toBe('2026-11-02T23:00:00.000Z');
    expect(first.phase_ends_at).toBe('2026-11-03T23:00:00.000Z');
    // A loss of 2.00 today, kept open: the basis of the next day is the balance (100.00), not the equity.
    expect((await buy(account, 0.01)).statusCode).toBe(201);

    clock.set(Date.UTC(2026, 10, 2, 23, 0, 5));
    quote(1.0982);
    await t.evaluations.engine.checkDays();
    const next = await meter(account);
    expect(next).toMatchObject({ day_basis: 100, day_ends_at: '2026-11-03T23:00:00.000Z', status: 'active' });
    await t.evaluations.engine.checkDays();
    expect((await meter(account)).day_basis).toBe(100);

    clock.set(Date.UTC(2026, 10, 3, 23, 0, 0));
    quote(1.0982);
    await t.evaluations.engine.checkDays();
    await expect.poll(async () => (await meter(account)).status, { timeout: 5_000 }).toBe('failed');
    expect((await meter(account)).failure).toMatchObject({ rule: 'time_limit', floor: null });
  });
});
