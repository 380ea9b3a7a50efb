import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { freshDatabase, startTestApp, type TestApp } from './helpers.js';

/** The wall clock of the replay suites: years after the sessions' data, so a live price is never a session's. */
export const REPLAY_SUITE_NOW = Date.UTC(2026, 0, 5, 12, 0, 0);

/**
 * One app for a replay suite, on a fresh database, with a manual clock and a scripted live market
 * that quotes EURUSD at 1.2 (far from its 2023 prices in the sessions): registers the suite's
 * `beforeAll` and `afterAll`. `app()` is the started app (inside tests and later hooks).
 */
export function replaySuiteApp(options: { listen?: boolean } = {}) {
  const clock = new ManualClock(REPLAY_SUITE_NOW);
  const prices = new ScriptedPriceSource();
  let app: TestApp | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const db = await freshDatabase();
    drop = db.drop;
    prices.push({ symbol: 'EURUSD', bid: 1.2, ask: 1.2002, timestamp: clock.now() });
    app = await startTestApp({
      ...(options.listen ? { listen: true } : {}),
      clock,
      priceSource: prices,
      dataDir: db.dataDir,
      ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}),
    });
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });
  return {
    clock,
    prices,
    app(): TestApp {
      if (!app) throw new Error('the replay suite app is not started yet');
      return app;
    },
  };
}
