import { type Alert, alertAnswerSchema, alertsSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ScriptedPriceSource } from '../market/index.js';
import { insertSignedInTrader } from '../test/factories.js';
import type { TestApp } from '../test/helpers.js';
import { clustered, startNodes, type TestNodes } from '../test/nodes.js';

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

/**
 * docs/charting.md#alerts on several nodes (PostgreSQL + Redis): the price-source leader
 * evaluates every alert, whichever node it was set on; the fire reaches the trader's socket on
 * whichever node holds it, once; when the leader goes away, the next one loads the ACTIVE alerts
 * and fires them. Without PostgreSQL and Redis the first case runs on one node.
 */
describe(
  clustered ? 'price alerts across two nodes' : 'price alerts on one node (two nodes need PostgreSQL and TEST_REDIS_URL)',
  () => {
    let nodes: TestNodes;
    const sources = [new ScriptedPriceSource('first'), new ScriptedPriceSource('second')];
    let leader: TestApp;
    let follower: TestApp;
    const tick = (source: ScriptedPriceSource, bid: number, ask: number) =>
      source.push({ symbol: 'EURUSD', bid, ask, timestamp: Date.now() });

    beforeAll(async () => {
      tick(sources[0]!, 1.1, 1.1002);
      nodes = await startNodes(sources, { listen: true });
      ({ leader, follower } = nodes);
    });
    afterAll(async () => {
      await nodes?.close();
    });

    async function createOn(app: TestApp, trader: Trader, body: object): Promise<Alert> {
      const res = await app.app.inject({ method: 'POST', url: '/api/trading/alerts/', headers: trader.headers, payload: body });
      expect(res.statusCode, res.body).toBe(201);
      return alertAnswerSchema.parse(res.json().data).alert;
    }

    async function alertOn(app: TestApp, trader: Trader, id: number): Promise<Alert> {
      const res = await app.app.inject({ method: 'GET', url: '/api/trading/alerts/', headers: trader.headers });
      return alertsSchema.parse(res.json().data).find((a) => a.id === id)!;
    }

    async function socketOn(app: TestApp, trader: Trader) {
      const ws = new WebSocket(`${app.url.replace('http', 'ws')}/ws/trading/`);
      const messages: Array<{ type: string; data?: { alert?: Alert } }> = [];
      ws.on('message', (data) => messages.push(JSON.parse(String(data))));
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'authenticate', token: trader.token }));
      await vi.waitFor(() => expect(messages.some((m) => m.type === 'connection_established')).toBe(true));
      return { ws, alertUpdates: () => messages.filter((m) => m.type === 'alert_update').map((m) => m.data!.alert!) };
    }

    it('an alert set on one node fires once on the leader, and its notice reaches the trader’s socket on the other', async () => {
      // Set where the leader is not (it learns over the bus), heard where it is not (the notice crosses back) — and the other way round.
      const [setOnFollower, setOnLeader] = [await insertSignedInTrader(follower), await insertSignedInTrader(leader)];
      const onLeader = await socketOn(leader, setOnFollower);
      const onFollower = await socketOn(follower, setOnLeader);
      const a = await createOn(follower, setOnFollower, { symbol: 'EURUSD', condition: 'bid_above', price: 1.101 });
      const b = await createOn(leader, setOnLeader, { symbol: 'EURUSD', condition: 'ask_above', price: 1.1012 });
      await new Promise((r) => setTimeout(r, 100)); // the creation travels to the leader over the bus

      tick(sources[0]!, 1.101, 1.1012);
      tick(sources[0]!, 1.102, 1.1022); // crosses both again
      await vi.waitFor(() => expect(onLeader.alertUpdates().map((x) => x.id)).toEqual([a.id]), { timeout: 5_000 });
      await vi.waitFor(() => expect(onFollower.alertUpdates().map((x) => x.id)).toEqual([b.id]), { timeout: 5_000 });
      expect(onLeader.alertUpdates()[0]).toMatchObject({ status: 'TRIGGERED', triggered_price: 1.101 });
      expect(onFollower.alertUpdates()[0]).toMatchObject({ status: 'TRIGGERED', triggered_price: 1.1012 });
      expect(await alertOn(follower, setOnFollower, a.id)).toEqual(onLeader.alertUpdates()[0]);
      await new Promise((r) => setTimeout(r, 300)); // time for a wrongful second fire or message
      expect(onLeader.alertUpdates()).toHaveLength(1);
      expect(onFollower.alertUpdates()).toHaveLength(1);
      onLeader.ws.close();
      onFollower.ws.close();
      tick(sources[0]!, 1.1, 1.1002);
    });

    it.skipIf(!clustered)('when the leader goes away, the next one loads the ACTIVE alerts and fires them', async () => {
      const trader = await insertSignedInTrader(follower);
      const before = await createOn(follower, trader, { symbol: 'EURUSD', condition: 'bid_below', price: 1.099 });
      const socket = await socketOn(follower, trader);
      await leader.close();
      nodes.apps.splice(nodes.apps.indexOf(leader), 1);
      await vi.waitFor(() => expect(follower.market.isLeader()).toBe(true), { timeout: 15_000, interval: 50 });
      const after = await createOn(follower, trader, { symbol: 'EURUSD', condition: 'ask_below', price: 1.0992 });
      // Ticks keep coming; the first ones may arrive while the new leader is still loading.
      await vi.waitFor(
        async () => {
          tick(sources[1]!, 1.0985, 1.0987);
          expect((await alertOn(follower, trader, before.id)).status).toBe('TRIGGERED');
          expect((await alertOn(follower, trader, after.id)).status).toBe('TRIGGERED');
        },
        { timeout: 10_000, interval: 100 },
      );
      await vi.waitFor(() =>
        expect(
          socket
            .alertUpdates()
            .map((x) => x.id)
            .sort(),
        ).toEqual([before.id, after.id].sort()),
      );
      socket.ws.close();
    });
  },
);
