import { Dec } from '@pipdesk/contract';
import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import type { Pair } from '../market/index.js';
import { MemoryBus } from '../realtime/bus.js';
import { FakeMarket, insertTrader, seededPairs } from '../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { auditAccount } from './audit.js';
import { Pricing, valueAccount } from './math.js';
import { createTradingService, type TradingServiceImpl } from './service.js';
import type { ExecutionEvent, PositionState } from './types.js';

/** A pair whose lot is one unit, to replay the docs/trading-rules.md#numbers-that-must-hold netting example in units. */
const UNIT_PAIR: Pair = {
  id: 99,
  symbol: 'TSTUSD',
  name: 'Test / US Dollar',
  baseCurrency: 'TST',
  quoteCurrency: 'USD',
  minLotSize: 0.01,
  maxLotSize: 1000,
  contractSize: 1,
  spread: 1,
  pipSize: 0.0001,
  digits: 5,
  isActive: true,
};

let t: TestApp;
let market: FakeMarket;
let service: TradingServiceImpl;
let bus: MemoryBus;
let events: Array<{ userId: number; accountId: number; payload: ExecutionEvent }>;

beforeEach(async () => {
  t = await startTestApp();
  market = new FakeMarket([...seededPairs(), UNIT_PAIR, { ...UNIT_PAIR, id: 100, symbol: 'OFFUSD', isActive: false }]);
  // A bus of its own: the app's live engine (which prices with the app's market) must not
  // react to this service's executions.
  bus = new MemoryBus();
  service = createTradingService({ ...t.ctx, bus }, market);
  events = [];
  bus.subscribe('execution', (e) => events.push(e as (typeof events)[number]));
});
afterEach(async () => {
  await t.close();
});

async function caught(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

async function balanceOf(accountId: number): Promise<number> {
  const row = await t.ctx.db.kysely
    .selectFrom('trading_accounts')
    .select('balance_minor')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.balance_minor);
}

