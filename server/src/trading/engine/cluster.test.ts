import type { OrderDto } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedPriceSource } from '../../market/index.js';
import { insertSignedInTrader } from '../../test/factories.js';
import type { TestApp } from '../../test/helpers.js';
import { clustered, startNodes, type TestNodes } from '../../test/nodes.js';
import { auditAccount } from '../audit.js';

/**
 * docs/order-engine.md#the-engine on several nodes (PostgreSQL + Redis): orders are placed on
 * a node that does not lead, the leader triggers them; when the leader goes away, the next one
 * loads everything from the database and triggers what it holds. Without PostgreSQL and Redis
 * the first case runs on one node and the second is skipped.
 */
describe(
  clustered ? 'the order engine across two nodes' : 'the order engine on one node (two nodes need PostgreSQL and TEST_REDIS_URL)',
  () => {
    let nodes: TestNodes;
    const sources = [new ScriptedPriceSource('first'), new ScriptedPriceSource('second')];
    let leader: TestApp;
    let follower: TestApp;
    const tick = (source: ScriptedPriceSource, bid: number, ask: number) =>
      source.push({ symbol: 'EURUSD', bid, ask, timestamp: Date.now() });

    beforeAll(async () => {
      tick(sources[0]!, 1.1, 1.1002);
      nodes = await startNodes(sources);
      ({ leader, follower } = nodes);
      // The follower prices orders with the leader's ticks, which reach it over the bus.
      await vi.waitFor(
        () => {
          tick(sources[0]!, 1.1, 1.1002);
          expect(follower.market.prices.latest('EURUSD')).toBeDefined();
        },
        { timeout: 5_000, interval: 50 },
      );
    });
    afterAll(async () => {
      await nodes?.close();
    });

    /** A tick that has reached the follower: its quote must not be stale when an order comes, however slow the machine. */
    async function freshTick(): Promise<void> {
      const before = follower.market.prices.latest('EURUSD');
      await vi.waitFor(
        () => {
          tick(sources[0]!, 1.1, 1.1002);
          expect(follower.market.prices.latest('EURUSD')).not.toBe(before);
        },
        { timeout: 5_000, interval: 50 },
      );
    }

    async function orderOn(app: TestApp, t: Awaited<ReturnType<typeof insertSignedInTrader>>, id: number): Promise<OrderDto> {
      const res = await app.app.inject({ method: 'GET', url: '/api/trading/orders/?page_size=100', headers: t.headers });
      return (res.json().results as OrderDto[]).find((o) => o.id === id)!;
    }

    async function placeOn(app: TestApp, t: Awaited<ReturnType<typeof insertSignedInTrader>>, body: object): Promise<OrderDto> {
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/trading/place-pending-order/',
        headers: t.headers,
        payload: { symbol: 'EURUSD', quantity: 0.1, ...body },
      });
      expect(res.statusCode).toBe(201);
      return res.json().data.order as OrderDto;
    }

    it('an order placed on a node that does not lead triggers on the leader, once', async () => {
      const t = await insertSignedInTrader(follower);
      const order = await placeOn(follower, t, { side: 'BUY', order_type: 'LIMIT', price: 1.099 });
      await new Promise((r) => setTimeout(r, 100)); // the placement travels to the leader over the bus
      tick(sources[0]!, 1.0985, 1.0987);
      const filled = await vi.waitFor(
        async () => {
          const o = await orderOn(follower, t, order.id);
          expect(o.status).toBe('FILLED');
          return o;
        },
        { timeout: 5_000, interval: 25 },
      );
      expect(filled.average_fill_price).toBe(1.0987);
      await new Promise((r) => setTimeout(r, 200)); // time for a wrongful second fill to show up
      const platform = await follower.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers: t.headers });
      expect(platform.json().data.recent_trades.filter((x: { order: number }) => x.order === order.id)).toHaveLength(1);
      expect(await auditAccount(follower.ctx.db, t.accountId!)).toEqual([]);
      tick(sources[0]!, 1.1, 1.1002);
    });

    it.skipIf(!clustered)('when the leader goes away, the next one loads the armed orders and triggers them', async () => {
      const t = await insertSignedInTrader(follower);
      const before = await placeOn(follower, t, { side: 'SELL', order_type: 'LIMIT', price: 1.101 });
      // Another trader's position, so the pending fills do not net with it.
      const t2 = await insertSignedInTrader(follower);
      await freshTick();
      const stopLoss = await follower.app.inject({
        method: 'POST',
        url: '/api/trading/place-market-order/',
        headers: t2.headers,
        payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.2, stop_loss: 1.095 },
      });
      expect(stopLoss.statusCode).toBe(201);

      await leader.close();
      nodes.apps.splice(nodes.apps.indexOf(leader), 1);
      await vi.waitFor(() => expect(follower.market.isLeader()).toBe(true), { timeout: 15_000, interval: 50 });
      // Placed once the new leader leads: it learns of it over the bus.
      const after = await placeOn(follower, t, { side: 'BUY', order_type: 'STOP', price: 1.1015 });

      // Ticks keep coming; the first ones may arrive while the new leader is still loading.
      const crossing = async (bid: number, ask: number, check: () => Promise<void>) =>
        vi.waitFor(
          async () => {
            tick(sources[1]!, bid, ask);
            await check();
          },
          { timeout: 10_000, interval: 100 },
        );
      await crossing(1.1015, 1.1017, async () => {
        expect((await orderOn(follower, t, before.id)).status).toBe('FILLED');
        expect((await orderOn(follower, t, after.id)).status).toBe('FILLED');
      });
      await crossing(1.0949, 1.0951, async () => {
        const res = await follower.app.inject({ method: 'GET', url: '/api/trading/orders/?page_size=100', headers: t2.headers });
        const close = (res.json().results as OrderDto[]).find((o) => o.reason === 'stop_loss');
        expect(close?.status).toBe('FILLED');
      });
      for (const trader of [t, t2]) expect(await auditAccount(follower.ctx.db, trader.accountId!)).toEqual([]);
    });
  },
);
