import {
  closePositionResponseSchema,
  type ErrorEnvelope,
  modifyPositionResponseSchema,
  type OrderDto,
  orderResponseSchema,
  ordersPageSchema,
  pairPageSchema,
  placeMarketOrderResponseSchema,
  platformDataSchema,
} from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { auditAccount } from './audit.js';
import { ORDER_UPDATE_TOPIC, type OrderUpdatePayload } from './events.js';
import { Pricing } from './math.js';
import { exportOrdersCsv } from './queries/orders-export.js';
import { userId } from './types.js';

// The calls of docs/orders.md through the API: pending orders, protection, partial close, the
// CSV export. Prices: EURUSD 1.08500 / 1.08520, USDJPY 150.000 / 150.020, GBPUSD 1.27000 / 1.27020.
// Pending orders and protection here stay far from the market, so no trigger can fire.

let t: TestApp;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;
type Who = { headers: { authorization: string } } | null;

const trader = (options: Parameters<typeof insertSignedInTrader>[1] = {}) => insertSignedInTrader(t, options);

function quote(symbol: string, bid: number, ask: number) {
  prices.push({ symbol, bid, ask, timestamp: clock.now() });
}

/** The same prices again, arriving now: after the clock moved past the stale limit an order still finds a price. */
function requote() {
  for (const q of t.market.prices.all()) quote(q.symbol, q.bid, q.ask);
}