async function ordersOf(accountId: number) {
  return t.ctx.db.kysely.selectFrom('orders').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

async function expectClean(accountId: number) {
  expect(await auditAccount(t.ctx.db, accountId)).toEqual([]);
}

describe('placing market orders', () => {
  it('buys at the ask and sells at the bid, opening a netting position', async () => {
    const trader = await insertTrader(t.ctx);
    market.set('EURUSD', 1.08501, 1.08512);
    const buy = await service.placeMarketOrder(trader.userId, { symbol: 'eurusd', side: 'BUY', quantity: 0.5 });
    expect(buy.order).toMatchObject({
      fx_pair: 1,
      fx_pair_symbol: 'EURUSD',
      order_type: 'MARKET',
      side: 'BUY',
      quantity: 0.5,
      filled_quantity: 0.5,
      price: null,
      average_fill_price: 1.08512,
      status: 'FILLED',
      rejection_reason: null,
      reason: 'client',
      position_id: buy.position.id,
      current_price: null,
    });
    expect(buy.position).toMatchObject({
      side: 'LONG',
      quantity: 0.5,
      status: 'OPEN',
      average_entry_price: 1.08512,
      current_price: 1.08501,
      unrealized_pnl: -5.5, // 50,000 × −0.00011
      realized_pnl: 0,
      margin_used: 542.53, // 50,000 × 1.085065 ÷ 100
      closed_at: null,
    });
    expect(buy.execution_details).toMatchObject({ execution_price: 1.08512, margin_required: 542.53, units: 50_000 });

    const sell = await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 0.2 });
    expect(sell.order.average_fill_price).toBe(1.08501);
    expect(sell.position).toMatchObject({ id: buy.position.id, side: 'LONG', quantity: 0.3, realized_pnl: -2.2 });
    expect(await balanceOf(trader.accountId!)).toBe(1_000_000 - 220);
    await expectClean(trader.accountId!);
  });

  it('publishes every execution with the exact position state', async () => {
    const trader = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    const answer = await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 1 });
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.userId).toBe(trader.userId);
    expect(event.accountId).toBe(trader.accountId);
    expect(event.payload).toMatchObject({
      order: answer.order,
      position: answer.position,
      execution_details: answer.execution_details,
      trades: [],
      account: { balance_minor: 1_000_000, leverage: 100 },
    });
    expect(event.payload.position_state).toMatchObject({ quantityCentilots: -100, averageEntryPrice: '1.1', status: 'OPEN' });
    await service.closePosition(trader.userId, answer.position.id, { reason: 'client' });
    expect(events[1]!.payload).toMatchObject({ trades: [], position_state: { quantityCentilots: 0, status: 'CLOSED' } });
  });

  describe('docs/trading-rules.md#numbers-that-must-hold numbers through the service', () => {
    it('margin: EURUSD 1 lot at 1.2000, leverage 100 → 1,200.00; 0.1 lot at 1.1500, leverage 400 → 28.75', async () => {
      const a = await insertTrader(t.ctx, { leverage: 100 });
      market.set('EURUSD', 1.2, 1.2);
      const one = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 });
      expect(one.execution_details.margin_required).toBe(1200);
      expect(one.position.margin_used).toBe(1200);
      const b = await insertTrader(t.ctx, { leverage: 400 });
      market.set('EURUSD', 1.15, 1.15);
      const tenth = await service.placeMarketOrder(b.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
      expect(tenth.execution_details.margin_required).toBe(28.75);
    });

    it('margin: USDJPY 1 lot, leverage 100 → 1,000.00 USD whatever the price', async () => {
      for (const price of [98.765, 151.234]) {
        const a = await insertTrader(t.ctx);
        market.set('USDJPY', price, price);
        const r = await service.placeMarketOrder(a.userId, { symbol: 'USDJPY', side: 'SELL', quantity: 1 });
        expect(r.execution_details.margin_required).toBe(1000);
      }
    });

    it('P&L: buy 10,000 USDJPY at 115.05, sell at 114.45 → −52.42 USD booked to the ledger', async () => {
      const a = await insertTrader(t.ctx);
      market.set('USDJPY', 115.03, 115.05);
      const open = await service.placeMarketOrder(a.userId, { symbol: 'USDJPY', side: 'BUY', quantity: 0.1 });
      expect(open.execution_details.units).toBe(10_000);
      market.set('USDJPY', 114.45, 114.45);
      const closed = await service.closePosition(a.userId, open.position.id, { reason: 'client' });
      expect(closed.profit_loss).toBe(-52.42);
      expect(closed.close_price).toBe(114.45);
      expect(closed.position).toMatchObject({ side: 'FLAT', quantity: 0, status: 'CLOSED', realized_pnl: -52.42 });
      expect(await balanceOf(a.accountId!)).toBe(1_000_000 - 5242);
      await expectClean(a.accountId!);
    });

    it('P&L: sell 10,000 EURUSD at 0.9521, buy back at 0.9505 → +16.00 USD', async () => {
      const a = await insertTrader(t.ctx);
      market.set('EURUSD', 0.9521, 0.9523);
      const open = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 0.1 });
      market.set('EURUSD', 0.9503, 0.9505);
      const back = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
      expect(back.position).toMatchObject({ id: open.position.id, side: 'FLAT', status: 'CLOSED', realized_pnl: 16 });
      expect(await balanceOf(a.accountId!)).toBe(1_001_600);
      expect(events.at(-1)!.payload.trades).toEqual([{ trade_id: expect.any(Number), position_id: open.position.id, pnl: 16 }]);
      await expectClean(a.accountId!);
    });

    it('netting flip: BUY 100 at 50, SELL 150 at 55 → −50 at 55, +500; BUY 50 at 52 → FLAT, +150', async () => {
      const a = await insertTrader(t.ctx, { balanceMinor: 10_000_000 });
      market.set('TSTUSD', 50, 50);
      const first = await service.placeMarketOrder(a.userId, { symbol: 'TSTUSD', side: 'BUY', quantity: 100 });
      market.set('TSTUSD', 55, 55);
      const flip = await service.placeMarketOrder(a.userId, { symbol: 'TSTUSD', side: 'SELL', quantity: 150 });
      expect(flip.position).toMatchObject({
        id: first.position.id,
        side: 'SHORT',
        quantity: -50,
        average_entry_price: 55,
        realized_pnl: 500,
      });
      market.set('TSTUSD', 52, 52);
      const close = await service.placeMarketOrder(a.userId, { symbol: 'TSTUSD', side: 'BUY', quantity: 50 });
      expect(close.position).toMatchObject({ side: 'FLAT', quantity: 0, status: 'CLOSED', realized_pnl: 650 });
      expect(await balanceOf(a.accountId!)).toBe(10_000_000 + 65_000);
      // the next order opens a new position
      const again = await service.placeMarketOrder(a.userId, { symbol: 'TSTUSD', side: 'BUY', quantity: 1 });
      expect(again.position.id).not.toBe(first.position.id);
      await expectClean(a.accountId!);
    });
  });

  it('fills an order in 5 statements on PostgreSQL (BEGIN, the lock, the reads, the whole fill, COMMIT) and 10 on SQLite', async () => {
    // docs/order-engine.md#round-trips: every statement the database answers, counted.
    let statements = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        return args.result;
      },
    };
    const counted = createTradingService(
      { ...t.ctx, bus, db: { ...t.ctx.db, kysely: t.ctx.db.kysely.withPlugin(counter) } },
      market,
    );
    const a = await insertTrader(t.ctx, { balanceMinor: 10_000_000 });
    market.set('TSTUSD', 50, 50);
    // The first fill also starts the account's period.
    await counted.placeMarketOrder(a.userId, { symbol: 'TSTUSD', side: 'BUY', quantity: 100 });
    const before = await ordersOf(a.accountId!);
    statements = 0;
    // BEGIN, the account lock, the open positions and the period (one statement on PostgreSQL), the
    // fill with the period's update and the point (one statement on PostgreSQL), COMMIT.
    await counted.placeMarketOrder(a.userId, { symbol: 'TSTUSD', side: 'BUY', quantity: 10 });
    expect(statements).toBe(testDbKind === 'postgres' ? 5 : 10);
    market.set('TSTUSD', 55, 55);
    statements = 0;
    // A reducing fill realizes P&L: the ledger, and the pair's statistics and the journal (on
    // PostgreSQL the pair's row comes with the other reads, and its writes go in the fill's statement).
    const reduce = await counted.placeMarketOrder(a.userId, { symbol: 'TSTUSD', side: 'SELL', quantity: 10 });
    expect(statements).toBe(testDbKind === 'postgres' ? 5 : 15);
    expect(reduce.position).toMatchObject({ quantity: 100, realized_pnl: 50 });
    expect(await balanceOf(a.accountId!)).toBe(10_000_000 + 5_000);
    const after = await ordersOf(a.accountId!);
    expect(after).toHaveLength(before.length + 2);
    expect(after.every((o) => o.position_id === before[0]!.position_id)).toBe(true);
    await expectClean(a.accountId!);
  });

  it('answers 400 for invalid orders and stores nothing', async () => {
    const a = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    const cases: Array<[Parameters<typeof service.placeMarketOrder>[1], string]> = [
      [{ symbol: 'XXXYYY', side: 'BUY', quantity: 1 }, 'symbol: XXXYYY is not a tradable currency pair'],
      [{ symbol: 'OFFUSD', side: 'BUY', quantity: 1 }, 'symbol: OFFUSD is not a tradable currency pair'],
      [{ symbol: 'EURUSD', side: 'HOLD' as 'BUY', quantity: 1 }, 'side: must be BUY or SELL'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: 0.015 }, 'quantity: must be a positive multiple of 0.01'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: 0 }, 'quantity: must be a positive multiple of 0.01'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: -1 }, 'quantity: must be a positive multiple of 0.01'],
      [{ symbol: 'EURUSD', side: 'BUY', quantity: 100.01 }, 'quantity: must be at most 100'],
    ];
    for (const [input, message] of cases) {
      const err = await caught(service.placeMarketOrder(a.userId, input));
      expect(err.status).toBe(400);
      expect(err.message).toBe(message);
    }
    expect(await ordersOf(a.accountId!)).toEqual([]);
    expect(events).toEqual([]);
  });

  it('stores a business rejection as REJECTED and answers 422 with the order', async () => {
    const a = await insertTrader(t.ctx, { balanceMinor: 100_000 }); // 1,000.00 USD
    market.set('EURUSD', 1.2, 1.2);
    const err = await caught(service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 }));
    expect(err.status).toBe(422);
    expect(err.code).toBe('INSUFFICIENT_MARGIN');
    expect(err.message).toBe('Insufficient free margin: this order needs 1,200.00 USD of margin and 1,000.00 USD is free');
    const order = (err.body as { data: { order: Record<string, unknown> } }).data.order;
    expect(order).toMatchObject({
      status: 'REJECTED',
      rejection_reason: err.message,
      filled_quantity: 0,
      average_fill_price: null,
      position_id: null,
    });
    const stored = await ordersOf(a.accountId!);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: order.id, status: 'REJECTED' });
    expect(events.at(-1)!.payload).toMatchObject({ order, position: null, execution_details: null, position_state: null });
    expect(await balanceOf(a.accountId!)).toBe(100_000);
    await expectClean(a.accountId!);
  });

  it('rejects without a price, and on an account that is not active', async () => {
    const a = await insertTrader(t.ctx);
    const noPrice = await caught(service.placeMarketOrder(a.userId, { symbol: 'GBPUSD', side: 'BUY', quantity: 1 }));
    expect([noPrice.status, noPrice.code, noPrice.message]).toEqual([422, 'NO_PRICE', 'No price available for GBPUSD']);
    market.set('EURJPY', 160, 160); // a cross needs its conversion prices too
    const noRate = await caught(service.placeMarketOrder(a.userId, { symbol: 'EURJPY', side: 'BUY', quantity: 1 }));
    expect([noRate.code, noRate.message]).toEqual(['NO_PRICE', 'No price available for EUR to USD']);
    const suspended = await insertTrader(t.ctx, { status: 'SUSPENDED' });
    market.set('EURUSD', 1.1, 1.1);
    const inactive = await caught(service.placeMarketOrder(suspended.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 }));
    expect([inactive.status, inactive.code, inactive.message]).toEqual([
      422,
      'ACCOUNT_NOT_ACTIVE',
      'Trading account is not active',
    ]);
    expect((await ordersOf(a.accountId!)).map((o) => o.status)).toEqual(['REJECTED', 'REJECTED']);
  });

  it('answers 409 to a trader without a trading account', async () => {
    const a = await insertTrader(t.ctx, { withAccount: false });
    market.set('EURUSD', 1.1, 1.1);
    const err = await caught(service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 }));
    expect([err.status, err.code]).toEqual([409, 'NO_TRADING_ACCOUNT']);
  });

  it('needs free margin only for added exposure: reducing is always allowed, a flip pays only its excess', async () => {
    const a = await insertTrader(t.ctx, { balanceMinor: 150_000 }); // 1,500 USD
    market.set('EURUSD', 1, 1);
    await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 }); // margin 1,000
    market.set('EURUSD', 0.996, 0.996); // −400 → equity 1,100, margin 996, free 104
    const reduce = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 0.5 });
    expect(reduce.position.quantity).toBe(0.5);
    // balance 1,300, equity 1,100, margin 498, free 602. A flip from +0.5 to −0.6 adds only
    // 0.1 lot of exposure (99.60 USD of margin), although the order is 1.1 lots.
    const flip = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 1.1 });
    expect(flip.position).toMatchObject({ side: 'SHORT', quantity: -0.6 });
    const tooMuch = await caught(service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 10 }));
    expect(tooMuch.code).toBe('INSUFFICIENT_MARGIN');
    await expectClean(a.accountId!);
  });
});

