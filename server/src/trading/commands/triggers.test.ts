import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import type { AppError } from '../../errors.js';
import { MemoryBus } from '../../realtime/bus.js';
import { FakeMarket, insertTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { auditAccount } from '../audit.js';
import { ENGINE_TOPIC, type EngineChange, type TriggerQuote } from '../engine/ports.js';
import { ORDER_UPDATE_TOPIC, type OrderUpdatePayload } from '../events.js';
import { createTradingService, type TradingServiceImpl } from '../service.js';
import type { ExecutionEvent } from '../types.js';

// The trigger executor (engine/ports.ts) called directly, as the engine calls it: fills at
// the given tick, guards on the stored state, rejects on overspend, closes by protection,
// expires, saves trailing stops, loads what is armed. docs/order-engine.md#the-trigger-table.

let t: TestApp;
let market: FakeMarket;
let service: TradingServiceImpl;
let bus: MemoryBus;
let clock: ManualClock;
let executions: ExecutionEvent[];
let engine: EngineChange[];
let updates: OrderUpdatePayload[];

const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);

beforeEach(async () => {
  t = await startTestApp();
  market = new FakeMarket();
  market.set('EURUSD', 1.085, 1.0852);
  market.set('USDJPY', 150, 150.02);
  market.set('GBPUSD', 1.27, 1.2702);
  // A bus and clock of its own: the app's engine and live book must not react to this service.
  bus = new MemoryBus();
  clock = new ManualClock(NOW);
  service = createTradingService({ ...t.ctx, bus, clock }, market);
  executions = [];
  engine = [];
  updates = [];
  bus.subscribe('execution', (e) => executions.push(e.payload as ExecutionEvent));
  bus.subscribe('message', ({ topic, payload }) => {
    if (topic === ENGINE_TOPIC) engine.push(payload as EngineChange);
    if (topic === ORDER_UPDATE_TOPIC) updates.push(payload as OrderUpdatePayload);
  });
});
afterEach(async () => {
  await t.close();
});

const tick = (symbol: string, bid: string, ask: string): TriggerQuote => ({ symbol, bid, ask, timestamp: clock.now() });

async function place(userId: number, body: Record<string, unknown>) {
  const { response } = await service.placePendingOrderDetailed(userId, {
    symbol: 'EURUSD',
    side: 'BUY',
    order_type: 'LIMIT',
    quantity: 1,
    price: 1.08,
    ...body,
  } as Parameters<TradingServiceImpl['placePendingOrderDetailed']>[1]);
  return response.order;
}