function call(who: Who, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method,
    url,
    headers: { ...(who ? who.headers : {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const BUY_LIMIT = { symbol: 'EURUSD', side: 'BUY', order_type: 'LIMIT', quantity: 0.5, price: 1.05 } as const;

const placePending = (who: Who, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(who, 'POST', '/api/trading/place-pending-order/', body, headers);
const placeMarket = (who: Who, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(who, 'POST', '/api/trading/place-market-order/', body, headers);

async function pendingOrder(who: Trader, body: Record<string, unknown> = BUY_LIMIT): Promise<OrderDto> {
  const res = await placePending(who, body);
  expect(res.statusCode, res.body).toBe(201);
  return orderResponseSchema.parse(res.json().data).order;
}

async function stored(who: Trader) {
  const orders = await t.ctx.db.kysely
    .selectFrom('orders')
    .selectAll()
    .where('account_id', '=', who.accountId!)
    .orderBy('id')
    .execute();
  const positions = await t.ctx.db.kysely
    .selectFrom('positions')
    .selectAll()
    .where('account_id', '=', who.accountId!)
    .orderBy('id')
    .execute();
  return { orders, positions };
}

/** A 400 whose message and details name `field`. */
function expectFieldError(res: { statusCode: number; json(): unknown; body: string }, field: string) {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json() as ErrorEnvelope & { details: Array<{ field: string }> };
  expect(body.code).toBe('VALIDATION_ERROR');
  expect(body.error.startsWith(`${field}:`) || body.error.includes(field), body.error).toBe(true);
  expect(body.details.map((d) => d.field)).toContain(field);
}

async function expectClean(who: Trader) {
  expect(await auditAccount(t.ctx.db, who.accountId!)).toEqual([]);
}

beforeAll(async () => {
  t = await startTestApp({ priceSource: prices, clock, listen: true, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000' } });
  quote('EURUSD', 1.085, 1.0852);
  quote('USDJPY', 150, 150.02);
  quote('GBPUSD', 1.27, 1.2702);
});
afterAll(async () => {
  await t.close();
});

describe('POST trading/place-pending-order/', () => {
  it('stores LIMIT, STOP and STOP_LIMIT orders PENDING with everything they carry, and nothing else', async () => {
    const who = await trader();
    const limit = await pendingOrder(who, { ...BUY_LIMIT, stop_loss: 1.04, take_profit: 1.06, trailing_stop_pips: 20 });
    expect(limit).toMatchObject({
      fx_pair_symbol: 'EURUSD',
      order_type: 'LIMIT',
      side: 'BUY',
      quantity: 0.5,
      filled_quantity: 0,
      price: 1.05,
      limit_price: null,
      average_fill_price: null,
      status: 'PENDING',
      reason: 'client',
      position_id: null,
      time_in_force: 'GTC',
      expires_at: null,
      triggered_at: null,
      stop_loss: 1.04,
      take_profit: 1.06,
      trailing_stop_pips: 20,
      created_at: '2026-01-05T12:00:00.000Z',
      updated_at: '2026-01-05T12:00:00.000Z',
    });
    const stop = await pendingOrder(who, {
      symbol: 'usdjpy',
      side: 'SELL',
      order_type: 'STOP',
      quantity: 1,
      price: 149.5,
      time_in_force: 'GTD',
      expires_at: '2026-01-06T12:00:00Z',
    });
    expect(stop).toMatchObject({ order_type: 'STOP', side: 'SELL', price: 149.5, time_in_force: 'GTD' });
    expect(stop.expires_at).toBe('2026-01-06T12:00:00.000Z');
    const stopLimit = await pendingOrder(who, {
      symbol: 'EURUSD',
      side: 'BUY',
      order_type: 'STOP_LIMIT',
      quantity: 0.1,
      price: 1.1,
      limit_price: 1.101,
      // Judged by the limit price, its entry.
      stop_loss: 1.1005,
    });
    expect(stopLimit).toMatchObject({ order_type: 'STOP_LIMIT', price: 1.1, limit_price: 1.101, stop_loss: 1.1005 });

    const { orders, positions } = await stored(who);
    expect(orders.map((o) => o.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect(positions).toEqual([]);
    await expectClean(who);
  });

  it('reserves no margin: a pending order far beyond free margin is accepted and leaves free margin as it was', async () => {
    const who = await trader({ balanceMinor: 10_000 }); // 100.00 USD
    await pendingOrder(who, { ...BUY_LIMIT, quantity: 50 });
    const data = platformDataSchema.parse((await call(who, 'GET', '/api/trading/platform-data/')).json().data);
    expect(data.trading_account).toMatchObject({ balance: 100, free_margin: 100, margin_used: 0 });
    expect(data.pending_orders).toHaveLength(1);
  });

  it('answers 400 naming the field for every rule, storing nothing', async () => {
    const who = await trader();
    const cases: Array<[string, Record<string, unknown>]> = [
      // Against the quote (bid 1.08500, ask 1.08520).
      ['price', { ...BUY_LIMIT, price: 1.0852 }],
      ['price', { ...BUY_LIMIT, side: 'SELL', price: 1.085 }],
      ['price', { ...BUY_LIMIT, order_type: 'STOP', price: 1.0852 }],
      ['price', { ...BUY_LIMIT, side: 'SELL', order_type: 'STOP', price: 1.085 }],
      ['price', { ...BUY_LIMIT, order_type: 'STOP_LIMIT', price: 1.08, limit_price: 1.081 }],
      // Prices: positive, at most the pair's digits.
      ['price', { ...BUY_LIMIT, price: 0 }],
      ['price', { ...BUY_LIMIT, price: -1 }],
      ['price', { ...BUY_LIMIT, price: 1.050001 }],
      ['price', { ...BUY_LIMIT, symbol: 'USDJPY', price: 149.1234 }],
      ['price', { ...BUY_LIMIT, price: '1.05' }],
      // STOP_LIMIT needs limit_price, nothing else takes one.
      ['limit_price', { ...BUY_LIMIT, order_type: 'STOP_LIMIT', price: 1.1 }],
      ['limit_price', { ...BUY_LIMIT, limit_price: 1.04 }],
      ['limit_price', { ...BUY_LIMIT, order_type: 'STOP_LIMIT', price: 1.1, limit_price: 1.1000001 }],
      // Time in force.
      ['expires_at', { ...BUY_LIMIT, time_in_force: 'GTD' }],
      ['expires_at', { ...BUY_LIMIT, time_in_force: 'GTD', expires_at: '2026-01-05T11:59:59Z' }],
      ['expires_at', { ...BUY_LIMIT, time_in_force: 'GTD', expires_at: '2026-01-05T12:00:00Z' }],
      ['expires_at', { ...BUY_LIMIT, time_in_force: 'GTD', expires_at: '2026-04-05T12:00:01Z' }],
      ['expires_at', { ...BUY_LIMIT, expires_at: '2026-01-06T12:00:00Z' }],
      ['expires_at', { ...BUY_LIMIT, time_in_force: 'GTC', expires_at: '2026-01-06T12:00:00Z' }],
      ['expires_at', { ...BUY_LIMIT, time_in_force: 'GTD', expires_at: 'tomorrow' }],
      ['time_in_force', { ...BUY_LIMIT, time_in_force: 'IOC' }],
      // Protection against the entry price: a BUY (long) SL < entry < TP, a SELL (short) TP < entry < SL.
      ['stop_loss', { ...BUY_LIMIT, stop_loss: 1.05 }],
      ['stop_loss', { ...BUY_LIMIT, stop_loss: 1.06 }],
      ['take_profit', { ...BUY_LIMIT, take_profit: 1.05 }],
      ['take_profit', { ...BUY_LIMIT, take_profit: 1.04 }],
      ['stop_loss', { ...BUY_LIMIT, side: 'SELL', price: 1.1, stop_loss: 1.09 }],
      ['take_profit', { ...BUY_LIMIT, side: 'SELL', price: 1.1, take_profit: 1.11 }],
      ['take_profit', { ...BUY_LIMIT, order_type: 'STOP_LIMIT', price: 1.1, limit_price: 1.101, take_profit: 1.1005 }],
      ['stop_loss', { ...BUY_LIMIT, stop_loss: 1.040001 }],
      ['stop_loss', { ...BUY_LIMIT, stop_loss: 0 }],
      ['trailing_stop_pips', { ...BUY_LIMIT, trailing_stop_pips: 4 }],
      ['trailing_stop_pips', { ...BUY_LIMIT, trailing_stop_pips: 1001 }],
      ['trailing_stop_pips', { ...BUY_LIMIT, trailing_stop_pips: 10.5 }],
      // The order itself.
      ['order_type', { ...BUY_LIMIT, order_type: 'MARKET' }],
      ['quantity', { ...BUY_LIMIT, quantity: 0.001 }],
      ['quantity', { ...BUY_LIMIT, quantity: 101 }],
      ['symbol', { ...BUY_LIMIT, symbol: 'XXXYYY' }],
      ['side', { ...BUY_LIMIT, side: 'HOLD' }],
      ['leverage', { ...BUY_LIMIT, leverage: 10 }],
    ];
    for (const [field, body] of cases) {
      const res = await placePending(who, body);
      expect(res.statusCode, `${field} ${JSON.stringify(body)}`).toBe(400);
      expectFieldError(res, field);
    }
    // The edges are allowed: 5 and 1,000 pips, an expiry exactly 90 days ahead.
    await pendingOrder(who, { ...BUY_LIMIT, trailing_stop_pips: 5 });
    await pendingOrder(who, { ...BUY_LIMIT, trailing_stop_pips: 1000 });
    await pendingOrder(who, { ...BUY_LIMIT, time_in_force: 'GTD', expires_at: '2026-04-05T12:00:00Z' });
    expect((await stored(who)).orders).toHaveLength(3);
  });

  it('answers 409 without an account, 503 without a price, and stores a REJECTED order (422) on a suspended account', async () => {
    const noAccount = await trader({ withAccount: false });
    expect((await placePending(noAccount, BUY_LIMIT)).json().code).toBe('NO_TRADING_ACCOUNT');

    const who = await trader();
    const noPrice = await placePending(who, { ...BUY_LIMIT, symbol: 'NZDUSD', price: 0.5 });
    expect(noPrice.statusCode).toBe(503);
    expect((await stored(who)).orders).toEqual([]);

    const suspended = await trader({ status: 'SUSPENDED' });
    const res = await placePending(suspended, BUY_LIMIT);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'ACCOUNT_NOT_ACTIVE',
      data: { order: { status: 'REJECTED', order_type: 'LIMIT' } },
    });
    expect((await stored(suspended)).orders.map((o) => o.status)).toEqual(['REJECTED']);
  });

  it('honours Idempotency-Key as market orders do, even once the price has moved', async () => {
    const who = await trader();
    const key = { 'idempotency-key': 'pending-1' };
    const body = { ...BUY_LIMIT, symbol: 'USDJPY', price: 149.9 };
    const first = await placePending(who, body, key);
    expect(first.statusCode).toBe(201);
    // The ask falls below the limit: a new order would be refused (400), the retry replays.
    quote('USDJPY', 149.8, 149.82);
    const again = await placePending(who, body, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    expectFieldError(await placePending(who, body, { 'idempotency-key': 'pending-2' }), 'price');
    quote('USDJPY', 150, 150.02);

    const other = await placePending(who, { ...body, quantity: 0.7 }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    // One key is one request, whichever call used it first.
    const market = await placeMarket(who, { symbol: 'USDJPY', side: 'BUY', quantity: 0.01 }, key);
    expect(market.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await stored(who)).orders).toHaveLength(1);
  });
});

describe('PATCH trading/orders/{id}/ and POST trading/orders/{id}/cancel/', () => {
  it('changes price, protection and time in force; null clears protection; fields left out stay', async () => {
    const who = await trader();
    const placed = await pendingOrder(who, { ...BUY_LIMIT, stop_loss: 1.04, take_profit: 1.06 });
    clock.advance(1000);
    const res = await call(who, 'PATCH', `/api/trading/orders/${placed.id}/`, {
      price: 1.051,
      take_profit: null,
      trailing_stop_pips: 15,
      time_in_force: 'GTD',
      expires_at: '2026-01-10T00:00:00Z',
    });
    expect(res.statusCode, res.body).toBe(200);
    const order = orderResponseSchema.parse(res.json().data).order;
    expect(order).toMatchObject({
      id: placed.id,
      status: 'PENDING',
      price: 1.051,
      stop_loss: 1.04,
      take_profit: null,
      trailing_stop_pips: 15,
      time_in_force: 'GTD',
      expires_at: '2026-01-10T00:00:00.000Z',
      updated_at: '2026-01-05T12:00:01.000Z',
      created_at: placed.created_at,
    });
    // Back to GTC drops the expiry.
    const gtc = await call(who, 'PATCH', `/api/trading/orders/${placed.id}/`, { time_in_force: 'GTC' });
    expect(gtc.json().data.order).toMatchObject({ time_in_force: 'GTC', expires_at: null, price: 1.051 });
  });

  it('checks the order after the change by every rule (400 naming the field, nothing changed)', async () => {
    const who = await trader();
    const placed = await pendingOrder(who, { ...BUY_LIMIT, stop_loss: 1.04 });
    const stopLimit = await pendingOrder(who, { ...BUY_LIMIT, order_type: 'STOP_LIMIT', price: 1.1, limit_price: 1.101 });
    const cases: Array<[number, string, Record<string, unknown>]> = [
      [placed.id, 'price', { price: 1.09 }],
      [placed.id, 'price', { price: 1.0500001 }],
      [placed.id, 'limit_price', { limit_price: 1.04 }],
      [placed.id, 'stop_loss', { stop_loss: 1.06 }],
      [placed.id, 'stop_loss', { price: 1.039 }],
      [placed.id, 'take_profit', { take_profit: 1.049 }],
      [placed.id, 'expires_at', { expires_at: '2026-01-06T00:00:00Z' }],
      [placed.id, 'expires_at', { time_in_force: 'GTD' }],
      [placed.id, 'expires_at', { time_in_force: 'GTD', expires_at: '2025-12-31T00:00:00Z' }],
      [placed.id, 'trailing_stop_pips', { trailing_stop_pips: 2 }],
      [placed.id, 'quantity', { quantity: 1 }],
      [placed.id, 'body', {}],
      [stopLimit.id, 'take_profit', { take_profit: 1.1005 }],
      [stopLimit.id, 'stop_loss', { limit_price: 1.0999, stop_loss: 1.1 }],
    ];
    for (const [id, field, body] of cases) expectFieldError(await call(who, 'PATCH', `/api/trading/orders/${id}/`, body), field);
    const [row] = (await stored(who)).orders.filter((o) => o.id === placed.id);
    expect(row).toMatchObject({ price_e10: 10_500_000_000, stop_loss_e10: 10_400_000_000, take_profit_e10: null });
    expect(Number(row!.updated_at)).toBe(Number(row!.created_at));
  });

  it('cancels a PENDING order; anything else is 409, another trader’s order or a bad id 404', async () => {
    const who = await trader();
    const placed = await pendingOrder(who);
    const cancel = await call(who, 'POST', `/api/trading/orders/${placed.id}/cancel/`);
    expect(cancel.statusCode).toBe(200);
    expect(orderResponseSchema.parse(cancel.json().data).order).toMatchObject({ id: placed.id, status: 'CANCELLED' });

    // 409: cancelled, filled (a market order), rejected.
    const market = placeMarketOrderResponseSchema.parse(
      (await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 })).json().data,
    );
    for (const id of [placed.id, market.order.id]) {
      const again = await call(who, 'POST', `/api/trading/orders/${id}/cancel/`);
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('ORDER_NOT_PENDING');
      const patch = await call(who, 'PATCH', `/api/trading/orders/${id}/`, { price: 1.04 });
      expect(patch.statusCode).toBe(409);
      expect(patch.json().code).toBe('ORDER_NOT_PENDING');
    }

    const other = await trader();
    const theirs = await pendingOrder(other);
    for (const url of [`/api/trading/orders/${theirs.id}/`, '/api/trading/orders/0/', '/api/trading/orders/abc/']) {
      const patch = await call(who, 'PATCH', url, { price: 1.04 });
      expect(patch.statusCode).toBe(404);
      expect(patch.json().code).toBe('ORDER_NOT_FOUND');
    }
    for (const url of [`/api/trading/orders/${theirs.id}/cancel/`, '/api/trading/orders/99999999/cancel/']) {
      const res = await call(who, 'POST', url);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('ORDER_NOT_FOUND');
    }
    // Theirs is untouched.
    expect((await stored(other)).orders.map((o) => o.status)).toEqual(['PENDING']);
  });

  it('publishes order_update for every change, and a trading socket of the trader receives it', async () => {
    const who = await trader();
    const updates: OrderUpdatePayload[] = [];
    const off = t.ctx.bus.subscribe('message', ({ topic, payload }) => {
      if (topic === ORDER_UPDATE_TOPIC && (payload as OrderUpdatePayload).userId === who.userId) {
        updates.push(payload as OrderUpdatePayload);
      }
    });
    const socket = await openSocket(who.token);
    const placed = await pendingOrder(who);
    await call(who, 'PATCH', `/api/trading/orders/${placed.id}/`, { price: 1.049 });
    await call(who, 'POST', `/api/trading/orders/${placed.id}/cancel/`);
    off();
    expect(updates.map((u) => [u.order.id, u.order.status, u.order.price])).toEqual([
      [placed.id, 'PENDING', 1.05],
      [placed.id, 'PENDING', 1.049],
      [placed.id, 'CANCELLED', 1.049],
    ]);
    const received = await socket.waitFor('order_update', 3);
    expect(received.map((m) => (m.data as { order: OrderDto }).order.status)).toEqual(['PENDING', 'PENDING', 'CANCELLED']);
    // An execution's order_update comes with its order_confirmation.
    await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 });
    const withFill = await socket.waitFor('order_update', 4);
    expect((withFill[3]!.data as { order: OrderDto }).order).toMatchObject({ status: 'FILLED', order_type: 'MARKET' });
    socket.close();
  });
});

describe('with the order engine', () => {
  it('a placed order rests until a tick crosses it, then fills at that tick’s price through the executor', async () => {
    const who = await trader();
    quote('AUDUSD', 0.66, 0.6602);
    const socket = await openSocket(who.token);
    const placed = await pendingOrder(who, { ...BUY_LIMIT, symbol: 'AUDUSD', price: 0.655, stop_loss: 0.65 });
    quote('AUDUSD', 0.656, 0.6562); // not yet
    quote('AUDUSD', 0.6547, 0.6549); // the ask is below the limit: fills at 0.6549
    const [, filled] = await socket.waitFor('order_update', 2);
    expect((filled!.data as { order: OrderDto }).order).toMatchObject({
      id: placed.id,
      status: 'FILLED',
      average_fill_price: 0.6549,
      reason: 'client',
    });
    const [confirmation] = await socket.waitFor('order_confirmation', 1);
    expect(confirmation!.data).toMatchObject({ order: { id: placed.id }, position: { side: 'LONG', stop_loss: 0.65 } });
    await socket.waitFor('positions_update', 1);
    await expectClean(who);
    socket.close();
  });
});

describe('pending_orders', () => {
  it('platform-data lists all the trader’s PENDING orders, the pair answer those of its pair, oldest first', async () => {
    const who = await trader();
    const a = await pendingOrder(who);
    const b = await pendingOrder(who, { ...BUY_LIMIT, symbol: 'USDJPY', price: 149 });
    const c = await pendingOrder(who, { ...BUY_LIMIT, price: 1.04 });
    await call(who, 'POST', `/api/trading/orders/${c.id}/cancel/`);
    const d = await pendingOrder(who, { ...BUY_LIMIT, side: 'SELL', price: 1.2 });
    await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 });
    await pendingOrder(await trader()); // someone else's

    const data = platformDataSchema.parse((await call(who, 'GET', '/api/trading/platform-data/')).json().data);
    expect(data.pending_orders.map((o) => o.id)).toEqual([a.id, b.id, d.id]);
    const pair = pairPageSchema.parse((await call(who, 'GET', '/api/trading/pair/eurusd/')).json().data);
    expect(pair.pending_orders.map((o) => o.id)).toEqual([a.id, d.id]);
    const empty = platformDataSchema.parse(
      (await call(await trader({ withAccount: false }), 'GET', '/api/trading/platform-data/')).json().data,
    );
    expect(empty.pending_orders).toEqual([]);
  });
});

describe('protection on market orders and positions', () => {
  const buy = (who: Trader, quantity: number, protection: Record<string, unknown> = {}) =>
    placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity, ...protection });
  const sell = (who: Trader, quantity: number, protection: Record<string, unknown> = {}) =>
    placeMarket(who, { symbol: 'EURUSD', side: 'SELL', quantity, ...protection });
  const positionOf = (res: { json(): { data: unknown } }) => placeMarketOrderResponseSchema.parse(res.json().data).position;

  it('sets the protection of the position the order leaves open: opened, replaced on add, kept, flipped, gone when flat', async () => {
    const who = await trader();
    const opened = positionOf(await buy(who, 1, { stop_loss: 1.02, take_profit: 1.15, trailing_stop_pips: 30 }));
    expect(opened).toMatchObject({ side: 'LONG', stop_loss: 1.02, take_profit: 1.15, trailing_stop_pips: 30 });

    // Adding with protection replaces all of it (what the order leaves out is none).
    const replaced = positionOf(await buy(who, 0.5, { stop_loss: 1.03 }));
    expect(replaced).toMatchObject({
      id: opened.id,
      quantity: 1.5,
      stop_loss: 1.03,
      take_profit: null,
      trailing_stop_pips: null,
    });
    // Adding without protection keeps it.
    expect(positionOf(await buy(who, 0.5))).toMatchObject({ quantity: 2, stop_loss: 1.03, take_profit: null });
    // Reducing keeps the position's own (the order's values were for a short).
    expect(positionOf(await sell(who, 0.5, { stop_loss: 1.2 }))).toMatchObject({ quantity: 1.5, stop_loss: 1.03 });
    // A flip starts the new position with only the order's values.
    const flipped = positionOf(await sell(who, 2, { take_profit: 1.0 }));
    expect(flipped).toMatchObject({ id: opened.id, side: 'SHORT', quantity: -0.5, stop_loss: null, take_profit: 1 });
    const flippedBare = positionOf(await buy(who, 1));
    expect(flippedBare).toMatchObject({ side: 'LONG', stop_loss: null, take_profit: null, trailing_stop_pips: null });
    // Flat: none.
    const closed = positionOf(await sell(who, 0.5, { take_profit: 1.0 }));
    expect(closed).toMatchObject({
      status: 'CLOSED',
      side: 'FLAT',
      stop_loss: null,
      take_profit: null,
      trailing_stop_pips: null,
    });
    const rows = (await stored(who)).positions;
    expect(rows.map((p) => [p.status, p.stop_loss_e10, p.take_profit_e10, p.trailing_stop_pips])).toEqual([
      ['CLOSED', null, null, null],
    ]);
    // The orders keep what they carried.
    const orders = (await stored(who)).orders;
    expect(orders[0]).toMatchObject({ stop_loss_e10: 10_200_000_000, take_profit_e10: 11_500_000_000, trailing_stop_pips: 30 });
    await expectClean(who);
  });

  it('judges it by the price the position would close at (long: the bid, short: the ask); 400 naming the field, nothing stored', async () => {
    const who = await trader();
    // bid 1.08500, ask 1.08520
    for (const [field, body] of [
      ['stop_loss', { side: 'BUY', stop_loss: 1.085 }],
      ['take_profit', { side: 'BUY', take_profit: 1.085 }],
      ['stop_loss', { side: 'SELL', stop_loss: 1.0852 }],
      ['take_profit', { side: 'SELL', take_profit: 1.0852 }],
      ['stop_loss', { side: 'BUY', stop_loss: 1.0800001 }],
      ['trailing_stop_pips', { side: 'BUY', trailing_stop_pips: 0 }],
      ['take_profit', { side: 'BUY', take_profit: null }],
    ] as const) {
      expectFieldError(await placeMarket(who, { symbol: 'EURUSD', quantity: 0.1, ...body }), field);
    }
    expect(await stored(who)).toEqual({ orders: [], positions: [] });
    // Just inside is fine: a long's SL below the bid even if above… nothing else.
    expect((await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, stop_loss: 1.08499 })).statusCode).toBe(201);
  });

  it('keeps Idempotency-Key fingerprints: a plain order as before, protection part of the body', async () => {
    const who = await trader();
    const key = { 'idempotency-key': 'protected-1' };
    const first = await buy(who, 0.1, { stop_loss: 1.02 });
    expect(first.statusCode).toBe(201);
    const withKey = await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, stop_loss: 1.02 }, key);
    const replay = await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, stop_loss: 1.02 }, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().data).toEqual(withKey.json().data);
    const other = await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, stop_loss: 1.03 }, key);
    expect(other.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('PATCH trading/positions/{id}/ sets, keeps and clears protection against the current closing price', async () => {
    const who = await trader();
    const long = positionOf(await buy(who, 1));
    const url = `/api/trading/positions/${long.id}/`;
    const set = await call(who, 'PATCH', url, { stop_loss: 1.05, take_profit: 1.12 });
    expect(set.statusCode, set.body).toBe(200);
    expect(modifyPositionResponseSchema.parse(set.json().data).position).toMatchObject({
      id: long.id,
      quantity: 1,
      stop_loss: 1.05,
      take_profit: 1.12,
      trailing_stop_pips: null,
      current_price: 1.085,
    });
    const trailing = await call(who, 'PATCH', url, { trailing_stop_pips: 25, take_profit: null });
    expect(trailing.json().data.position).toMatchObject({ stop_loss: 1.05, take_profit: null, trailing_stop_pips: 25 });
    const data = platformDataSchema.parse((await call(who, 'GET', '/api/trading/platform-data/')).json().data);
    expect(data.open_positions[0]).toMatchObject({ stop_loss: 1.05, take_profit: null, trailing_stop_pips: 25 });

    // A long's SL below the bid (1.08500), TP above it; a short's the other way round against the ask (1.08520).
    for (const [field, body] of [
      ['stop_loss', { stop_loss: 1.085 }],
      ['take_profit', { take_profit: 1.08 }],
      ['stop_loss', { stop_loss: 1.0800001 }],
      ['trailing_stop_pips', { trailing_stop_pips: 1001 }],
      ['body', {}],
      ['fx_pair', { fx_pair: 1 }],
    ] as const) {
      expectFieldError(await call(who, 'PATCH', url, body), field);
    }
    const short = positionOf(await placeMarket(who, { symbol: 'USDJPY', side: 'SELL', quantity: 1 }));
    expectFieldError(await call(who, 'PATCH', `/api/trading/positions/${short.id}/`, { stop_loss: 150.02 }), 'stop_loss');
    expectFieldError(await call(who, 'PATCH', `/api/trading/positions/${short.id}/`, { take_profit: 150.02 }), 'take_profit');
    const shortSet = await call(who, 'PATCH', `/api/trading/positions/${short.id}/`, { stop_loss: 151, take_profit: 149 });
    expect(shortSet.json().data.position).toMatchObject({ side: 'SHORT', stop_loss: 151, take_profit: 149 });

    const cleared = await call(who, 'PATCH', url, { stop_loss: null, trailing_stop_pips: null });
    expect(cleared.json().data.position).toMatchObject({ stop_loss: null, take_profit: null, trailing_stop_pips: null });

    // 404 for another trader's position or a bad id; 409 once closed.
    const other = await trader();
    for (const bad of [short.id, 0, 'x']) {
      const res = await call(other, 'PATCH', `/api/trading/positions/${bad}/`, { stop_loss: 1 });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('POSITION_NOT_FOUND');
    }
    await call(who, 'POST', `/api/trading/close-position/${long.id}/`, {});
    const closed = await call(who, 'PATCH', url, { stop_loss: 1.05 });
    expect(closed.statusCode).toBe(409);
    expect(closed.json().code).toBe('POSITION_CLOSED');
    await expectClean(who);
  });
});

