import { replayAnswerSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';

/**
 * An Idempotency-Key of a practice account is aged in real time, not in its session's: the
 * session's clock stands years back, and the hourly purge must still leave a retry its first
 * answer (docs/trading-rules.md#idempotency).
 */

const START = Date.UTC(2023, 3, 4, 7, 0, 0);
const HOUR = 3_600_000;

describe("a practice account's Idempotency-Keys", () => {
  const cleanups: Array<() => Promise<void>> = [];
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
  const prices = new ScriptedPriceSource();

  beforeAll(async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    prices.push({ symbol: 'EURUSD', bid: 1.2, ask: 1.2002, timestamp: clock.now() });
    t = await startTestApp({ clock, priceSource: prices, dataDir: db.dataDir, ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}) });
    cleanups.unshift(() => t.close());
  });

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('outlive the purge for as long as a live key does, and a retry gets the first answer', async () => {
    const me = await insertSignedInTrader(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/trading/replays/',
      headers: me.headers,
      payload: { symbols: ['EURUSD'], start: new Date(START).toISOString() },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { account_id: account } = replayAnswerSchema.parse(created.json().data).replay;
    const place = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/trading/place-market-order/?account=${account}`,
        headers: { ...me.headers, 'idempotency-key': 'practice-key-1' },
        payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.1 },
      });

    const first = await place();
    expect(first.statusCode, first.body).toBe(201);
    clock.advance(HOUR / 2);
    await t.trading.service.purgeIdempotencyKeys();
    const again = await place();
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);

    // Past the retention in real time, the key is gone like any other.
    clock.advance(25 * HOUR);
    expect(await t.trading.service.purgeIdempotencyKeys()).toBe(1);
  });
});
