import {
  closePositionResponseSchema,
  orderRejectedSchema,
  ordersPageSchema,
  pairPageSchema,
  placeMarketOrderResponseSchema,
  platformDataSchema,
} from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { signedInTrader } from '../test/traders.js';
import { auditAccount } from './audit.js';

let t: TestApp;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

/** A signed-in trader with a funded account (sessions made directly: sign-in itself is auth's to test). */
const trader = (options: { balanceMinor?: number; leverage?: number } = {}) => insertSignedInTrader(t, options);

function quote(symbol: string, bid: number, ask = bid) {
  prices.push({ symbol, bid, ask, timestamp: clock.now() });
}

/** The same prices again, arriving now: after the clock moved past the stale limit an order still finds a price. */
function requote() {
  for (const q of t.market.prices.all()) quote(q.symbol, q.bid, q.ask);
}

function call(
  trader: { headers: { authorization: string } } | null,
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method,
    url,
    headers: { ...(trader ? trader.headers : {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const order = (
  trader: { headers: { authorization: string } },
  symbol: string,
  side: 'BUY' | 'SELL',
  quantity: number,
  headers: Record<string, string> = {},
) => call(trader, 'POST', '/api/trading/place-market-order/', { symbol, side, quantity }, headers);

async function countOrders(trader: Trader): Promise<number> {
  const row = await t.ctx.db.kysely
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', trader.accountId!)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

beforeAll(async () => {
  // Tokens outlive the test's clock jumps (days forward for the date filters).
  t = await startTestApp({ priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000' } });
  for (const [symbol, bid] of [
    ['EURUSD', 1.085],
    ['GBPUSD', 1.27],
    ['USDJPY', 150],
    ['EURJPY', 162.75],
  ] as const) {
    quote(symbol, bid, bid);
  }
});
afterAll(async () => {
  await t.close();
});

describe('auth', () => {
  it('answers 401 on every trading call without a token', async () => {
    for (const [method, url] of [
      ['GET', '/api/trading/platform-data/'],
      ['POST', '/api/trading/place-market-order/'],
      ['POST', '/api/trading/close-position/1/'],
      ['GET', '/api/trading/orders/'],
      ['GET', '/api/trading/pair/EURUSD/'],
    ] as const) {
      const res = await call(null, method, url);
      expect(res.statusCode, url).toBe(401);
    }
  });
});

describe('GET trading/platform-data/', () => {
  it('answers everything the dashboard needs', async () => {
    const me = await trader({ balanceMinor: 500_000, leverage: 50 });
    quote('EURUSD', 1.19999, 1.2);
    const placed = await order(me, 'EURUSD', 'BUY', 0.5);
    expect(placed.statusCode).toBe(201);
    quote('EURUSD', 1.21, 1.2102);
    const res = await call(me, 'GET', '/api/trading/platform-data/');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    const data = platformDataSchema.parse(body.data);
    expect(data.trader_profile?.user).toEqual({ id: me.userId, email: me.email, full_name: me.fullName });
    // balance 5,000; long 0.5 at 1.2 valued at bid 1.21: +500; margin 50,000 × 1.2101 ÷ 50
    expect(data.trading_account).toEqual({
      id: me.accountId,
      balance: 5000,
      equity: 5500,
      margin_used: 1210.1,
      free_margin: 4289.9,
      margin_level: 454.51,
      leverage: 50,
      currency: 'USD',
    });
    expect(data.open_positions).toHaveLength(1);
    expect(data.open_positions[0]).toMatchObject({ fx_pair_symbol: 'EURUSD', unrealized_pnl: 500, current_price: 1.21 });
    expect(data.recent_orders).toHaveLength(1);
    expect(data.recent_trades).toEqual([
      expect.objectContaining({ fx_pair_symbol: 'EURUSD', side: 'BUY', quantity: 0.5, price: 1.2, realized_pnl: 0 }),
    ]);
    expect(data.fx_pairs.map((p) => p.symbol)).toContain('USDJPY');
    expect(data.trading_mode).toBe('live');
  });

  it('keeps the last 10 orders and 20 trades, newest first', async () => {
    const me = await trader();
    quote('EURUSD', 1.1, 1.1);
    for (let i = 1; i <= 12; i++) {
      clock.advance(1000);
      requote();
      expect((await order(me, 'EURUSD', i % 2 ? 'BUY' : 'SELL', i / 100)).statusCode).toBe(201);
    }
    const data = platformDataSchema.parse((await call(me, 'GET', '/api/trading/platform-data/')).json().data);
    expect(data.recent_orders.map((o) => o.quantity)).toEqual([0.12, 0.11, 0.1, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04, 0.03]);
    expect(data.recent_trades).toHaveLength(12);
    expect(data.recent_trades[0]!.quantity).toBe(0.12);
  });

  it('answers trader_profile null / trading_account null for an incomplete registration', async () => {
    const noAccount = await signedInTrader(t, { withAccount: false }); // through real sign-in once
    const res = await call(noAccount, 'GET', '/api/trading/platform-data/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      data: {
        trader_profile: null,
        trading_account: null,
        open_positions: [],
        recent_orders: [],
        recent_trades: [],
        trading_mode: 'live',
      },
    });
    // a profile without an account
    await t.ctx.db.kysely.insertInto('trader_profiles').values({ user_id: noAccount.userId, created_at: clock.now() }).execute();
    const data = (await call(noAccount, 'GET', '/api/trading/platform-data/')).json().data;
    expect(data.trader_profile).toMatchObject({ user: { id: noAccount.userId } });
    expect(data.trading_account).toBeNull();
    // and nothing can be ordered
    const placed = await order(noAccount, 'EURUSD', 'BUY', 0.1);
    expect(placed.statusCode).toBe(409);
    expect(placed.json()).toMatchObject({ success: false, code: 'NO_TRADING_ACCOUNT' });
  });
});

describe('POST trading/place-market-order/', () => {
  it('docs/trading-rules.md#numbers-that-must-hold margins through the API', async () => {
    const a = await trader({ leverage: 100 });
    // margin is valued at the mid (1.2000), the order executes at the ask
    quote('EURUSD', 1.19999, 1.20001);
    const one = await order(a, 'EURUSD', 'BUY', 1);
    expect(one.statusCode).toBe(201);
    const body = placeMarketOrderResponseSchema.parse(one.json().data);
    expect(body.execution_details).toMatchObject({ execution_price: 1.20001, margin_required: 1200, units: 100_000 });
    const b = await trader({ leverage: 400 });
    quote('EURUSD', 1.14999, 1.15001);
    expect((await order(b, 'EURUSD', 'BUY', 0.1)).json().data.execution_details.margin_required).toBe(28.75);
    const c = await trader({ leverage: 100 });
    quote('USDJPY', 133.333, 133.337);
    expect((await order(c, 'USDJPY', 'SELL', 1)).json().data.execution_details.margin_required).toBe(1000);
  });

  it('executes at the ask for BUY and the bid for SELL, never at a client price', async () => {
    const a = await trader();
    quote('GBPUSD', 1.27001, 1.27015);
    const buy = await order(a, 'GBPUSD', 'BUY', 0.1);
    expect(buy.json().data.order.average_fill_price).toBe(1.27015);
    const sell = await order(a, 'GBPUSD', 'SELL', 0.1);
    expect(sell.json().data.order.average_fill_price).toBe(1.27001);
    const withPrice = await call(a, 'POST', '/api/trading/place-market-order/', {
      symbol: 'GBPUSD',
      side: 'BUY',
      quantity: 0.1,
      price: 1,
    });
    expect(withPrice.statusCode).toBe(400);
  });

  it('answers 400 for invalid input and stores nothing', async () => {
    const a = await trader();
    const cases: Array<[unknown, string]> = [
      [{ symbol: 'EURUSD', side: 'BUY' }, 'quantity'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: '1' }, 'quantity'],
      [{ symbol: 'EURUSD', side: 'buy', quantity: 1 }, 'side'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: 0.001 }, 'quantity'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: 101 }, 'quantity'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: -1 }, 'quantity'],
      [{ symbol: 'NOPE12', side: 'BUY', quantity: 1 }, 'symbol'],
      [{ symbol: '', side: 'BUY', quantity: 1 }, 'symbol'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: 1, extra: true }, 'extra'],
      [[], 'body'],
    ];
    for (const [payload, field] of cases) {
      const res = await call(a, 'POST', '/api/trading/place-market-order/', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(body.details[0].field).toBe(field);
    }
    expect(await countOrders(a)).toBe(0);
  });

  it('answers a business rejection with 422 and the stored REJECTED order', async () => {
    const a = await trader({ balanceMinor: 10_000 }); // 100 USD
    quote('EURUSD', 1.09999, 1.10001);
    const res = await order(a, 'EURUSD', 'BUY', 1);
    expect(res.statusCode).toBe(422);
    const body = orderRejectedSchema.parse(res.json());
    expect(body).toMatchObject({
      success: false,
      code: 'INSUFFICIENT_MARGIN',
      error: 'Insufficient free margin: this order needs 1,100.00 USD of margin and 100.00 USD is free',
      data: {
        order: { status: 'REJECTED', rejection_reason: body.error, fx_pair_symbol: 'EURUSD', quantity: 1, filled_quantity: 0 },
      },
    });
    expect(await countOrders(a)).toBe(1);
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body, executing nothing', async () => {
      const a = await trader();
      quote('EURUSD', 1.1, 1.1);
      const headers = { 'idempotency-key': 'order-123' };
      const first = await order(a, 'EURUSD', 'BUY', 0.1, headers);
      quote('EURUSD', 1.3, 1.3);
      const again = await order(a, 'EURUSD', 'BUY', 0.1, headers);
      expect(first.statusCode).toBe(201);
      expect(again.statusCode).toBe(201);
      expect(again.json()).toEqual(first.json());
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await countOrders(a)).toBe(1);
    });

    it('50 concurrent identical requests with one key → one order', async () => {
      const a = await trader();
      quote('EURUSD', 1.1, 1.1);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => order(a, 'EURUSD', 'SELL', 0.2, { 'idempotency-key': 'burst' })),
      );
      expect(await countOrders(a)).toBe(1);
      const created = answers.filter((r) => r.statusCode === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      for (const r of created) expect(r.json().data.order.id).toBe(created[0]!.json().data.order.id);
      for (const r of answers.filter((x) => x.statusCode !== 201)) {
        expect(r.statusCode).toBe(409);
        expect(r.json().code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
      }
      const later = await order(a, 'EURUSD', 'SELL', 0.2, { 'idempotency-key': 'burst' });
      expect(later.json().data.order.id).toBe(created[0]!.json().data.order.id);
    });

    it('answers 422 for the same key with another body; another trader’s key is theirs', async () => {
      const a = await trader();
      const b = await trader();
      quote('EURUSD', 1.1, 1.1);
      expect((await order(a, 'EURUSD', 'BUY', 0.1, { 'idempotency-key': 'k1' })).statusCode).toBe(201);
      const other = await order(a, 'EURUSD', 'SELL', 0.1, { 'idempotency-key': 'k1' });
      expect(other.statusCode).toBe(422);
      expect(other.json()).toMatchObject({ success: false, code: 'IDEMPOTENCY_KEY_REUSED' });
      const theirs = await order(b, 'EURUSD', 'BUY', 0.1, { 'idempotency-key': 'k1' });
      expect(theirs.statusCode).toBe(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect([await countOrders(a), await countOrders(b)]).toEqual([1, 1]);
    });

    it('rejects a key longer than 255 characters (and an empty one) with 400', async () => {
      const a = await trader();
      quote('EURUSD', 1.1, 1.1);
      expect((await order(a, 'EURUSD', 'BUY', 0.1, { 'idempotency-key': 'x'.repeat(256) })).statusCode).toBe(400);
      expect((await order(a, 'EURUSD', 'BUY', 0.1, { 'idempotency-key': ' ' })).statusCode).toBe(400);
      expect((await order(a, 'EURUSD', 'BUY', 0.1, { 'idempotency-key': 'x'.repeat(255) })).statusCode).toBe(201);
      expect(await countOrders(a)).toBe(1);
    });

    it('is kept at least 24 hours', async () => {
      const a = await trader();
      quote('EURUSD', 1.1, 1.1);
      const first = await order(a, 'EURUSD', 'BUY', 0.1, { 'idempotency-key': 'day' });
      clock.advance(24 * 60 * 60 * 1000);
      const again = await order(a, 'EURUSD', 'BUY', 0.1, { 'idempotency-key': 'day' });
      expect(again.json().data.order.id).toBe(first.json().data.order.id);
    });
  });
});

