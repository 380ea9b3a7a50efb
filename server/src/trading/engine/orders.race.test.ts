import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPriceSource } from '../../market/index.js';
import { insertSignedInTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { auditAccount } from '../audit.js';

/**
 * docs/orders.md#modify-and-cancel, docs/order-engine.md#the-engine: a trader's cancel, change
 * or close that races the tick which triggers the same order or protection has exactly one
 * winner, and the API's answer agrees with what is stored. A real server (SQLite, or
 * PostgreSQL with TEST_DATABASE_URL) driven by a scripted price source, called over its HTTP
 * API (inject), many times per case.
 *
 * The request and the tick are sent `offset` event-loop turns apart (a negative offset sends
 * the tick first), and the offset follows the outcomes: it moves towards the tick after the
 * call won and towards the call after the tick won, so the runs sit where the two meet in the
 * serialized write path and both outcomes occur. How the engine is known to be done with the
 * racing tick: each trader also has a sentinel order, crossed by the same tick and newer, which
 * the engine executes after the raced trigger (one account's triggers run in order,
 * protection first, then orders, older first); once it is FILLED the race is over.
 */

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 24);
const BASE = { bid: 1.1, ask: 1.1002 };

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;
interface Answer {
  status: number;
  body: { data?: Record<string, unknown>; code?: string };
}

