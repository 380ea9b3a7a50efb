import { describe, expect, it } from 'vitest';
import { freshDatabase, startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { ScriptedPriceSource } from './sources/scripted.js';

const redisUrl = process.env.TEST_REDIS_URL;
const clustered = testDbKind === 'postgres' && redisUrl !== undefined;

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('who runs the price source', () => {
  it('a single process with the in-memory bus always does', async () => {
    const source = new ScriptedPriceSource();
    const t = await startTestApp({ priceSource: source, env: { CHART_HISTORY_DAYS: '0' } });
    try {
      expect(t.market.isLeader()).toBe(true);
      expect(source.connected()).toBe(true);
      source.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1001, timestamp: t.ctx.clock.now() });
      expect(t.market.prices.latest('EURUSD')?.bid).toBe(1.1);
    } finally {
      await t.close();
    }
  });

  it(clustered
    ? 'with PostgreSQL and Redis exactly one node does, the others get its ticks, and one takes over when it stops'
    : 'without PostgreSQL and Redis every process runs its own (the cluster case runs on the PostgreSQL suite with TEST_REDIS_URL)', async () => {
    const db = await freshDatabase();
    const sources = [new ScriptedPriceSource(), new ScriptedPriceSource()];
    const apps: TestApp[] = [];
    try {
      for (const priceSource of sources) {
        apps.push(
          await startTestApp({
            ...db,
            keep: true,
            priceSource,
            env: { CHART_HISTORY_DAYS: '0', ...(clustered ? { REDIS_URL: redisUrl! } : {}) },
          }),
        );
      }
      if (!clustered) {
        expect(apps.map((a) => a.market.isLeader())).toEqual([true, true]);
        return;
      }
      expect(apps.map((a) => a.market.isLeader())).toEqual([true, false]);
      expect(sources.map((s) => s.connected())).toEqual([true, false]);
      // A tick of the leader reaches the follower's price book through Redis.
      sources[0]!.push({ symbol: 'AUDJPY', bid: 97.123, ask: 97.147, timestamp: apps[0]!.ctx.clock.now() });
      await until(() => apps[1]!.market.prices.latest('AUDJPY')?.bid === 97.123, 3000);
      expect(apps[1]!.market.health()).toMatchObject({ name: 'scripted', connected: true });
      // The leader stops: PostgreSQL releases its lock and the other node takes over.
      await apps.shift()!.close();
      await until(() => apps[0]!.market.isLeader(), 10_000);
      await until(() => sources[1]!.connected(), 2000);
    } finally {
      for (const a of apps) await a.close();
      await db.drop();
    }
  }, 30_000);
});