describe('POST trading/close-position/{id}/', () => {
  it('docs/trading-rules.md#numbers-that-must-hold P&L through the API: USDJPY −52.42, EURUSD +16.00', async () => {
    const a = await trader();
    quote('USDJPY', 115.03, 115.05);
    const open = (await order(a, 'USDJPY', 'BUY', 0.1)).json().data;
    quote('USDJPY', 114.45, 114.45);
    const res = await call(a, 'POST', `/api/trading/close-position/${open.position.id}/`, { current_price: 114.44 });
    expect(res.statusCode).toBe(200);
    const closed = closePositionResponseSchema.parse(res.json().data);
    expect(closed).toMatchObject({ profit_loss: -52.42, close_price: 114.45 });
    expect(closed.order).toMatchObject({ reason: 'close', current_price: 114.44, average_fill_price: 114.45, side: 'SELL' });
    expect(closed.position).toMatchObject({ status: 'CLOSED', side: 'FLAT', quantity: 0, realized_pnl: -52.42 });

    const b = await trader();
    quote('EURUSD', 0.9521, 0.9522);
    const short = (await order(b, 'EURUSD', 'SELL', 0.1)).json().data;
    quote('EURUSD', 0.9504, 0.9505);
    const back = await call(b, 'POST', `/api/trading/close-position/${short.position.id}/`);
    expect(back.json().data.profit_loss).toBe(16);
    const data = (await call(b, 'GET', '/api/trading/platform-data/')).json().data;
    expect(data.trading_account.balance).toBe(10_016);
    expect(data.open_positions).toEqual([]);
    expect(await auditAccount(t.ctx.db, b.accountId!)).toEqual([]);
  });

  it('is 404 for another trader’s position or a bad id, 409 when already closed, 400 on unknown fields', async () => {
    const a = await trader();
    const b = await trader();
    quote('EURUSD', 1.1, 1.1);
    const open = (await order(a, 'EURUSD', 'BUY', 0.1)).json().data;
    const url = `/api/trading/close-position/${open.position.id}/`;
    const theirs = await call(b, 'POST', url);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toMatchObject({ success: false, error: 'Position not found' });
    for (const bad of ['abc', '0', '-1', '1.5', '99999999']) {
      expect((await call(a, 'POST', `/api/trading/close-position/${bad}/`)).statusCode, bad).toBe(404);
    }
    expect((await call(a, 'POST', url, { current_price: 'x' })).statusCode).toBe(400);
    expect((await call(a, 'POST', url, { price: 1 })).statusCode).toBe(400);
    expect((await call(a, 'POST', url, {})).statusCode).toBe(200);
    const again = await call(a, 'POST', url);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ success: false, code: 'POSITION_CLOSED', error: 'Position is already closed' });
  });
});