describe('closing positions', () => {
  it('closes the whole position at bid (long) or ask (short), keeping the price the trader saw', async () => {
    const a = await insertTrader(t.ctx);
    market.set('GBPUSD', 1.27, 1.2702);
    const open = await service.placeMarketOrder(a.userId, { symbol: 'GBPUSD', side: 'SELL', quantity: 0.3 });
    market.set('GBPUSD', 1.268, 1.2682);
    const closed = await service.closePosition(a.userId, open.position.id, { currentPrice: 1.2681, reason: 'client' });
    expect(closed.close_price).toBe(1.2682);
    expect(closed.profit_loss).toBe(54); // 30,000 × (1.27 − 1.2682)
    expect(closed.order).toMatchObject({
      side: 'BUY',
      quantity: 0.3,
      reason: 'close',
      current_price: 1.2681,
      average_fill_price: 1.2682,
    });
    expect(closed.position).toMatchObject({
      status: 'CLOSED',
      side: 'FLAT',
      unrealized_pnl: 0,
      margin_used: 0,
      current_price: null,
    });
    expect(closed.position.closed_at).not.toBeNull();
    await expectClean(a.accountId!);
  });

  it('is 404 for another trader’s or an unknown position and 409 once closed', async () => {
    const a = await insertTrader(t.ctx);
    const b = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    const open = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
    const other = await caught(service.closePosition(b.userId, open.position.id, { reason: 'client' }));
    expect([other.status, other.message]).toEqual([404, 'Position not found']);
    expect((await caught(service.closePosition(a.userId, 999_999, { reason: 'client' }))).status).toBe(404);
    await service.closePosition(a.userId, open.position.id, { reason: 'client' });
    const again = await caught(service.closePosition(a.userId, open.position.id, { reason: 'client' }));
    expect([again.status, again.code, again.message]).toEqual([409, 'POSITION_CLOSED', 'Position is already closed']);
  });

  it('a stop-out closes on a suspended account and marks the order stop_out', async () => {
    const a = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    const open = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
    await t.ctx.db.kysely.updateTable('trading_accounts').set({ status: 'SUSPENDED' }).where('id', '=', a.accountId!).execute();
    const byTrader = await caught(service.closePosition(a.userId, open.position.id, { reason: 'client' }));
    expect(byTrader.code).toBe('ACCOUNT_NOT_ACTIVE');
    const stop = await service.closePosition(a.userId, open.position.id, { reason: 'stop_out' });
    expect(stop.order.reason).toBe('stop_out');
    await expectClean(a.accountId!);
  });
});