describe('POST trading/close-position/{id}/ with quantity', () => {
  it('closes part of the position at market: P&L of that part booked, the rest stays open with its entry and protection', async () => {
    const who = await trader();
    quote('GBPUSD', 1.27, 1.2702);
    const opened = placeMarketOrderResponseSchema.parse(
      (await placeMarket(who, { symbol: 'GBPUSD', side: 'BUY', quantity: 1, stop_loss: 1.2, take_profit: 1.4 })).json().data,
    ).position;
    quote('GBPUSD', 1.28, 1.2802); // the bid is 98 pips above the entry (1.27020)
    const res = await call(who, 'POST', `/api/trading/close-position/${opened.id}/`, { quantity: 0.4 });
    expect(res.statusCode, res.body).toBe(200);
    const closed = closePositionResponseSchema.parse(res.json().data);
    // 40,000 × (1.28000 − 1.27020) = 392.00 USD
    expect(closed.profit_loss).toBe(392);
    expect(closed.close_price).toBe(1.28);
    expect(closed.order).toMatchObject({ side: 'SELL', quantity: 0.4, reason: 'close', status: 'FILLED' });
    expect(closed.position).toMatchObject({
      id: opened.id,
      status: 'OPEN',
      side: 'LONG',
      quantity: 0.6,
      average_entry_price: 1.2702,
      realized_pnl: 392,
      stop_loss: 1.2,
      take_profit: 1.4,
    });
    const data = platformDataSchema.parse((await call(who, 'GET', '/api/trading/platform-data/')).json().data);
    expect(data.trading_account!.balance).toBe(10_392);
    const ledger = await t.ctx.db.kysely
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_minor'])
      .where('account_id', '=', who.accountId!)
      .orderBy('id')
      .execute();
    expect(ledger.map((e) => [e.kind, Number(e.amount_minor)])).toEqual([
      ['deposit', 1_000_000],
      ['realized_pnl', 39_200],
    ]);
    await expectClean(who);

    // The rest, by its exact size, closes the position.
    const rest = await call(who, 'POST', `/api/trading/close-position/${opened.id}/`, { quantity: 0.6 });
    expect(rest.json().data.position).toMatchObject({ status: 'CLOSED', quantity: 0, stop_loss: null, take_profit: null });
    await expectClean(who);
    quote('GBPUSD', 1.27, 1.2702);
  });

  it('answers 400 for a quantity that is not a 0.01 step, not positive, or more than the position has; nothing stored', async () => {
    const who = await trader();
    const opened = placeMarketOrderResponseSchema.parse(
      (await placeMarket(who, { symbol: 'GBPUSD', side: 'SELL', quantity: 0.5 })).json().data,
    ).position;
    for (const quantity of [0.005, 0, -1, 0.51, 1, '0.1']) {
      expectFieldError(await call(who, 'POST', `/api/trading/close-position/${opened.id}/`, { quantity }), 'quantity');
    }
    expect((await stored(who)).orders).toHaveLength(1);
    const part = await call(who, 'POST', `/api/trading/close-position/${opened.id}/`, { quantity: 0.01 });
    expect(part.json().data.position).toMatchObject({ side: 'SHORT', quantity: -0.49 });
    await expectClean(who);
  });
});

