import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries, ledgerSum } from '../../accounts/index.js';
import { AppError } from '../../errors.js';
import { MemoryBus } from '../../realtime/bus.js';
import { FakeMarket, insertTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { auditAccount } from '../audit.js';
import { createTradingService, type TradingServiceImpl } from '../service.js';
import { userId } from '../types.js';

// docs/academy.md#reset: all or nothing, and what it tells the bus.

let t: TestApp;
let market: FakeMarket;
let service: TradingServiceImpl;
let bus: MemoryBus;

beforeAll(async () => {
  t = await startTestApp();
  market = new FakeMarket();
  // A bus of its own: the app's live engine (which prices with the app's market) must not react to this service.
  bus = new MemoryBus();
  service = createTradingService({ ...t.ctx, bus }, market);
});
afterAll(async () => {
  await t.close();
});

async function trader() {
  market.set('EURUSD', 1.1, 1.1001);
  market.set('GBPUSD', 1.27, 1.2701);
  const inserted = await insertTrader(t.ctx);
  await service.placeMarketOrder(inserted.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 0.5 });
  await service.placeMarketOrder(inserted.userId, { symbol: 'GBPUSD', side: 'SELL', quantity: 0.2 });
  await service.placePendingOrderDetailed(inserted.userId, {
    symbol: 'EURUSD',
    side: 'BUY',
    order_type: 'LIMIT',
    quantity: 0.1,
    price: 1.05,
  });
  return inserted;
}

async function state(accountId: number) {
  const db = t.ctx.db.kysely;
  const open = await db
    .selectFrom('positions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'OPEN')
    .execute();
  const pending = await db
    .selectFrom('orders')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'PENDING')
    .execute();
  const periods = await db.selectFrom('performance_periods').select('id').where('account_id', '=', accountId).execute();
  const orders = await db.selectFrom('orders').select('id').where('account_id', '=', accountId).execute();
  return {
    open: open.length,
    pending: pending.length,
    periods: periods.length,
    orders: orders.length,
    ledger: (await ledgerEntries(db, accountId)).length,
    balance: await ledgerSum(db, accountId),
  };
}

describe('resetAccount', () => {
  it('changes nothing when one position cannot be closed (no price): 503', async () => {
    const s = await trader();
    const before = await state(s.accountId!);
    expect(before).toMatchObject({ open: 2, pending: 1, periods: 1 });
    // The EURUSD close would succeed first; the GBPUSD one has no price: both roll back.
    market.clear('GBPUSD');
    const err = await service
      .resetAccount({ userId: userId(s.userId), startingBalanceMinor: 500_000, actorUserId: s.userId })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
    expect(await state(s.accountId!)).toEqual(before);
    expect(await auditAccount(t.ctx.db, s.accountId!)).toEqual([]);
  });

  it('announces the closes, the cancels and the new balance on the bus, and keeps the account’s invariants', async () => {
    const s = await trader();
    const executions: Array<{ payload: unknown }> = [];
    const messages: Array<{ topic: string; payload: unknown }> = [];
    const offs = [bus.subscribe('execution', (e) => executions.push(e)), bus.subscribe('message', (m) => messages.push(m))];
    try {
      const { response, replayed } = await service.resetAccount({
        userId: userId(s.userId),
        startingBalanceMinor: 250_000,
        actorUserId: s.userId,
      });
      expect(replayed).toBe(false);
      expect(response.account.balance).toBe(2_500);
      expect(response.closed_positions).toHaveLength(2);
      expect(response.cancelled_orders).toHaveLength(1);
      expect(executions.map((e) => (e.payload as { order: { reason: string } }).order.reason)).toEqual(['reset', 'reset']);
      expect(messages.some((m) => m.topic === 'trading.order_update')).toBe(true);
      const balance = messages.find((m) => m.topic === 'trading.balance_adjusted');
      expect(balance?.payload).toMatchObject({ userId: s.userId, accountId: s.accountId, balance_minor: 250_000 });
    } finally {
      for (const off of offs) off();
    }
    expect(await state(s.accountId!)).toMatchObject({ open: 0, pending: 0, periods: 2, balance: 250_000 });
    expect(await auditAccount(t.ctx.db, s.accountId!)).toEqual([]);
  });
});