describe('a trader’s call racing the trigger of the same order or position', () => {
  const prices = new ScriptedPriceSource();
  let t: TestApp;
  const tick = (bid: number, ask: number) => prices.push({ symbol: 'EURUSD', bid, ask, timestamp: Date.now() });

  beforeAll(async () => {
    tick(BASE.bid, BASE.ask);
    prices.push({ symbol: 'USDJPY', bid: 150, ask: 150.02, timestamp: Date.now() });
    t = await startTestApp({ priceSource: prices, env: { CHART_HISTORY_DAYS: '0' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function call(trader: Trader, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object): Promise<Answer> {
    const res = await t.app.inject({
      method,
      url: `/api/trading/${url}`,
      headers: trader.headers,
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  }

  async function created<T>(trader: Trader, url: string, payload: object, key: string): Promise<T> {
    const res = await call(trader, 'POST', url, payload);
    if (res.status !== 201) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data![key] as T;
  }

  const pending = (trader: Trader, body: object) =>
    created<{ id: number }>(trader, 'place-pending-order/', { symbol: 'EURUSD', quantity: 0.1, ...body }, 'order');
  const market = (trader: Trader, body: object) =>
    created<{ id: number }>(trader, 'place-market-order/', { symbol: 'EURUSD', quantity: 0.1, ...body }, 'position');

  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** Sends the call and the tick `offset` turns apart (the tick first when negative); the call's answer. */
  async function race(offset: number, send: () => Promise<Answer>, fire: () => void): Promise<Answer> {
    if (offset < 0) {
      fire();
      for (let i = 0; i < -offset; i++) await turn();
      return send();
    }
    const answer = send();
    for (let i = 0; i < offset; i++) await turn();
    fire();
    return answer;
  }

  /** Keeps the offset where the call and the trigger meet; counts who won. */
  function contention() {
    let offset = 0;
    const wins = { call: 0, trigger: 0 };
    return {
      wins,
      next: () => offset + Math.floor(Math.random() * 3) - 1,
      record(callWon: boolean) {
        if (callWon) wins.call++;
        else wins.trigger++;
        offset += callWon ? -1 : 1;
      },
    };
  }

  async function orderRow(id: number) {
    return t.ctx.db.kysely.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }
  async function tradesOf(orderId: number) {
    return t.ctx.db.kysely.selectFrom('trades').selectAll().where('order_id', '=', orderId).execute();
  }
  async function ordersOf(accountId: number) {
    return t.ctx.db.kysely.selectFrom('orders').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  }
  async function positionRow(id: number) {
    return t.ctx.db.kysely.selectFrom('positions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** Waits until the order left PENDING (the engine executes after the tick, asynchronously). */
  async function settled(orderId: number): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { status } = await orderRow(orderId);
      if (status !== 'PENDING') return status;
      if (Date.now() > deadline) throw new Error(`order ${orderId} is still PENDING`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async function clean(trader: Trader) {
    expect(await auditAccount(t.ctx.db, trader.accountId!)).toEqual([]);
  }

  const price = (e10: unknown) => Number(e10) / 1e10;

  it('a cancel racing the fill: 200 ⇒ CANCELLED and never filled, 409 ⇒ filled once at the tick', async () => {
    const c = contention();
    for (let round = 0; round < ROUNDS; round++) {
      tick(BASE.bid, BASE.ask);
      const trader = await insertSignedInTrader(t);
      const raced = await pending(trader, { side: 'BUY', order_type: 'LIMIT', price: 1.099 });
      const sentinel = await pending(trader, { side: 'BUY', order_type: 'LIMIT', price: 1.099, quantity: 0.01 });
      const answer = await race(
        c.next(),
        () => call(trader, 'POST', `orders/${raced.id}/cancel/`),
        () => tick(1.0987, 1.0989),
      );
      expect(await settled(sentinel.id)).toBe('FILLED');
      const row = await orderRow(raced.id);
      const trades = await tradesOf(raced.id);
      if (answer.status === 200) {
        expect(answer.body.data!.order).toMatchObject({ id: raced.id, status: 'CANCELLED' });
        expect(row.status).toBe('CANCELLED');
        expect(trades).toEqual([]);
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(409);
        expect(answer.body.code).toBe('ORDER_NOT_PENDING');
        expect(row.status).toBe('FILLED');
        expect(trades.map((x) => price(x.price_e10))).toEqual([1.0989]);
      }
      await clean(trader);
      c.record(answer.status === 200);
    }
    console.log(`cancel vs fill: the cancel won ${c.wins.call}, the fill ${c.wins.trigger}`);
    expect(c.wins.call).toBeGreaterThan(0);
    expect(c.wins.trigger).toBeGreaterThan(0);
  });

  it('a change racing the fill: 200 ⇒ still PENDING at the new price, unfilled, and armed there; 409 ⇒ filled at the tick', async () => {
    const c = contention();
    for (let round = 0; round < ROUNDS; round++) {
      tick(BASE.bid, BASE.ask);
      const trader = await insertSignedInTrader(t);
      const raced = await pending(trader, { side: 'BUY', order_type: 'LIMIT', price: 1.099 });
      const sentinel = await pending(trader, { side: 'BUY', order_type: 'LIMIT', price: 1.099, quantity: 0.01 });
      // The new price is out of the racing tick's reach.
      const answer = await race(
        c.next(),
        () => call(trader, 'PATCH', `orders/${raced.id}/`, { price: 1.095 }),
        () => tick(1.0987, 1.0989),
      );
      expect(await settled(sentinel.id)).toBe('FILLED');
      const row = await orderRow(raced.id);
      if (answer.status === 200) {
        expect(answer.body.data!.order).toMatchObject({ id: raced.id, status: 'PENDING', price: 1.095 });
        expect(row.status).toBe('PENDING');
        expect(price(row.price_e10)).toBe(1.095);
        expect(await tradesOf(raced.id)).toEqual([]);
        // Still armed, at its new price: the next tick that reaches it fills it.
        tick(1.0948, 1.095);
        expect(await settled(raced.id)).toBe('FILLED');
        expect((await tradesOf(raced.id)).map((x) => price(x.price_e10))).toEqual([1.095]);
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(409);
        expect(answer.body.code).toBe('ORDER_NOT_PENDING');
        expect(row.status).toBe('FILLED');
        expect((await tradesOf(raced.id)).map((x) => price(x.price_e10))).toEqual([1.0989]);
      }
      await clean(trader);
      c.record(answer.status === 200);
    }
    console.log(`change vs fill: the change won ${c.wins.call}, the fill ${c.wins.trigger}`);
    expect(c.wins.call).toBeGreaterThan(0);
    expect(c.wins.trigger).toBeGreaterThan(0);
  });

  for (const change of [{ stop_loss: null }, { stop_loss: 1.09 }] as const) {
    it(`a PATCH of the position (${JSON.stringify(change)}) racing its stop loss: 200 ⇒ still open, 409 ⇒ closed once by the stop loss`, async () => {
      const c = contention();
      for (let round = 0; round < ROUNDS; round++) {
        tick(BASE.bid, BASE.ask);
        const trader = await insertSignedInTrader(t);
        const position = await market(trader, { side: 'BUY', stop_loss: 1.095 });
        // Protection runs before the account's orders on a tick: the sentinel comes after the raced close.
        const sentinel = await pending(trader, { side: 'SELL', order_type: 'STOP', price: 1.096, quantity: 0.01 });
        const answer = await race(
          c.next(),
          () => call(trader, 'PATCH', `positions/${position.id}/`, change),
          () => tick(1.0949, 1.0951),
        );
        expect(await settled(sentinel.id)).toBe('FILLED');
        const closes = (await ordersOf(trader.accountId!)).filter((o) => o.reason === 'stop_loss');
        const row = await positionRow(position.id);
        if (answer.status === 200) {
          expect(answer.body.data!.position).toMatchObject({ id: position.id, stop_loss: change.stop_loss });
          expect(closes).toEqual([]);
          // The sentinel (a SELL of 0.01) reduced it; nothing closed it.
          expect(row).toMatchObject({ status: 'OPEN', quantity_centilots: 9 });
        } else {
          expect(answer.status, JSON.stringify(answer.body)).toBe(409);
          expect(answer.body.code).toBe('POSITION_CLOSED');
          expect(closes.map((o) => [o.status, Number(o.position_id), price(o.average_fill_price_e10)])).toEqual([
            ['FILLED', position.id, 1.0949],
          ]);
          expect(row.status).toBe('CLOSED');
        }
        await clean(trader);
        c.record(answer.status === 200);
      }
      console.log(`PATCH ${JSON.stringify(change)} vs stop loss: the PATCH won ${c.wins.call}, the stop loss ${c.wins.trigger}`);
      expect(c.wins.call).toBeGreaterThan(0);
      expect(c.wins.trigger).toBeGreaterThan(0);
    });
  }

  it('a close racing the stop loss: exactly one closing order, the close’s answer says which', async () => {
    const c = contention();
    for (let round = 0; round < ROUNDS; round++) {
      tick(BASE.bid, BASE.ask);
      const trader = await insertSignedInTrader(t);
      const position = await market(trader, { side: 'BUY', stop_loss: 1.095 });
      const sentinel = await pending(trader, { side: 'SELL', order_type: 'STOP', price: 1.096, quantity: 0.01 });
      const answer = await race(
        c.next(),
        () => call(trader, 'POST', `close-position/${position.id}/`, {}),
        () => tick(1.0949, 1.0951),
      );
      expect(await settled(sentinel.id)).toBe('FILLED');
      const closing = (await ordersOf(trader.accountId!)).filter(
        (o) => Number(o.position_id) === position.id && o.side === 'SELL' && o.id !== sentinel.id,
      );
      expect(closing).toHaveLength(1);
      expect(closing[0]!.status).toBe('FILLED');
      expect((await positionRow(position.id)).status).toBe('CLOSED');
      if (answer.status === 200) {
        expect(closing[0]!.reason).toBe('close');
        expect(answer.body.data!.order).toMatchObject({ id: Number(closing[0]!.id), status: 'FILLED' });
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(409);
        expect(answer.body.code).toBe('POSITION_CLOSED');
        expect(closing[0]!.reason).toBe('stop_loss');
        expect(price(closing[0]!.average_fill_price_e10)).toBe(1.0949);
      }
      await clean(trader);
      c.record(answer.status === 200);
    }
    console.log(`close vs stop loss: the close won ${c.wins.call}, the stop loss ${c.wins.trigger}`);
    expect(c.wins.call).toBeGreaterThan(0);
    expect(c.wins.trigger).toBeGreaterThan(0);
  });

  it('a PATCH moving a trailing stop away racing its trigger: 200 ⇒ not closed by the tick that crossed the old stop', async () => {
    const c = contention();
    for (let round = 0; round < ROUNDS; round++) {
      tick(BASE.bid, BASE.ask);
      const trader = await insertSignedInTrader(t);
      const position = await market(trader, { side: 'BUY', trailing_stop_pips: 20 });
      tick(1.1001, 1.1003); // the stop starts at 1.0981 (in memory)
      const sentinel = await pending(trader, { side: 'SELL', order_type: 'STOP', price: 1.0985, quantity: 0.01 });
      // 1.0979 crosses 1.0981; with the stop at 1.0900 it would only have trailed it to 1.0959.
      const answer = await race(
        c.next(),
        () => call(trader, 'PATCH', `positions/${position.id}/`, { stop_loss: 1.09 }),
        () => tick(1.0979, 1.0981),
      );
      expect(await settled(sentinel.id)).toBe('FILLED');
      const closes = (await ordersOf(trader.accountId!)).filter((o) => o.reason === 'trailing_stop');
      if (answer.status === 200) {
        expect(answer.body.data!.position).toMatchObject({ id: position.id, stop_loss: 1.09, trailing_stop_pips: 20 });
        expect(closes, 'answered 200 with the stop at 1.09, then closed by the tick that crossed the old stop').toEqual([]);
        expect((await positionRow(position.id)).status).toBe('OPEN');
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(409);
        expect(closes.map((o) => [o.status, price(o.average_fill_price_e10)])).toEqual([['FILLED', 1.0979]]);
      }
      await clean(trader);
      c.record(answer.status === 200);
    }
    console.log(`PATCH vs trailing stop: the PATCH won ${c.wins.call}, the trailing stop ${c.wins.trigger}`);
    expect(c.wins.call).toBeGreaterThan(0);
    expect(c.wins.trigger).toBeGreaterThan(0);
  });
});
