import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedPriceSource } from '../market/index.js';
import { type FaultProxy, startFaultProxy } from '../test/fault-proxy.js';
import { freshDatabase, startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { signedInTrader } from '../test/traders.js';
import { auditAccount } from '../trading/audit.js';

const redisUrl = process.env.TEST_REDIS_URL;
const clustered = testDbKind === 'postgres' && redisUrl !== undefined;

/** Short, so the test waits little; the rule is the same at the default 10 s. */
const STALE_MS = 1_500;

/**
 * docs/trading-rules.md#no-fill-on-a-stale-quote on two nodes: the follower gets its ticks over
 * Redis. Cut from Redis it keeps its last prices but, once they are older than the stale limit,
 * rejects market orders NO_PRICE (and its health names the stale pairs) while the leader keeps
 * filling; healed, its ticks come back and it fills again.
 */
describe.skipIf(!clustered)('a node cut from Redis stops filling once its quotes are stale', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const proxies: FaultProxy[] = [];
  const nodes: TestApp[] = [];
  const sources = [new ScriptedPriceSource('node-a'), new ScriptedPriceSource('node-b')];
  let timer: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    db = await freshDatabase();
    const target = new URL(redisUrl!);
    for (const source of sources) {
      const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
      proxies.push(proxy);
      const viaProxy = new URL(redisUrl!);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      nodes.push(
        await startTestApp({
          ...db,
          keep: true,
          priceSource: source,
          env: { CHART_HISTORY_DAYS: '0', REDIS_URL: viaProxy.toString(), EXTERNAL_FEED_STALE_MS: String(STALE_MS) },
        }),
      );
    }
    // The running source (the leader's) ticks as a live feed would.
    timer = setInterval(() => {
      for (const source of sources)
        if (source.connected()) source.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1002, timestamp: Date.now() });
    }, 50);
    expect(nodes.map((n) => n.market.isLeader())).toEqual([true, false]);
    await vi.waitFor(() => expect(nodes[1]!.market.prices.latest('EURUSD')).toBeDefined(), { timeout: 5_000 });
  });

  afterAll(async () => {
    if (timer) clearInterval(timer);
    for (const node of nodes) await node.close();
    for (const proxy of proxies) await proxy.close();
    await db?.drop();
  });

  it('rejects NO_PRICE on the cut follower after the limit, fills on the leader meanwhile, and fills again after the heal', async () => {
    const [leader, follower] = [nodes[0]!, nodes[1]!];
    const trader = await signedInTrader(follower);
    const buy = (node: TestApp) =>
      node.app.inject({
        method: 'POST',
        url: '/api/trading/place-market-order/',
        headers: trader.headers,
        payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.01 },
      });
    expect((await buy(follower)).statusCode).toBe(201);

    proxies[1]!.cut();
    await vi.waitFor(() => expect(follower.ctx.bus.healthy()).toBe(false), { timeout: 3_000, interval: 10 });
    const cutAt = Date.now();
    // Its last quote ages: within the limit it still fills, then every order is rejected.
    await vi.waitFor(
      async () => {
        const res = await buy(follower);
        expect(res.statusCode, res.body).toBe(422);
        expect(res.json()).toMatchObject({ code: 'NO_PRICE', error: 'No price available for EURUSD' });
      },
      { timeout: STALE_MS + 3_000, interval: 100 },
    );
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(STALE_MS - 500);
    const health = (await follower.app.inject({ method: 'GET', url: '/api/health/' })).json().data;
    expect(health.price_source.stale_pairs).toContainEqual({ symbol: 'EURUSD', age_ms: expect.any(Number) });
    const eurusd = health.price_source.stale_pairs.find((p: { symbol: string }) => p.symbol === 'EURUSD');
    expect(eurusd.age_ms).toBeGreaterThan(STALE_MS);
    // The leader still sees its own feed: its orders fill.
    expect((await buy(leader)).statusCode).toBe(201);

    proxies[1]!.heal();
    await vi.waitFor(() => expect(follower.ctx.bus.healthy()).toBe(true), { timeout: 10_000, interval: 20 });
    await vi.waitFor(
      async () => {
        const res = await buy(follower);
        expect(res.statusCode, res.body).toBe(201);
      },
      { timeout: 5_000, interval: 100 },
    );
    const after = (await follower.app.inject({ method: 'GET', url: '/api/health/' })).json().data;
    expect(after.price_source.stale_pairs.map((p: { symbol: string }) => p.symbol)).not.toContain('EURUSD');
    expect(await auditAccount(follower.ctx.db, trader.account!.accountId)).toEqual([]);
  }, 40_000);
});
