import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryBus } from '../realtime/bus.js';
import { FakeMarket, insertTrader, seededPairs } from '../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { readAfterLock } from './order-reads.js';
import * as performanceRepo from './performance/repo.js';
import * as repo from './repo.js';
import { createTradingService, type TradingServiceImpl } from './service.js';

let t: TestApp;
let market: FakeMarket;
let service: TradingServiceImpl;

beforeEach(async () => {
  t = await startTestApp();
  market = new FakeMarket(seededPairs());
  service = createTradingService({ ...t.ctx, bus: new MemoryBus() }, market);
});
afterEach(async () => {
  await t.close();
});

const byId = <R extends { id: number }>(rows: R[]) => [...rows].sort((a, b) => Number(a.id) - Number(b.id));

/**
 * A market order's reads after its account lock (docs/order-engine.md#round-trips): on
 * PostgreSQL one statement brings every row as JSON, and each must equal what the row's own
 * query returns (a column type JSON carries differently would show here); on SQLite only the key.
 */
describe('a market order’s reads', () => {
  it('are the rows their own queries return, and only the trader’s', async () => {
    const a = await insertTrader(t.ctx);
    const b = await insertTrader(t.ctx);
    market.set('EURUSD', 1.1, 1.1002);
    market.set('USDJPY', 150, 150.02);
    for (const trader of [a, b]) {
      await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'BUY', quantity: 2 }, `k-${trader.userId}`);
      await service.placeMarketOrder(trader.userId, { symbol: 'USDJPY', side: 'SELL', quantity: 1 });
      market.set('EURUSD', 1.101, 1.1012);
      // A reducing fill: a closed trade, so the pair has statistics in the period.
      await service.placeMarketOrder(trader.userId, { symbol: 'EURUSD', side: 'SELL', quantity: 1 });
    }
    const q = t.ctx.db.kysely;
    const accountId = a.accountId!;
    const reads = await readAfterLock(q, { accountId, userId: a.userId, key: `k-${a.userId}`, marketOrderSymbol: 'EURUSD' });

    const key = await repo.findIdempotencyKey(q, a.userId, `k-${a.userId}`);
    expect(key).toBeDefined();
    expect(reads.key).toEqual(key);
    if (testDbKind !== 'postgres') {
      expect(reads).toEqual({ key });
      return;
    }
    const positions = await repo.openPositions(q, accountId);
    expect(positions).toHaveLength(2);
    expect(byId(reads.positions!)).toEqual(byId(positions));
    const period = await performanceRepo.currentPeriod(q, accountId);
    expect(period).toBeDefined();
    expect(reads.period).toEqual(period);
    const pairStats = await performanceRepo.pairStatsOf(q, Number(period!.id), 'EURUSD');
    expect(pairStats).toMatchObject({ trades: 1 });
    expect(reads.pairStats).toEqual(pairStats);

    // Without a key, on a pair without statistics: none of either, the rest the same.
    const other = await readAfterLock(q, { accountId, userId: a.userId, key: undefined, marketOrderSymbol: 'USDJPY' });
    expect(other).toEqual({ ...reads, key: undefined, pairStats: null });
    // Another trader's key under this account finds nothing.
    const crossed = await readAfterLock(q, { accountId, userId: a.userId, key: `k-${b.userId}`, marketOrderSymbol: 'EURUSD' });
    expect(crossed.key).toBeUndefined();
  });
});