async function orderRow(id: number) {
  return t.ctx.db.kysely.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function tradesOf(accountId: number) {
  return t.ctx.db.kysely.selectFrom('trades').selectAll().where('account_id', '=', accountId).execute();
}

async function expectClean(accountId: number) {
  expect(await auditAccount(t.ctx.db, accountId)).toEqual([]);
}

describe('fillPendingOrder', () => {
  it('fills at the tick’s price (a limit never worse, a stop worse on a gap), moving the order out of PENDING with its trade', async () => {
    const trader = await insertTrader(t.ctx);
    const limit = await place(trader.userId, { stop_loss: 1.07, take_profit: 1.1, trailing_stop_pips: 10 });
    engine.length = 0;
    clock.advance(5000);
    // The ask gapped below the limit: the buy gets the better price.
    expect(await service.triggers.fillPendingOrder(limit.id, tick('EURUSD', '1.07960', '1.07980'))).toBe('filled');
    const row = await orderRow(limit.id);
    expect(row).toMatchObject({
      status: 'FILLED',
      order_type: 'LIMIT',
      reason: 'client',
      filled_quantity_centilots: 100,
      average_fill_price_e10: 10_798_000_000,
      updated_at: NOW + 5000,
      created_at: NOW,
    });
    const [trade] = await tradesOf(trader.accountId!);
    expect(trade).toMatchObject({ order_id: limit.id, price_e10: 10_798_000_000, quantity_centilots: 100, side: 'BUY' });
    // The position carries the order's protection; the answer and the events say so.
    expect(executions).toHaveLength(1);
    expect(executions[0]!.order).toMatchObject({ id: limit.id, status: 'FILLED', average_fill_price: 1.0798 });
    expect(executions[0]!.position).toMatchObject({ side: 'LONG', stop_loss: 1.07, take_profit: 1.1, trailing_stop_pips: 10 });
    expect(engine).toEqual([
      { kind: 'order_gone', orderId: limit.id, symbol: 'EURUSD' },
      {
        kind: 'protection',
        protection: {
          positionId: row.position_id,
          accountId: trader.accountId,
          userId: trader.userId,
          symbol: 'EURUSD',
          long: true,
          stopLoss: '1.07',
          takeProfit: '1.1',
          trailingStopPips: 10,
          openedAt: NOW + 5000,
        },
      },
    ]);

    // A SELL STOP at 1.07 reached by a gap: it sells at the (worse) bid 1.06900.
    const stop = await place(trader.userId, { side: 'SELL', order_type: 'STOP', price: 1.07 });
    expect(await service.triggers.fillPendingOrder(stop.id, tick('EURUSD', '1.06900', '1.06920'))).toBe('filled');
    expect(await orderRow(stop.id)).toMatchObject({ status: 'FILLED', average_fill_price_e10: 10_690_000_000 });
    await expectClean(trader.accountId!);
  });

  it('is stale, writing nothing, once the order is not PENDING or the stored order is not crossed by the tick', async () => {
    const trader = await insertTrader(t.ctx);
    const order = await place(trader.userId, {});
    // Not crossed (the trader moved the limit down after the engine saw it).
    expect(await service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.07990', '1.08010'))).toBe('stale');
    expect(await service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.07980', '1.08000'))).toBe('filled');
    // Twice: the second finds it FILLED.
    expect(await service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.07980', '1.08000'))).toBe('stale');
    const cancelled = await place(trader.userId, {});
    await service.cancelOrder(trader.userId, cancelled.id);
    expect(await service.triggers.fillPendingOrder(cancelled.id, tick('EURUSD', '1.07', '1.0702'))).toBe('stale');
    expect(await service.triggers.fillPendingOrder(999_999, tick('EURUSD', '1.07', '1.0702'))).toBe('stale');
    expect(await tradesOf(trader.accountId!)).toHaveLength(1);
    expect((await orderRow(cancelled.id)).status).toBe('CANCELLED');
    expect(executions).toHaveLength(1);
    await expectClean(trader.accountId!);
  });

  it('checks margin at fill time: a fill that would overspend is stored REJECTED with the reason', async () => {
    const trader = await insertTrader(t.ctx, { balanceMinor: 50_000 }); // 500.00 USD, 1 lot needs ~1,080
    const order = await place(trader.userId, {});
    engine.length = 0;
    expect(await service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.07980', '1.08000'))).toBe('rejected');
    const row = await orderRow(order.id);
    expect(row.status).toBe('REJECTED');
    expect(row.rejection_reason).toMatch(
      /^Insufficient free margin: this order needs 1,0\d\d\.\d\d USD of margin and 500\.00 USD is free$/,
    );
    expect(await tradesOf(trader.accountId!)).toEqual([]);
    expect(executions[0]).toMatchObject({ order: { id: order.id, status: 'REJECTED' }, position: null });
    expect(engine).toEqual([{ kind: 'order_gone', orderId: order.id, symbol: 'EURUSD' }]);
    expect(await service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.07980', '1.08000'))).toBe('stale');
    await expectClean(trader.accountId!);
  });

  it('exactly one of a cancel and a fill racing wins, and the stored status agrees with both answers', async () => {
    const trader = await insertTrader(t.ctx);
    for (let i = 0; i < 10; i++) {
      const order = await place(trader.userId, { quantity: 0.1 });
      const [cancel, fill] = await Promise.allSettled([
        service.cancelOrder(trader.userId, order.id),
        service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.07980', '1.08000')),
      ]);
      const status = (await orderRow(order.id)).status;
      if (cancel.status === 'fulfilled') {
        expect(fill).toEqual({ status: 'fulfilled', value: 'stale' });
        expect(status).toBe('CANCELLED');
      } else {
        expect((cancel.reason as AppError).code).toBe('ORDER_NOT_PENDING');
        expect(fill).toEqual({ status: 'fulfilled', value: 'filled' });
        expect(status).toBe('FILLED');
      }
    }
    await expectClean(trader.accountId!);
  });
});

describe('STOP_LIMIT', () => {
  it('records its trigger (still PENDING), then fills as a LIMIT at its limit price; the same tick may do both', async () => {
    const trader = await insertTrader(t.ctx);
    const order = await place(trader.userId, { order_type: 'STOP_LIMIT', price: 1.09, limit_price: 1.0905 });
    engine.length = 0;
    clock.advance(1000);
    expect(await service.triggers.markStopLimitTriggered(order.id, clock.now())).toBe('filled');
    expect(await orderRow(order.id)).toMatchObject({ status: 'PENDING', triggered_at: NOW + 1000 });
    expect(updates.at(-1)!.order).toMatchObject({ id: order.id, status: 'PENDING', triggered_at: '2026-01-05T12:00:01.000Z' });
    expect(engine).toEqual([{ kind: 'order', order: expect.objectContaining({ orderId: order.id, triggeredAt: NOW + 1000 }) }]);
    expect(await service.triggers.markStopLimitTriggered(order.id, clock.now())).toBe('stale');
    // Above its limit: no fill.
    expect(await service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.09080', '1.09100'))).toBe('stale');
    expect(await service.triggers.fillPendingOrder(order.id, tick('EURUSD', '1.09020', '1.09040'))).toBe('filled');
    expect(await orderRow(order.id)).toMatchObject({ status: 'FILLED', average_fill_price_e10: 10_904_000_000 });

    // Stop and limit crossed by one tick without a separate mark: the trigger is recorded with the fill.
    const same = await place(trader.userId, { order_type: 'STOP_LIMIT', price: 1.09, limit_price: 1.0905 });
    expect(await service.triggers.fillPendingOrder(same.id, tick('EURUSD', '1.09000', '1.09020'))).toBe('filled');
    expect(await orderRow(same.id)).toMatchObject({ status: 'FILLED', triggered_at: clock.now() });
    // A stop that has not triggered does not fill.
    const untouched = await place(trader.userId, { order_type: 'STOP_LIMIT', price: 1.09, limit_price: 1.0905 });
    expect(await service.triggers.fillPendingOrder(untouched.id, tick('EURUSD', '1.08000', '1.08020'))).toBe('stale');
    // A LIMIT cannot be marked.
    const limit = await place(trader.userId, {});
    expect(await service.triggers.markStopLimitTriggered(limit.id, clock.now())).toBe('stale');
    await expectClean(trader.accountId!);
  });
});

describe('closeByProtection', () => {
  it('closes the whole position with a MARKET order named by the trigger, at the tick’s bid (long) or ask (short)', async () => {
    const trader = await insertTrader(t.ctx);
    const long = (
      await service.placeMarketOrder(trader.userId, {
        symbol: 'EURUSD',
        side: 'BUY',
        quantity: 1,
        stop_loss: 1.08,
        take_profit: 1.1,
      })
    ).position;
    engine.length = 0;
    expect(await service.triggers.closeByProtection(long.id, 'stop_loss', tick('EURUSD', '1.07950', '1.07970'))).toBe('filled');
    const close = executions.at(-1)!;
    expect(close.order).toMatchObject({
      order_type: 'MARKET',
      side: 'SELL',
      quantity: 1,
      reason: 'stop_loss',
      status: 'FILLED',
      average_fill_price: 1.0795,
    });
    // 100,000 × (1.07950 − 1.08520) = −570.00
    expect(close.position).toMatchObject({ status: 'CLOSED', realized_pnl: -570, stop_loss: null, take_profit: null });
    expect(engine).toEqual([{ kind: 'protection_gone', positionId: long.id, symbol: 'EURUSD' }]);
    // Once closed: stale.
    expect(await service.triggers.closeByProtection(long.id, 'stop_loss', tick('EURUSD', '1.07950', '1.07970'))).toBe('stale');

    const short = (
      await service.placeMarketOrder(trader.userId, { symbol: 'USDJPY', side: 'SELL', quantity: 0.5, take_profit: 149 })
    ).position;
    expect(await service.triggers.closeByProtection(short.id, 'take_profit', tick('USDJPY', '148.880', '148.900'))).toBe(
      'filled',
    );
    expect(executions.at(-1)!.order).toMatchObject({
      side: 'BUY',
      quantity: 0.5,
      reason: 'take_profit',
      average_fill_price: 148.9,
    });
    await expectClean(trader.accountId!);
  });

  it('is stale when the stored protection is gone or not crossed by the tick; a trailing stop closes as trailing_stop', async () => {
    const trader = await insertTrader(t.ctx);
    const long = (await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1, stop_loss: 1.08 }))
      .position;
    // The trader moved the stop down before the engine heard of it.
    await service.modifyPosition(trader.userId, long.id, { stop_loss: 1.07 });
    expect(await service.triggers.closeByProtection(long.id, 'stop_loss', tick('EURUSD', '1.07950', '1.07970'))).toBe('stale');
    expect(await service.triggers.closeByProtection(long.id, 'take_profit', tick('EURUSD', '1.2', '1.2002'))).toBe('stale');
    expect(await service.triggers.closeByProtection(long.id, 'trailing_stop', tick('EURUSD', '1.07950', '1.07970'))).toBe(
      'stale',
    );
    await service.modifyPosition(trader.userId, long.id, { trailing_stop_pips: 20 });
    // Suspended accounts are protected too (as a stop-out).
    await t.ctx.db.kysely
      .updateTable('trading_accounts')
      .set({ status: 'SUSPENDED' })
      .where('id', '=', trader.accountId!)
      .execute();
    expect(await service.triggers.closeByProtection(long.id, 'trailing_stop', tick('EURUSD', '1.08300', '1.08320'))).toBe(
      'filled',
    );
    expect(executions.at(-1)!.order).toMatchObject({ reason: 'trailing_stop', average_fill_price: 1.083, status: 'FILLED' });
    expect(await tradesOf(trader.accountId!)).toHaveLength(2);
    await expectClean(trader.accountId!);
  });
});

describe('expireOrder', () => {
  it('moves a due GTD order to EXPIRED; not yet due, or not PENDING, is stale', async () => {
    const trader = await insertTrader(t.ctx);
    const order = await place(trader.userId, { time_in_force: 'GTD', expires_at: '2026-01-05T13:00:00Z' });
    const gtc = await place(trader.userId, {});
    engine.length = 0;
    updates.length = 0;
    expect(await service.triggers.expireOrder(order.id)).toBe('stale');
    expect(await service.triggers.expireOrder(gtc.id)).toBe('stale');
    clock.set(Date.UTC(2026, 0, 5, 13, 0, 0));
    expect(await service.triggers.expireOrder(order.id)).toBe('expired');
    expect(await orderRow(order.id)).toMatchObject({ status: 'EXPIRED', updated_at: clock.now(), filled_quantity_centilots: 0 });
    expect(updates.map((u) => [u.order.id, u.order.status])).toEqual([[order.id, 'EXPIRED']]);
    expect(engine).toEqual([{ kind: 'order_gone', orderId: order.id, symbol: 'EURUSD' }]);
    expect(await service.triggers.expireOrder(order.id)).toBe('stale');
    await expect(service.modifyOrder(trader.userId, order.id, { price: 1.07 })).rejects.toMatchObject({ status: 409 });
  });
});

describe('saveTrailingStops and loadArmed', () => {
  it('writes moved stops only tighter and only while trailing; loads every PENDING order and protected OPEN position', async () => {
    const trader = await insertTrader(t.ctx);
    const long = (
      await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1, trailing_stop_pips: 20 })
    ).position;
    const short = (
      await service.placeMarketOrder(trader.userId, {
        symbol: 'USDJPY',
        side: 'SELL',
        quantity: 1,
        stop_loss: 151,
        trailing_stop_pips: 50,
      })
    ).position;
    const plain = (await service.placeMarketOrder(trader.userId, { symbol: 'GBPUSD', side: 'BUY', quantity: 1, stop_loss: 1.2 }))
      .position;
    await service.triggers.saveTrailingStops([
      { positionId: long.id, stopLoss: '1.083' },
      { positionId: short.id, stopLoss: '150.5' },
      { positionId: plain.id, stopLoss: '1.25' },
    ]);
    // Looser moves are refused (a LONG's lower, a SHORT's higher).
    await service.triggers.saveTrailingStops([
      { positionId: long.id, stopLoss: '1.082' },
      { positionId: short.id, stopLoss: '150.6' },
    ]);
    const stops = await t.ctx.db.kysely.selectFrom('positions').select(['id', 'stop_loss_e10']).orderBy('id').execute();
    expect(stops.map((p) => [p.id, p.stop_loss_e10])).toEqual([
      [long.id, 10_830_000_000],
      [short.id, 1_505_000_000_000],
      [plain.id, 12_000_000_000],
    ]);

    const pending = await place(trader.userId, { time_in_force: 'GTD', expires_at: '2026-01-06T00:00:00Z' });
    const stopLimit = await place(trader.userId, { order_type: 'STOP_LIMIT', price: 1.09, limit_price: 1.0905 });
    await service.triggers.markStopLimitTriggered(stopLimit.id, NOW + 7);
    const cancelled = await place(trader.userId, {});
    await service.cancelOrder(trader.userId, cancelled.id);
    await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 2 }); // long flips bare
    const other = await insertTrader(t.ctx);
    const theirs = await place(other.userId, { side: 'SELL', price: 1.1 });

    const armed = await service.triggers.loadArmed();
    expect(armed.orders).toEqual([
      {
        orderId: pending.id,
        accountId: trader.accountId,
        userId: trader.userId,
        symbol: 'EURUSD',
        side: 'BUY',
        orderType: 'LIMIT',
        price: '1.08',
        limitPrice: null,
        triggeredAt: null,
        expiresAt: Date.UTC(2026, 0, 6),
        createdAt: NOW,
      },
      expect.objectContaining({ orderId: stopLimit.id, orderType: 'STOP_LIMIT', limitPrice: '1.0905', triggeredAt: NOW + 7 }),
      expect.objectContaining({ orderId: theirs.id, userId: other.userId, side: 'SELL', price: '1.1' }),
    ]);
    expect(armed.protections).toEqual([
      {
        positionId: short.id,
        accountId: trader.accountId,
        userId: trader.userId,
        symbol: 'USDJPY',
        long: false,
        stopLoss: '150.5',
        takeProfit: null,
        trailingStopPips: 50,
        openedAt: NOW,
      },
      expect.objectContaining({ positionId: plain.id, long: true, stopLoss: '1.2', trailingStopPips: null }),
    ]);
  });
});

describe('engine changes of the calls', () => {
  it('announces placed, modified and cancelled orders, and protection set, changed and gone by fills and PATCH', async () => {
    const trader = await insertTrader(t.ctx);
    const order = await place(trader.userId, {});
    await service.modifyOrder(trader.userId, order.id, { price: 1.079 });
    await service.cancelOrder(trader.userId, order.id);
    expect(engine.map((c) => c.kind)).toEqual(['order', 'order', 'order_gone']);
    expect(engine[1]).toMatchObject({ kind: 'order', order: { orderId: order.id, price: '1.079' } });
    engine.length = 0;

    const opened = await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 });
    expect(engine).toEqual([]); // a plain order on a plain position: nothing for the engine
    await service.modifyPosition(trader.userId, opened.position.id, { stop_loss: 1.07 });
    await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 1 }); // adds, keeps it
    await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 3 }); // flips bare
    await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 2, take_profit: 1.1 }); // flips protected
    await service.modifyPosition(trader.userId, opened.position.id, { take_profit: null });
    expect(engine).toEqual([
      {
        kind: 'protection',
        protection: expect.objectContaining({ positionId: opened.position.id, long: true, stopLoss: '1.07' }),
      },
      { kind: 'protection_gone', positionId: opened.position.id, symbol: 'EURUSD' },
      {
        kind: 'protection',
        protection: expect.objectContaining({ positionId: opened.position.id, long: true, stopLoss: null, takeProfit: '1.1' }),
      },
      { kind: 'protection_gone', positionId: opened.position.id, symbol: 'EURUSD' },
    ]);
    await expectClean(trader.accountId!);
  });
});
