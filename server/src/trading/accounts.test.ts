import { accountsListSchema, ops, pathOf, platformDataSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExtraAccount } from '../accounts/index.js';
import { ManualClock } from '../core/clock.js';
import { writeTransaction } from '../db/transaction.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { academyCast, api } from '../test/academy.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { TradingSocketClient } from '../test/trading-socket-client.js';
import { auditAccount } from './audit.js';

/**
 * Several accounts per trader (docs/accounts.md): `?account=` on every trading call, the accounts
 * call, and the trading socket serving one account. The primary account is what every call uses
 * without the parameter, exactly as before.
 */
let t: TestApp;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 10, 2, 10, 0, 0));
type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

const quote = (symbol: string, bid: number, ask: number) => prices.push({ symbol, bid, ask, timestamp: clock.now() });

function call(who: Trader, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: { ...who.headers, ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** A trader with their primary account and a challenge account of 25,000.00 at 1:30. */
async function traderWithChallenge(): Promise<Trader & { challengeId: number }> {
  const trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
  const opened = await writeTransaction(t.ctx.db, (trx) =>
    openExtraAccount(trx, {
      userId: trader.userId,
      kind: 'challenge',
      name: 'Challenge: Phase 1',
      balanceMinor: 2_500_000,
      leverage: 30,
      now: clock.now(),
    }),
  );
  return { ...trader, challengeId: opened!.accountId };
}

beforeAll(async () => {
  quote('EURUSD', 1.1, 1.1002);
  quote('GBPUSD', 1.3, 1.3003);
  t = await startTestApp({ listen: true, priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '100000' } });
});
afterAll(async () => {
  await t?.close();
});

describe('GET trading/accounts/', () => {
  it('lists a one-account trader’s primary account alone, valued', async () => {
    const me = await insertSignedInTrader(t, { balanceMinor: 500_000, leverage: 50 });
    const res = await call(me, 'GET', '/api/trading/accounts/');
    expect(res.statusCode).toBe(200);
    const accounts = accountsListSchema.parse(res.json().data);
    expect(accounts).toEqual([
      expect.objectContaining({
        id: me.accountId,
        kind: 'primary',
        name: 'Primary',
        balance: 5000,
        equity: 5000,
        margin_used: 0,
        free_margin: 5000,
        leverage: 50,
        status: 'ACTIVE',
        challenge: null,
        replay: null,
      }),
    ]);
  });

  it('lists the primary account first, then the others, each with its own live figures', async () => {
    const me = await traderWithChallenge();
    const placed = await call(me, 'POST', `/api/trading/place-market-order/?account=${me.challengeId}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 1,
    });
    expect(placed.statusCode).toBe(201);
    const accounts = accountsListSchema.parse((await call(me, 'GET', '/api/trading/accounts/')).json().data);
    expect(accounts.map((a) => [a.id, a.kind])).toEqual([
      [me.accountId, 'primary'],
      [me.challengeId, 'challenge'],
    ]);
    // Bought 100,000 EUR at the ask 1.1002, valued at the bid 1.1: −20.00; margin 110,010 ÷ 30 = 3,667.00.
    expect(accounts[1]).toMatchObject({ balance: 25000, equity: 24980, margin_used: 3667, free_margin: 21313, leverage: 30 });
    expect(accounts[0]).toMatchObject({ balance: 10000, equity: 10000, margin_used: 0 });
  });
});

describe('?account= on the trading calls', () => {
  it('places, lists, modifies and closes on the account named, and the primary account sees none of it', async () => {
    const me = await traderWithChallenge();
    const on = (path: string) => `${path}${path.includes('?') ? '&' : '?'}account=${me.challengeId}`;
    const placed = await call(me, 'POST', on('/api/trading/place-market-order/'), {
      symbol: 'GBPUSD',
      side: 'SELL',
      quantity: 0.5,
    });
    expect(placed.statusCode).toBe(201);
    const positionId = placed.json().data.position.id as number;
    const pending = await call(me, 'POST', on('/api/trading/place-pending-order/'), {
      symbol: 'EURUSD',
      side: 'BUY',
      order_type: 'LIMIT',
      quantity: 0.1,
      price: 1.05,
    });
    expect(pending.statusCode).toBe(201);
    const pendingId = pending.json().data.order.id as number;

    const challenge = platformDataSchema.parse((await call(me, 'GET', on('/api/trading/platform-data/'))).json().data);
    expect(challenge.trading_account?.id).toBe(me.challengeId);
    expect(challenge.open_positions.map((p) => p.id)).toEqual([positionId]);
    expect(challenge.pending_orders.map((o) => o.id)).toEqual([pendingId]);
    const primary = platformDataSchema.parse((await call(me, 'GET', '/api/trading/platform-data/')).json().data);
    expect(primary.trading_account?.id).toBe(me.accountId);
    expect(primary.open_positions).toEqual([]);
    expect(primary.pending_orders).toEqual([]);
    expect((await call(me, 'GET', '/api/trading/orders/')).json().count).toBe(0);
    expect((await call(me, 'GET', on('/api/trading/orders/'))).json().count).toBe(2);
    const pair = (await call(me, 'GET', on('/api/trading/pair/GBPUSD/'))).json().data;
    expect(pair.positions.map((p: { id: number }) => p.id)).toEqual([positionId]);
    const csv = (await call(me, 'GET', on('/api/trading/orders/export.csv'))).body.trim().split('\n');
    expect(csv).toHaveLength(3);

    // Another account's rows are not found from the primary one.
    expect((await call(me, 'POST', `/api/trading/close-position/${positionId}/`, {})).json().code).toBe('POSITION_NOT_FOUND');
    expect((await call(me, 'POST', `/api/trading/orders/${pendingId}/cancel/`)).json().code).toBe('ORDER_NOT_FOUND');
    expect((await call(me, 'PATCH', `/api/trading/positions/${positionId}/`, { stop_loss: 1.4 })).json().code).toBe(
      'POSITION_NOT_FOUND',
    );

    const modified = await call(me, 'PATCH', on(`/api/trading/orders/${pendingId}/`), { price: 1.04 });
    expect(modified.statusCode).toBe(200);
    expect(modified.json().data.order.price).toBe(1.04);
    expect((await call(me, 'POST', on(`/api/trading/orders/${pendingId}/cancel/`))).statusCode).toBe(200);
    expect((await call(me, 'PATCH', on(`/api/trading/positions/${positionId}/`), { stop_loss: 1.4 })).statusCode).toBe(200);
    const closed = await call(me, 'POST', on(`/api/trading/close-position/${positionId}/`), {});
    expect(closed.statusCode).toBe(200);

    // Each account's balance is its own ledger's sum, to the cent.
    expect(await auditAccount(t.ctx.db, me.challengeId)).toEqual([]);
    expect(await auditAccount(t.ctx.db, me.accountId!)).toEqual([]);
    const accounts = accountsListSchema.parse((await call(me, 'GET', '/api/trading/accounts/')).json().data);
    expect(accounts[0]!.balance).toBe(10000);
    // Sold 50,000 GBP at the bid 1.3 and bought back at the ask 1.3003: −15.00.
    expect(accounts[1]!.balance).toBe(24985);
    expect((await call(me, 'GET', on('/api/trading/performance/'))).statusCode).toBe(200);
    const journal = (await call(me, 'GET', on('/api/trading/journal/'))).json();
    expect(journal.count).toBe(1);
    expect((await call(me, 'GET', '/api/trading/journal/')).json().count).toBe(0);
  });

  it('answers 404 ACCOUNT_NOT_FOUND on every call that takes the parameter, for another’s account or none', async () => {
    const me = await insertSignedInTrader(t);
    const other = await traderWithChallenge();
    const calls = Object.values(ops).filter((op) => 'account' in op && op.account === true);
    expect(calls.length).toBeGreaterThanOrEqual(25);
    for (const account of [other.challengeId, other.accountId!, 999_999_999, 'abc', '0', '-1', '1.5']) {
      for (const op of calls) {
        const path = pathOf(op, { id: 1, tradeId: 1, symbol: 'EURUSD' });
        const res = await call(me, op.method, `${path}?account=${account}`, op.method === 'GET' ? undefined : {});
        expect([res.statusCode, res.json().code], `${op.method} ${path} account=${account}`).toEqual([404, 'ACCOUNT_NOT_FOUND']);
      }
    }
    // Nothing was placed on the other trader's accounts.
    expect((await call(other, 'GET', `/api/trading/orders/?account=${other.challengeId}`)).json().count).toBe(0);
    expect((await call(other, 'GET', '/api/trading/orders/')).json().count).toBe(0);
  });

  it('an Idempotency-Key sent again for another account is a reused key, never a replay of the first account’s order', async () => {
    const me = await traderWithChallenge();
    const body = { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 };
    const headers = { 'idempotency-key': 'several-accounts-1' };
    const first = await call(me, 'POST', '/api/trading/place-market-order/', body, headers);
    expect(first.statusCode).toBe(201);
    const again = await call(me, 'POST', `/api/trading/place-market-order/?account=${me.challengeId}`, body, headers);
    expect([again.statusCode, again.json().code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect((await call(me, 'GET', `/api/trading/orders/?account=${me.challengeId}`)).json().count).toBe(0);
    const replay = await call(me, 'POST', '/api/trading/place-market-order/', body, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe('the trading socket serves one account', () => {
  it('sends a socket the positions and fills of the account it named, and nothing of the others', async () => {
    const me = await traderWithChallenge();
    const primary = await TradingSocketClient.signedIn(t, me.token);
    const challenge = await TradingSocketClient.signedIn(t, me.token, me.challengeId);
    try {
      const fromPrimary = primary.mark();
      const placed = await call(me, 'POST', `/api/trading/place-market-order/?account=${me.challengeId}`, {
        symbol: 'EURUSD',
        side: 'SELL',
        quantity: 0.2,
      });
      expect(placed.statusCode).toBe(201);
      const confirmation = await challenge.next('order_confirmation');
      expect(confirmation.data.order.id).toBe(placed.json().data.order.id);
      challenge.send({ type: 'get_positions_update' });
      const positions = await challenge.next('positions_update');
      expect(positions.data.map((p) => p.id)).toEqual([placed.json().data.position.id]);
      primary.send({ type: 'get_positions_update' });
      expect((await primary.next('positions_update', { from: fromPrimary })).data).toEqual([]);
      expect(primary.of('order_confirmation', fromPrimary)).toEqual([]);
    } finally {
      primary.close();
      challenge.close();
    }
  });

  it('closes a socket that names another’s account (4004), and one that tries to switch account', async () => {
    const me = await traderWithChallenge();
    const other = await traderWithChallenge();
    const stranger = await TradingSocketClient.open(t);
    stranger.send({ type: 'authenticate', token: me.token, account: other.challengeId });
    expect(await stranger.closed).toEqual({ code: 4004, reason: 'Trading account not found' });

    const switching = await TradingSocketClient.signedIn(t, me.token);
    switching.send({ type: 'authenticate', token: me.token, account: me.challengeId });
    expect((await switching.closed).code).toBe(4004);
  });
});

describe('the academy’s student calls take the student’s account', () => {
  it('reads a student’s challenge account for their instructor; another’s account is 404, and scope comes first', async () => {
    const { instructorA, instructorB, memberA, memberB } = await academyCast(t);
    const opened = await writeTransaction(t.ctx.db, (trx) =>
      openExtraAccount(trx, {
        userId: memberA.userId,
        kind: 'challenge',
        name: 'Challenge',
        balanceMinor: 1_234_500,
        leverage: 30,
        now: clock.now(),
      }),
    );
    const challengeId = opened!.accountId;
    const placed = await t.app.inject({
      method: 'POST',
      url: `/api/trading/place-market-order/?account=${challengeId}`,
      headers: memberA.headers,
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 },
    });
    expect(placed.statusCode).toBe(201);
    const student = `/api/academy/students/${memberA.userId}`;

    const dashboard = await api(t, instructorA, 'GET', `${student}/?account=${challengeId}`);
    expect(dashboard.statusCode).toBe(200);
    expect(dashboard.json().data.trading_account).toMatchObject({ id: challengeId, balance: 12345 });
    expect(dashboard.json().data.open_positions).toHaveLength(1);
    expect((await api(t, instructorA, 'GET', `${student}/`)).json().data.open_positions).toEqual([]);
    expect((await api(t, instructorA, 'GET', `${student}/orders/?account=${challengeId}`)).json().count).toBe(1);
    expect((await api(t, instructorA, 'GET', `${student}/orders/`)).json().count).toBe(0);
    expect((await api(t, instructorA, 'GET', `${student}/performance/?account=${challengeId}`)).statusCode).toBe(200);
    expect((await api(t, instructorA, 'GET', `${student}/journal/?account=${challengeId}`)).statusCode).toBe(200);

    const primaryOfB = (await api(t, memberB, 'GET', '/api/trading/accounts/')).json().data[0].id as number;
    for (const path of ['/', '/orders/', '/performance/', '/journal/']) {
      const notHers = await api(t, instructorA, 'GET', `${student}${path}?account=${primaryOfB}`);
      expect([notHers.statusCode, notHers.json().code], path).toEqual([404, 'ACCOUNT_NOT_FOUND']);
      // Another cohort's instructor is out of scope before the account is looked at.
      const outOfScope = await api(t, instructorB, 'GET', `${student}${path}?account=${challengeId}`);
      expect([outOfScope.statusCode, outOfScope.json().code], path).toEqual([404, 'STUDENT_NOT_FOUND']);
    }
    // About 30 calls and six sign-ins: on a busy 2-core machine that has taken longer than the default 30 s.
  }, 60_000);
});