describe('GET trading/orders/export.csv', () => {
  let who: Trader;
  let other: Trader;

  beforeAll(async () => {
    who = await trader({ balanceMinor: 500_000 });
    other = await trader();
    for (let i = 0; i < 12; i++) {
      clock.advance(60_000);
      requote();
      await placeMarket(who, { symbol: i % 2 ? 'EURUSD' : 'USDJPY', side: i % 3 ? 'BUY' : 'SELL', quantity: 0.01 * (i + 1) });
    }
    await pendingOrder(who);
    await pendingOrder(who, { ...BUY_LIMIT, symbol: 'USDJPY', price: 149 });
    // A rejection whose reason has commas (the CSV must quote it).
    await placeMarket(who, { symbol: 'EURUSD', side: 'BUY', quantity: 100 });
    await placeMarket(other, { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 });
  });

  const csv = (query = '', whom: Who = who) => call(whom, 'GET', `/api/trading/orders/export.csv${query}`);

  /** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
  function parseCsv(text: string): string[][] {
    const rows: string[][] = [];
    let row: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') {
          field += '"';
          i++;
        } else if (c === '"') quoted = false;
        else field += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') {
        row.push(field);
        field = '';
      } else if (c === '\r' && text[i + 1] === '\n') {
        row.push(field);
        rows.push(row);
        row = [];
        field = '';
        i++;
      } else field += c;
    }
    expect(field).toBe('');
    return rows;
  }

  it('streams one header row and every matching order of the trader, as many as orders/ counts', async () => {
    const res = await csv();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="orders.csv"');
    // Streamed: no length known up front.
    expect(res.headers['content-length']).toBeUndefined();
    const rows = parseCsv(res.body);
    expect(rows[0]).toEqual([
      'id',
      'created_at',
      'symbol',
      'order_type',
      'side',
      'quantity',
      'filled_quantity',
      'price',
      'limit_price',
      'average_fill_price',
      'status',
      'time_in_force',
      'expires_at',
      'triggered_at',
      'stop_loss',
      'take_profit',
      'trailing_stop_pips',
      'reason',
      'rejection_reason',
      'position_id',
      'current_price',
      'submitted_at',
      'updated_at',
    ]);
    const page = ordersPageSchema.parse((await call(who, 'GET', '/api/trading/orders/?page_size=100')).json());
    expect(rows.length - 1).toBe(page.count);
    expect(rows.slice(1).map((r) => Number(r[0]))).toEqual(page.results.map((o) => o.id));
    // Scoping: the other trader's order is not there, theirs has only theirs.
    const theirs = parseCsv((await csv('', other)).body);
    expect(theirs).toHaveLength(2);
    expect(rows.slice(1).map((r) => r[0])).not.toContain(theirs[1]![0]);

    const rejected = rows.find((r) => r[10] === 'REJECTED')!;
    expect(rejected[18]).toMatch(/^Insufficient free margin: this order needs .*,.* USD/);
    expect(res.body).toContain(`"${rejected[18]}"`);
  });

  it('applies the orders/ filters and ordering (page and page_size do not limit it)', async () => {
    for (const query of [
      '?fx_pair=eur',
      '?side=sell',
      '?status=PENDING',
      '?order_type=limit',
      '?status=rejected&side=BUY',
      '?date_from=2026-01-05T12:05:00&date_to=2026-01-05T12:09:00',
      '?ordering=quantity',
      '?ordering=-average_fill_price',
      '?fx_pair=&page=2&page_size=3',
    ]) {
      const rows = parseCsv((await csv(query)).body).slice(1);
      const filters = query.replace(/[?&]page=\d+|&page_size=\d+/g, '').replace(/^&/, '?');
      const page = ordersPageSchema.parse(
        (await call(who, 'GET', `/api/trading/orders/${filters}${filters.includes('?') ? '&' : '?'}page_size=100`)).json(),
      );
      expect(rows.length, query).toBe(page.count);
      expect(
        rows.map((r) => Number(r[0])),
        query,
      ).toEqual(page.results.map((o) => o.id));
    }
  });

  it('answers bad filters as orders/ does (400 in the envelope, nothing streamed); 401 without a token', async () => {
    for (const query of ['?side=HOLD', '?date_from=2026-02-01&date_to=2026-01-01', '?unknown=1', '?page_size=1000']) {
      const res = await csv(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
    expect((await csv('', null)).statusCode).toBe(401);
  });

  it('pages with keyset pagination in every ordering without losing or repeating an order', async () => {
    const pricing = new Pricing(t.market.pairs, t.market.prices);
    for (const ordering of [
      'created_at',
      '-created_at',
      'quantity',
      '-quantity',
      'average_fill_price',
      '-average_fill_price',
    ] as const) {
      let text = '';
      for await (const chunk of exportOrdersCsv({ db: t.ctx.db, pricing }, userId(who.userId), { ordering }, 2)) text += chunk;
      const ids = parseCsv(text)
        .slice(1)
        .map((r) => Number(r[0]));
      const page = ordersPageSchema.parse(
        (await call(who, 'GET', `/api/trading/orders/?page_size=100&ordering=${ordering}`)).json(),
      );
      expect(ids, ordering).toEqual(page.results.map((o) => o.id));
    }
  });
});

/** A signed-in /ws/trading/ client that records what it receives. */
async function openSocket(token: string) {
  const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws/trading/`);
  const received: Array<{ type: string } & Record<string, unknown>> = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'authenticate', token }));
  const waitFor = async (type: string, count: number) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = received.filter((m) => m.type === type);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`${count} × ${type} did not arrive: ${received.map((m) => m.type).join(', ')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await waitFor('connection_established', 1);
  return { waitFor, close: () => ws.close() };
}