describe('GET trading/pair/{symbol}/', () => {
  it('adds the trader’s open positions and orders on the pair and the account', async () => {
    const a = await trader();
    quote('EURUSD', 1.1, 1.1);
    quote('GBPUSD', 1.3, 1.3);
    await order(a, 'EURUSD', 'BUY', 0.1);
    await order(a, 'GBPUSD', 'SELL', 0.2);
    const res = await call(a, 'GET', '/api/trading/pair/eurusd/');
    expect(res.statusCode).toBe(200);
    const data = pairPageSchema.parse(res.json().data);
    expect(data.pair.symbol).toBe('EURUSD');
    expect(data.positions.map((p) => p.fx_pair_symbol)).toEqual(['EURUSD']);
    expect(data.recent_orders.map((o) => o.fx_pair_symbol)).toEqual(['EURUSD']);
    expect(data.trading_account).toMatchObject({ balance: 10_000, margin_used: 110 + 260 });
    const other = await trader();
    const theirs = pairPageSchema.parse((await call(other, 'GET', '/api/trading/pair/EURUSD/')).json().data);
    expect([theirs.positions, theirs.recent_orders]).toEqual([[], []]);
    const missing = await call(a, 'GET', '/api/trading/pair/XXXYYY/');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('Currency pair XXXYYY not found');
  });
});

