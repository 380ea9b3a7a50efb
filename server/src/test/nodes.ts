import type { PriceSource } from '../market/index.js';
import { freshDatabase, startTestApp, type TestApp, testDbKind } from './helpers.js';

const redisUrl = process.env.TEST_REDIS_URL;

/** Whether the many-node tests run on two nodes: PostgreSQL and Redis are both there. */
export const clustered = testDbKind === 'postgres' && redisUrl !== undefined;

export interface TestNodes {
  /** Every node still running; a test that stops one takes it out, so `close` does not close it again. */
  apps: TestApp[];
  /** The first node, on `sources[0]`: the price-source leader. */
  leader: TestApp;
  /** The second node when `clustered`, else the leader itself. */
  follower: TestApp;
  close(): Promise<void>;
}

/**
 * Nodes over one fresh database (docs/operations.md#one-process-or-many): the first on
 * `sources[0]`, which leads, and, when `clustered`, a second on `sources[1]` joined to it over
 * Redis. Without PostgreSQL and Redis, one node, so a many-node test runs its scenario there.
 */
export async function startNodes(sources: readonly PriceSource[], options: { listen?: boolean } = {}): Promise<TestNodes> {
  const db = await freshDatabase();
  const apps: TestApp[] = [];
  for (const priceSource of clustered ? sources.slice(0, 2) : sources.slice(0, 1)) {
    apps.push(
      await startTestApp({
        ...db,
        keep: true,
        listen: options.listen ?? false,
        priceSource,
        env: { CHART_HISTORY_DAYS: '0', ...(clustered ? { REDIS_URL: redisUrl! } : {}) },
      }),
    );
  }
  const leads = apps.map((a) => a.market.isLeader());
  if (clustered && (leads[0] !== true || leads[1] !== false)) throw new Error(`expected the first node to lead, got ${leads}`);
  return {
    apps,
    leader: apps[0]!,
    follower: apps.at(-1)!,
    close: async () => {
      for (const a of apps) await a.close();
      await db.drop();
    },
  };
}