describe('idempotency', () => {
  it('replays the first answer for the same key and body, and executes nothing', async () => {
    const a = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    const first = await service.placeMarketOrderDetailed(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 }, 'key-1');
    market.set('EURUSD', 1.2, 1.2);
    const retry = await service.placeMarketOrderDetailed(a.userId, { symbol: 'eurusd', side: 'BUY', quantity: 0.1 }, 'key-1');
    expect(first.replayed).toBe(false);
    expect(retry).toEqual({ response: first.response, replayed: true });
    expect(await ordersOf(a.accountId!)).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  it('replays a rejection as the same 422', async () => {
    const a = await insertTrader(t.ctx, { balanceMinor: 100 });
    market.set('EURUSD', 1.1, 1.1);
    const first = await caught(service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 }, 'k'));
    const again = await caught(service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 }, 'k'));
    expect([again.status, again.code, again.message, again.body]).toEqual([first.status, first.code, first.message, first.body]);
    expect(again.headers).toEqual({ 'idempotent-replayed': 'true' });
    expect(await ordersOf(a.accountId!)).toHaveLength(1);
  });

  it('answers 422 for the same key with another body; another trader’s same key is a new order', async () => {
    const a = await insertTrader(t.ctx);
    const b = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 }, 'shared');
    const other = await caught(service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.2 }, 'shared'));
    expect([other.status, other.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const theirs = await service.placeMarketOrderDetailed(b.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 }, 'shared');
    expect(theirs.replayed).toBe(false);
    expect(await ordersOf(a.accountId!)).toHaveLength(1);
    expect(await ordersOf(b.accountId!)).toHaveLength(1);
  });

  it('50 concurrent identical requests with one key make one order (the rest replay or answer 409)', async () => {
    const a = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        service.placeMarketOrderDetailed(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 }, 'same'),
      ),
    );
    const orders = await ordersOf(a.accountId!);
    expect(orders).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'fulfilled') expect(r.value.response.order.id).toBe(orders[0]!.id);
      else expect((r.reason as AppError).status).toBe(409);
    }
    expect(results.filter((r) => r.status === 'fulfilled' && !r.value.replayed)).toHaveLength(1);
  });
});