describe('GET trading/orders/', () => {
  let a: Trader;
  const day = (d: number, h = 12) => Date.UTC(2026, 1, d, h, 0, 0);

  beforeAll(async () => {
    a = await trader({ balanceMinor: 30_000_000 });
    quote('EURUSD', 1.09999, 1.1);
    quote('GBPUSD', 1.3, 1.30002);
    quote('EURJPY', 159.998, 160);
    quote('USDJPY', 150, 150.002);
    // 45 orders over three days (EURUSD BUY, GBPUSD SELL, EURJPY BUY in turn), then 3 more on the 13th, the last rejected
    for (let i = 0; i < 45; i++) {
      clock.set(day(10 + (i % 3), 8) + i * 60_000);
      requote();
      const symbol = ['EURUSD', 'GBPUSD', 'EURJPY'][i % 3]!;
      const res = await order(a, symbol, i % 3 === 1 ? 'SELL' : 'BUY', (i + 1) / 100);
      expect(res.statusCode).toBe(201);
    }
    clock.set(day(13));
    requote();
    expect((await order(a, 'EURUSD', 'BUY', 100)).statusCode).toBe(201);
    expect((await order(a, 'EURUSD', 'BUY', 100)).statusCode).toBe(201);
    // 300,000 USD − about 232,000 of margin cannot carry 100,000 more
    const rejected = await order(a, 'USDJPY', 'BUY', 100);
    expect(rejected.statusCode).toBe(422);
  });

  const list = async (query = '') => {
    const res = await call(a, 'GET', `/api/trading/orders/${query}`);
    return { res, body: res.statusCode === 200 ? ordersPageSchema.parse(res.json()) : undefined };
  };

  it('answers the spec shape without an envelope, 20 per page, newest first', async () => {
    const { res, body } = await list();
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['count', 'next', 'previous', 'results']);
    expect(body!.count).toBe(48);
    expect(body!.results).toHaveLength(20);
    expect(body!.previous).toBeNull();
    expect(body!.next).toBe('/api/trading/orders/?page=2');
    const created = body!.results.map((o) => Date.parse(o.created_at));
    expect([...created].sort((x, y) => y - x)).toEqual(created);
  });

  it('pages with next/previous links that keep the query', async () => {
    const first = await list('?side=BUY&page_size=10');
    expect(first.body!.count).toBe(33);
    expect(first.body!.next).toBe('/api/trading/orders/?side=BUY&page_size=10&page=2');
    const last = await list('?side=BUY&page_size=10&page=4');
    expect(last.body!.results).toHaveLength(3);
    expect(last.body!.next).toBeNull();
    expect(last.body!.previous).toBe('/api/trading/orders/?side=BUY&page_size=10&page=3');
    const beyond = await list('?side=BUY&page_size=10&page=9');
    expect(beyond.body!.results).toEqual([]);
    expect(beyond.body!.previous).toBe('/api/trading/orders/?side=BUY&page_size=10&page=4');
    const ids = new Set<number>();
    for (let page = 1; page <= 4; page++)
      for (const o of (await list(`?side=BUY&page_size=10&page=${page}`)).body!.results) ids.add(o.id);
    expect(ids.size).toBe(33);
    expect((await list('?page_size=100')).body!.results).toHaveLength(48);
  });

  it('filters by pair text (contains, case-insensitive), side, status, type and dates', async () => {
    expect((await list('?fx_pair=eur')).body!.count).toBe(32);
    expect((await list('?fx_pair=EUR/USD')).body!.count).toBe(17);
    expect((await list('?fx_pair=jpy')).body!.count).toBe(16);
    expect((await list('?fx_pair=%25')).body!.count).toBe(0);
    expect((await list('?side=SELL')).body!.count).toBe(15);
    expect((await list('?side=sell&fx_pair=gbp')).body!.count).toBe(15);
    expect((await list('?status=REJECTED')).body!.results.map((o) => o.fx_pair_symbol)).toEqual(['USDJPY']);
    expect((await list('?status=FILLED')).body!.count).toBe(47);
    expect((await list('?order_type=MARKET')).body!.count).toBe(48);
    expect((await list('?order_type=LIMIT')).body!.count).toBe(0);
    expect((await list('?date_from=2026-02-11&date_to=2026-02-11')).body!.count).toBe(15);
    expect((await list('?date_from=2026-02-12')).body!.count).toBe(18);
    expect((await list('?date_to=2026-02-10')).body!.count).toBe(15);
    expect((await list('?date_from=2026-02-13T11:59:00Z&date_to=2026-02-13T12:00:00.000Z')).body!.count).toBe(3);
    expect((await list('?date_from=2026-02-13T12:00:01Z')).body!.count).toBe(0);
    expect((await list('?side=&status=&fx_pair=')).body!.count).toBe(48);
  });

  it('orders by the whitelisted fields', async () => {
    const q = async (ordering: string) => (await list(`?ordering=${ordering}&page_size=100`)).body!.results;
    const asc = await q('created_at');
    expect(asc[0]!.quantity).toBe(0.01);
    const byQuantity = await q('-quantity');
    expect(byQuantity.slice(0, 3).map((o) => o.quantity)).toEqual([100, 100, 100]);
    expect(byQuantity.at(-1)!.quantity).toBe(0.01);
    expect((await q('quantity'))[0]!.quantity).toBe(0.01);
    const byPrice = await q('average_fill_price');
    expect(byPrice[0]!.average_fill_price).toBe(1.1);
    expect(byPrice.at(-1)!.average_fill_price).toBeNull(); // the rejection sorts last
    const byPriceDesc = await q('-average_fill_price');
    expect(byPriceDesc[0]!.average_fill_price).toBe(160);
    expect(byPriceDesc.at(-1)!.average_fill_price).toBeNull();
  });

  it('answers 400 for bad values', async () => {
    for (const query of [
      '?page=0',
      '?page=-1',
      '?page=x',
      '?page_size=0',
      '?page_size=101',
      '?page_size=2.5',
      '?side=HOLD',
      '?status=DONE',
      '?order_type=ICEBERG',
      '?ordering=price',
      '?ordering=-id',
      '?date_from=2026-13-01',
      '?date_from=2026-02-30',
      '?date_to=yesterday',
      '?date_from=2026-02-12&date_to=2026-02-11',
      '?unknown=1',
      '?page=1&page=2',
    ]) {
      const res = await call(a, 'GET', `/api/trading/orders/${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
  });

  it('shows only the caller’s orders', async () => {
    const other = await trader();
    const res = await call(other, 'GET', '/api/trading/orders/');
    expect(res.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
  });
});
