import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { NEWS_REFRESH_HEADER } from './rate-limit.js';

const redisUrl = process.env.TEST_REDIS_URL;

const apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function app(env: Record<string, string>, priceSource?: ScriptedPriceSource): Promise<TestApp> {
  const t = await startTestApp({ env, ...(priceSource ? { priceSource } : {}) });
  apps.push(t);
  return t;
}

type Headers = { authorization: string };
const me = (t: TestApp, headers: Headers) => t.app.inject({ method: 'GET', url: '/api/auth/me/', headers });

function expectRefused(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }): void {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toMatchObject({
    success: false,
    code: 'TOO_MANY_REQUESTS',
    error: 'Too many requests. Try again in 1 second.',
    details: { retry_after_seconds: 1 },
  });
  expect(res.headers['retry-after']).toBe('1');
}

describe('HTTP rate limits (docs/operations.md#rate-limits)', () => {
  it('per signed-in user: over the limit is a 429 in the envelope with Retry-After; other users go on; the next window admits again', async () => {
    const t = await app({ RATE_LIMIT_REQUESTS_PER_SECOND: '3' });
    const [a, b] = [await insertSignedInTrader(t), await insertSignedInTrader(t)];
    // Retried as a whole: on a loaded machine the three calls may straddle a window's end.
    await vi.waitFor(
      async () => {
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await me(t, a.headers));
        expect(answers.slice(0, 3).map((r) => r.statusCode)).toEqual([200, 200, 200]);
        expectRefused(answers[3]!);
      },
      { timeout: 10_000, interval: 1100 },
    );
    // Another user (same address) is counted apart.
    expect((await me(t, b.headers)).statusCode).toBe(200);
    // The window is one second: the user is admitted again.
    await vi.waitFor(async () => expect((await me(t, a.headers)).statusCode).toBe(200), { timeout: 10_000, interval: 300 });
  });

  it('per address without a session; health probes are never limited', async () => {
    const t = await app({ RATE_LIMIT_ADDRESS_REQUESTS_PER_SECOND: '2' });
    const anonymous = (remoteAddress: string) => t.app.inject({ method: 'GET', url: '/api/no-such-call/', remoteAddress });
    await vi.waitFor(
      async () => {
        const answers = [await anonymous('10.0.0.1'), await anonymous('10.0.0.1'), await anonymous('10.0.0.1')];
        expect(answers.slice(0, 2).map((r) => r.statusCode)).toEqual([404, 404]);
        expectRefused(answers[2]!);
      },
      { timeout: 10_000, interval: 1100 },
    );
    expect((await anonymous('10.0.0.2')).statusCode).toBe(404);
    for (let i = 0; i < 6; i++) {
      const probe = await t.app.inject({ method: 'GET', url: '/api/health/live/', remoteAddress: '10.0.0.1' });
      expect(probe.statusCode).toBe(200);
    }
  });

  it('orders per trader: placing beyond the limit is refused before anything is stored, reading goes on', async () => {
    const prices = new ScriptedPriceSource();
    const t = await app({ RATE_LIMIT_ORDERS_PER_SECOND: '2' }, prices);
    prices.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1002, timestamp: Date.now() });
    const trader = await insertSignedInTrader(t, { balanceMinor: 10_000_00 });
    const place = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/trading/place-market-order/',
        headers: trader.headers,
        payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 },
      });
    const stored = async () =>
      Number(
        (
          await t.ctx.db.kysely
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    await vi.waitFor(
      async () => {
        const before = await stored();
        const answers = [await place(), await place(), await place()];
        expect(answers.slice(0, 2).map((r) => r.statusCode)).toEqual([201, 201]);
        expectRefused(answers[2]!);
        expect(await stored()).toBe(before + 2);
      },
      { timeout: 10_000, interval: 1100 },
    );
    const read = await t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers: trader.headers });
    expect(read.statusCode).toBe(200);
  });

  it('news refresh=true beyond the limit is answered from the cache, never refused', async () => {
    const t = await app({ RATE_LIMIT_NEWS_REFRESH_PER_MINUTE: '1' });
    const trader = await insertSignedInTrader(t);
    const news = () => t.app.inject({ method: 'GET', url: '/api/news/?refresh=true', headers: trader.headers });
    const first = await news();
    expect(first.statusCode).toBe(200);
    expect(first.headers[NEWS_REFRESH_HEADER]).toBeUndefined();
    const second = await news();
    expect(second.statusCode).toBe(200);
    expect(second.headers[NEWS_REFRESH_HEADER]).toBe('cached');
    expect(second.json()).toHaveProperty('articles');
  });

  it('RATE_LIMITS=false turns them off', async () => {
    const t = await app({ RATE_LIMITS: 'false', RATE_LIMIT_REQUESTS_PER_SECOND: '1' });
    const trader = await insertSignedInTrader(t);
    for (let i = 0; i < 5; i++) expect((await me(t, trader.headers)).statusCode).toBe(200);
  });
});

if (redisUrl) {
  describe('HTTP rate limits on Redis', () => {
    it('every node counts a user against one shared limit', async () => {
      // Both nodes share the Redis prefix (one deployment); the run's own prefix keeps other runs apart.
      const env = {
        REDIS_URL: redisUrl,
        REDIS_CHANNEL_PREFIX: `pipdesk-rate-test-${randomBytes(4).toString('hex')}:`,
        RATE_LIMIT_REQUESTS_PER_SECOND: '4',
      };
      const [a, b] = [await app(env), await app(env)];
      const onA = await insertSignedInTrader(a);
      const onB = await insertSignedInTrader(b);
      // Each node has its own fresh database here: the first trader of each has the same id, the same user for the limit.
      expect(onA.userId).toBe(onB.userId);
      await vi.waitFor(
        async () => {
          const answers = [
            await me(a, onA.headers),
            await me(b, onB.headers),
            await me(a, onA.headers),
            await me(b, onB.headers),
          ];
          expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
          expectRefused(await me(a, onA.headers));
          expectRefused(await me(b, onB.headers));
        },
        { timeout: 10_000, interval: 1100 },
      );
      await vi.waitFor(async () => expect((await me(b, onB.headers)).statusCode).toBe(200), { timeout: 10_000, interval: 300 });
    });
  });
}