describe('concurrency', () => {
  it('1,000 concurrent orders on an account whose free margin covers exactly 10 → exactly 10 fills', async () => {
    const a = await insertTrader(t.ctx, { balanceMinor: 100_000 }); // 1,000 USD; 0.1 lot at 1.0 needs 100
    market.set('EURUSD', 1, 1);
    const pricing = new Pricing(market.pairs, market.prices);
    const book = new Map<number, PositionState>();
    let lowestFreeMargin = Dec.from(1_000_000);
    bus.subscribe('execution', (e) => {
      const event = e as { payload: ExecutionEvent };
      const state = event.payload.position_state;
      if (state) book.set(state.id, state);
      const free = valueAccount(event.payload.account.balance_minor, 100, book.values(), pricing).freeMargin;
      lowestFreeMargin = Dec.min(lowestFreeMargin, free);
    });
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, () => service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('INSUFFICIENT_MARGIN');
    const orders = await ordersOf(a.accountId!);
    expect(orders.filter((o) => o.status === 'FILLED')).toHaveLength(10);
    expect(orders.filter((o) => o.status === 'REJECTED')).toHaveLength(990);
    expect(lowestFreeMargin.toString()).toBe('0');
    expect(lowestFreeMargin.sign()).toBeGreaterThanOrEqual(0);
    await expectClean(a.accountId!);
  });
});

