import type { PositionDto } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';

/**
 * A closed position leaves every in-memory structure (docs/operations.md#memory), through the
 * whole server: positions opened, valued and closed in each way a position closes (a close
 * call, a partial close then the rest, netting by an opposite order, a stop loss the engine
 * executes) leave the valuation cache, the live book and the trigger book as they were before
 * they opened. Issue 36's soak found the valuation cache keeping every closed position until
 * its cap.
 */
const prices = new ScriptedPriceSource();
let t: TestApp;
type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;
const SYMBOLS = ['EURUSD', 'GBPUSD', 'AUDUSD'] as const;
const tickAll = (offset = 0) => {
  prices.push({ symbol: 'EURUSD', bid: 1.1 + offset, ask: 1.1002 + offset, timestamp: Date.now() });
  prices.push({ symbol: 'GBPUSD', bid: 1.27 + offset, ask: 1.2702 + offset, timestamp: Date.now() });
  prices.push({ symbol: 'AUDUSD', bid: 0.66 + offset, ask: 0.6602 + offset, timestamp: Date.now() });
};

beforeAll(async () => {
  tickAll();
  t = await startTestApp({ priceSource: prices, env: { CHART_HISTORY_DAYS: '0' } });
});
afterAll(async () => {
  await t?.close();
});

/** What the server keeps in memory per position: the valuation cache, the live book, the trigger book. */
function sizes() {
  return {
    valuations: t.trading.service.pricing.valuationCount(),
    livePositions: t.trading.live.bookCounts().positions,
    liveIndexEntries: t.trading.live.bookCounts().dependents,
    protections: t.trading.engine.status().protections,
    orders: t.trading.engine.status().orders,
  };
}

describe('a closed position in memory', () => {
  it('leaves the valuation cache, the live book and the trigger book however it closes', async () => {
    const traders = await Promise.all([1, 2, 3, 4].map(() => insertSignedInTrader(t, { balanceMinor: 100_000_000 })));
    const call = async (trader: Trader, method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await t.app.inject({
        method,
        url: `/api/trading/${url}`,
        headers: trader.headers,
        ...(payload ? { payload } : {}),
      });
      if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
      return res.json().data;
    };
    const before = sizes();

    // Twelve positions, four of them with a stop loss, valued by the orders and by reads.
    const opened: Array<{ trader: Trader; symbol: string; position: PositionDto }> = [];
    for (const [i, trader] of traders.entries()) {
      for (const symbol of SYMBOLS) {
        const protectedOne = symbol === 'EURUSD';
        const { position } = await call(trader, 'POST', 'place-market-order/', {
          symbol,
          side: 'BUY',
          quantity: [0.1, 0.2, 0.3, 0.4][i],
          ...(protectedOne ? { stop_loss: 1.05 } : {}),
        });
        opened.push({ trader, symbol, position });
      }
      await call(trader, 'GET', 'platform-data/');
    }
    const open = sizes();
    expect(open).toEqual({
      // The orders kept the valuations they made under the lock (a position not yet stored when
      // its own order valued it, id 0 on PostgreSQL, is kept by the trader's next order).
      valuations: expect.any(Number),
      livePositions: before.livePositions + 12,
      liveIndexEntries: expect.any(Number),
      protections: before.protections + 4,
      orders: before.orders,
    });
    expect(open.valuations).toBeGreaterThanOrEqual(before.valuations + 8);
    expect(open.liveIndexEntries).toBeGreaterThan(before.liveIndexEntries);

    const [a, b, c, d] = traders as [Trader, Trader, Trader, Trader];
    const of = (trader: Trader, symbol: string) => opened.find((o) => o.trader === trader && o.symbol === symbol)!.position;
    // Trader a: closed whole, by the close call.
    for (const symbol of SYMBOLS) await call(a, 'POST', `close-position/${of(a, symbol).id}/`, {});
    // Trader b: a partial close (the position stays, still valued), then the rest.
    for (const symbol of SYMBOLS) await call(b, 'POST', `close-position/${of(b, symbol).id}/`, { quantity: 0.1 });
    expect(sizes().valuations).toBeLessThan(open.valuations);
    for (const symbol of SYMBOLS) await call(b, 'POST', `close-position/${of(b, symbol).id}/`, {});
    // Trader c: netted away by opposite orders of the same size.
    for (const symbol of SYMBOLS) await call(c, 'POST', 'place-market-order/', { symbol, side: 'SELL', quantity: 0.3 });
    // Trader d: EURUSD by its stop loss, the others by the close call.
    for (const symbol of ['GBPUSD', 'AUDUSD']) await call(d, 'POST', `close-position/${of(d, symbol).id}/`, {});
    tickAll(-0.06);
    await vi.waitFor(
      async () => {
        const data = await call(d, 'GET', 'platform-data/');
        expect(data.open_positions).toEqual([]);
      },
      { timeout: 5_000, interval: 20 },
    );

    // The engine publishes its execution after the commit the read above may already see. That
    // read values d's position from a snapshot taken before the stop loss: it must not keep it.
    await vi.waitFor(() => expect(sizes()).toEqual(before), { timeout: 5_000, interval: 20 });
  });
});
