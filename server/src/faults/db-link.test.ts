import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseFaultProxy, startDatabaseFaultProxy } from '../test/database-fault-proxy.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';

/**
 * A bad link to PostgreSQL rather than a dead server (docs/operations.md#database-outages):
 * a connection that breaks in the middle of an answer, and a slow one. A request meets a 503
 * in the catalogue (never a 500), the broken connection is replaced, and the next requests
 * succeed. Any unhandled error here would fail the run (vitest reports them).
 */
describe.runIf(testDbKind === 'postgres')('a bad link to the database', () => {
  let proxy: DatabaseFaultProxy;
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    proxy = await startDatabaseFaultProxy();
    t = await startTestApp({
      env: { DATABASE_URL: proxy.databaseUrl().toString(), CHART_HISTORY_DAYS: '0', DB_CONNECT_TIMEOUT_MS: '1000' },
    });
    ({ headers } = await insertSignedInTrader(t));
  });
  afterAll(async () => {
    proxy?.heal();
    await t?.close();
    await proxy?.close();
  });

  const platformData = () => t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers });

  it('a connection dropped mid-answer is a 503 with Retry-After, and the next call succeeds', async () => {
    expect((await platformData()).statusCode).toBe(200);
    let met503 = false;
    for (let i = 0; i < 5; i++) {
      proxy.dropMidStream();
      const res = await platformData();
      // The drop may hit a connection this call does not use; then the call succeeds.
      expect([200, 503], res.body).toContain(res.statusCode);
      if (res.statusCode === 503) {
        met503 = true;
        expect(res.json()).toMatchObject({ success: false, code: 'DATABASE_UNAVAILABLE' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      proxy.heal();
      await expect.poll(async () => (await platformData()).statusCode, { timeout: 10_000 }).toBe(200);
    }
    expect(met503).toBe(true);
  });

  it('a slow link slows answers down but breaks nothing', async () => {
    proxy.slow(100);
    try {
      const res = await platformData();
      expect(res.statusCode).toBe(200);
    } finally {
      proxy.heal();
    }
    expect((await platformData()).statusCode).toBe(200);
  });
});
