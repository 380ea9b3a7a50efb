import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CandleStore } from '../market/candle-store.js';
import { MINUTE_MS } from '../market/candles.js';
import { candlesIn, listPairs } from '../market/repo.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { type DatabaseFaultProxy, startDatabaseFaultProxy } from '../test/database-fault-proxy.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';

/**
 * Candle writes during a PostgreSQL outage (docs/operations.md#database-outages): kept in
 * memory and written once the database is back, never thrown away silently; past the
 * buffer's bound the oldest go first.
 */
describe.runIf(testDbKind === 'postgres')('candle writes during a database outage', () => {
  let proxy: DatabaseFaultProxy;
  let t: TestApp;

  beforeAll(async () => {
    proxy = await startDatabaseFaultProxy();
    t = await startTestApp({
      priceSource: new ScriptedPriceSource(),
      env: { DATABASE_URL: proxy.databaseUrl().toString(), CHART_HISTORY_DAYS: '0', DB_CONNECT_TIMEOUT_MS: '1000' },
      overrides: { candleWriteBuffer: 3 },
    });
  });
  afterAll(async () => {
    proxy.heal();
    await t?.close();
    await proxy?.close();
  });

  it('buffers what the database refuses, bounded, and writes it when the database returns', async () => {
    const [pair] = await listPairs(t.ctx.db.kysely);
    const start = Date.UTC(2020, 0, 6, 8, 0);
    const candle = (i: number) => ({
      pairId: pair!.id,
      timeframe: 1,
      time: start + i * MINUTE_MS,
      open: 100_000 + i,
      high: 100_010 + i,
      low: 99_990 + i,
      close: 100_005 + i,
      volume: i + 1,
    });
    const store = new CandleStore(t.ctx);

    proxy.cut();
    await store.write([candle(0), candle(1)]); // no throw: kept
    expect(store.pendingCount()).toBe(2);
    await store.write([candle(2), candle(3)]); // past the bound of 3: the oldest goes
    expect(store.pendingCount()).toBe(3);

    proxy.heal();
    // The pool's breaker lets a connection through within its backoff (at most 2 s).
    await expect
      .poll(
        async () => {
          await store.write([]);
          return store.pendingCount();
        },
        { timeout: 10_000, interval: 250 },
      )
      .toBe(0);
    const stored = await candlesIn(t.ctx.db.kysely, pair!.id, 1, { from: start, before: start + 10 * MINUTE_MS });
    expect(stored.map((c) => c.time)).toEqual([1, 2, 3].map((i) => start + i * MINUTE_MS));
    expect(stored[2]).toMatchObject({ open: 100_003, close: 100_008, volume: 4 });
    // The aggregates were rebuilt from the stored minutes in the same transaction.
    const quarter = await candlesIn(t.ctx.db.kysely, pair!.id, 15, { from: start, before: start + 15 * MINUTE_MS });
    expect(quarter).toHaveLength(1);
    expect(quarter[0]).toMatchObject({ open: 100_001, close: 100_008 });
  });
});
