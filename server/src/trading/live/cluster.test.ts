import type { OrderDto, PlaceMarketOrderResponse } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ScriptedPriceSource } from '../../market/index.js';
import { insertSignedInTrader } from '../../test/factories.js';
import type { TestApp } from '../../test/helpers.js';
import { clustered, startNodes, type TestNodes } from '../../test/nodes.js';
import { auditAccount } from '../audit.js';

/**
 * docs/operations.md#one-process-or-many: several nodes behind a load balancer (PostgreSQL + Redis). A trader's socket on
 * one node hears about executions on another, follows the leader's ticks, and only the leader
 * runs stop-outs (exactly one close per position). Without PostgreSQL and Redis the same
 * scenario runs on one node.
 */
describe(
  clustered
    ? 'live trading across two nodes'
    : 'live trading on one node (the two-node case runs with PostgreSQL and TEST_REDIS_URL)',
  () => {
    let nodes: TestNodes;
    const leaderPrices = new ScriptedPriceSource();
    let orderNode: TestApp;
    let socketNode: TestApp;
    const tick = (symbol: string, bid: number, ask: number) => leaderPrices.push({ symbol, bid, ask, timestamp: Date.now() });

    beforeAll(async () => {
      tick('EURUSD', 1.1, 1.1001);
      tick('GBPUSD', 1.3, 1.3002);
      nodes = await startNodes([leaderPrices, new ScriptedPriceSource()], { listen: true });
      ({ leader: orderNode, follower: socketNode } = nodes);
    });
    afterAll(async () => {
      await nodes?.close();
    });

    it('confirms on one node an order executed on another, and streams the leader’s prices there', async () => {
      const trader = await insertSignedInTrader(orderNode);
      const ws = new WebSocket(`${socketNode.url.replace('http', 'ws')}/ws/trading/`);
      const messages: Array<Record<string, unknown> & { type: string }> = [];
      ws.on('message', (data) => messages.push(JSON.parse(String(data))));
      const waitFor = async (type: string, where: (m: Record<string, unknown>) => boolean = () => true) => {
        const deadline = Date.now() + 5_000;
        for (;;) {
          const found = messages.find((m) => m.type === type && where(m));
          if (found) return found;
          if (Date.now() > deadline) throw new Error(`no ${type}; got ${messages.map((m) => m.type).join(', ')}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'authenticate', token: trader.token }));
      await waitFor('connection_established');
      ws.send(JSON.stringify({ type: 'subscribe_to_pnl' }));
      await waitFor('pnl_subscription_confirmed');

      const res = await orderNode.app.inject({
        method: 'POST',
        url: '/api/trading/place-market-order/',
        headers: trader.headers,
        payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.2 },
      });
      expect(res.statusCode).toBe(201);
      const placed = res.json().data as PlaceMarketOrderResponse;
      const confirmation = await waitFor('order_confirmation');
      expect(confirmation.data).toEqual(placed);

      tick('EURUSD', 1.1011, 1.1012); // +10 pips on 0.2 lot: +20.00 USD
      const batch = await waitFor('pnl_batch_update', (m) =>
        (m.updates as Array<{ current_price: number }>).some((u) => u.current_price === 1.1011),
      );
      expect(batch.updates).toEqual([{ position_id: placed.position.id, unrealized_pnl: 20, current_price: 1.1011 }]);
      await waitFor('price_update', (m) => m.symbol === 'EURUSD' && m.bid === 1.1011);
      ws.close();
      tick('EURUSD', 1.1, 1.1001);
    });

    it('stops out once across nodes: each position closed exactly once', async () => {
      const trader = await insertSignedInTrader(orderNode, { balanceMinor: 100_000 });
      for (const [symbol, quantity] of [
        ['EURUSD', 0.5],
        ['GBPUSD', 0.3],
      ] as const) {
        const res = await orderNode.app.inject({
          method: 'POST',
          url: '/api/trading/place-market-order/',
          headers: trader.headers,
          payload: { symbol, side: 'BUY', quantity },
        });
        expect(res.statusCode).toBe(201);
      }
      tick('GBPUSD', 1.2, 1.2002); // gap: equity far below 0
      const deadline = Date.now() + 10_000;
      let orders: OrderDto[] = [];
      for (;;) {
        const res = await socketNode.app.inject({
          method: 'GET',
          url: '/api/trading/orders/?page_size=100',
          headers: trader.headers,
        });
        orders = res.json().results as OrderDto[];
        if (orders.filter((o) => o.reason === 'stop_out').length >= 2 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300)); // time for a wrongful second close to show up
      const res = await socketNode.app.inject({
        method: 'GET',
        url: '/api/trading/orders/?page_size=100',
        headers: trader.headers,
      });
      orders = res.json().results as OrderDto[];
      const stopOuts = orders.filter((o) => o.reason === 'stop_out').sort((a, b) => a.id - b.id);
      expect(stopOuts.map((o) => [o.fx_pair_symbol, o.status])).toEqual([
        ['GBPUSD', 'FILLED'],
        ['EURUSD', 'FILLED'],
      ]);
      const platform = (
        await socketNode.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers: trader.headers })
      ).json().data;
      expect(platform.trading_account.balance).toBe(0);
      expect(await auditAccount(orderNode.ctx.db, trader.accountId!)).toEqual([]);
      tick('GBPUSD', 1.3, 1.3002);
    });
  },
);