describe('for the live cache', () => {
  it('loads the open book of every account with open positions', async () => {
    const a = await insertTrader(t.ctx, { leverage: 50 });
    const b = await insertTrader(t.ctx);
    await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1);
    market.set('USDJPY', 150, 150);
    await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
    await service.placeMarketOrder(a.userId, { symbol: 'USDJPY', side: 'SELL', quantity: 0.2 });
    const closed = await service.placeMarketOrder(b.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 });
    await service.closePosition(b.userId, closed.position.id, { reason: 'client' });
    const book = await service.loadOpenBook();
    expect(book).toEqual([
      {
        accountId: a.accountId,
        userId: a.userId,
        balanceMinor: 1_000_000,
        leverage: 50,
        status: 'ACTIVE',
        positions: [
          expect.objectContaining({ symbol: 'EURUSD', quantityCentilots: 10, averageEntryPrice: '1.1', status: 'OPEN' }),
          expect.objectContaining({ symbol: 'USDJPY', quantityCentilots: -20, averageEntryPrice: '150', status: 'OPEN' }),
        ],
      },
    ]);
  });

  it('protects a negative balance once no position is left, with a ledger adjustment', async () => {
    const a = await insertTrader(t.ctx, { balanceMinor: 50_000 }); // 500 USD
    market.set('EURUSD', 1, 1);
    const open = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.4 });
    const other = await service.placeMarketOrder(a.userId, { symbol: 'USDJPY', side: 'BUY', quantity: 0.01 }).catch(() => null);
    expect(other).toBeNull(); // no USDJPY price: rejected
    market.set('EURUSD', 0.98, 0.98); // −800
    await service.closePosition(a.userId, open.position.id, { reason: 'stop_out' });
    expect(await balanceOf(a.accountId!)).toBe(-30_000);
    const messages: unknown[] = [];
    bus.subscribe('message', (m) => messages.push(m));
    expect(await service.protectNegativeBalance(a.accountId!)).toBe(30_000);
    expect(await balanceOf(a.accountId!)).toBe(0);
    expect(await service.protectNegativeBalance(a.accountId!)).toBe(0);
    expect(messages).toEqual([
      {
        topic: 'trading.balance_adjusted',
        payload: { userId: a.userId, accountId: a.accountId, balance_minor: 0, amount_minor: 30_000 },
      },
    ]);
    await expectClean(a.accountId!);
  });

  it('leaves a negative balance alone while positions are still open', async () => {
    const a = await insertTrader(t.ctx, { balanceMinor: 50_000 });
    market.set('EURUSD', 1, 1);
    market.set('GBPUSD', 1, 1);
    const loser = await service.placeMarketOrder(a.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.2 });
    await service.placeMarketOrder(a.userId, { symbol: 'GBPUSD', side: 'BUY', quantity: 0.2 });
    market.set('EURUSD', 0.97, 0.97); // −600
    await service.closePosition(a.userId, loser.position.id, { reason: 'stop_out' });
    expect(await balanceOf(a.accountId!)).toBe(-10_000);
    expect(await service.protectNegativeBalance(a.accountId!)).toBe(0);
  });
});
