import type { PlaceMarketOrderResponse, PositionDto } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ScriptedPriceSource } from '../market/index.js';
import { STANDBY_MS } from '../market/leader.js';
import { type FaultProxy, startFaultProxy } from '../test/fault-proxy.js';
import { freshDatabase, startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { signedInTrader } from '../test/traders.js';
import { auditAccount } from '../trading/audit.js';

const redisUrl = process.env.TEST_REDIS_URL;
const clustered = testDbKind === 'postgres' && redisUrl !== undefined;
if (!redisUrl && process.env.REQUIRE_REDIS === '1') throw new Error('REQUIRE_REDIS=1 but TEST_REDIS_URL is not set');

type Trader = Awaited<ReturnType<typeof signedInTrader>>;
type Message = Record<string, unknown> & { type: string };

/** A trading socket that keeps every message it receives. */
async function tradingSocket(app: TestApp, trader: Trader) {
  const ws = new WebSocket(`${app.url.replace('http', 'ws')}/ws/trading/`);
  const messages: Message[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
  const next = async (type: string, where: (m: Message) => boolean = () => true, timeoutMs = 10_000) =>
    vi.waitFor(
      () => {
        const found = messages.find((m) => m.type === type && where(m));
        if (!found)
          throw new Error(
            `no ${type}; the last ones: ${messages
              .slice(-12)
              .map((m) => m.type)
              .join(', ')}`,
          );
        return found;
      },
      { timeout: timeoutMs, interval: 20 },
    );
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'authenticate', token: trader.session.token }));
  await next('connection_established');
  return {
    messages,
    next,
    send: (message: object) => ws.send(JSON.stringify(message)),
    /** The positions this node holds in memory for the trader (`get_positions_update`). */
    async positions(): Promise<PositionDto[]> {
      const from = messages.length;
      ws.send(JSON.stringify({ type: 'get_positions_update' }));
      const answer = await next('positions_update', (m) => messages.indexOf(m) >= from);
      return answer.data as PositionDto[];
    },
    close: () => ws.close(),
  };
}

async function placeMarket(app: TestApp, trader: Trader, quantity: number): Promise<PlaceMarketOrderResponse> {
  const res = await app.app.inject({
    method: 'POST',
    url: '/api/trading/place-market-order/',
    headers: trader.headers,
    payload: { symbol: 'EURUSD', side: 'BUY', quantity },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as PlaceMarketOrderResponse;
}

/**
 * docs/operations.md#redis-outages-and-leadership: two nodes on one PostgreSQL, each reaching
 * Redis through its own fault proxy. Redis is cut for the leader alone, then for both nodes,
 * and healed each time. Throughout: no process exit and no unhandled error, never two leaders
 * (sampled every 10 ms, and the ticks every node receives never interleave two sources);
 * the cut node keeps serving its own traders; after healing, the other node's book holds what
 * changed during the outage and an order on one node reaches a socket on the other again.
 */
describe.skipIf(!clustered)('a Redis outage on two nodes', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const proxies: FaultProxy[] = [];
  const nodes: TestApp[] = [];
  const sources = [new ScriptedPriceSource('node-a'), new ScriptedPriceSource('node-b')];
  /** USDJPY's bid names the node whose source made the tick. */
  const markerBid = [150, 151];
  /** EURUSD as every source quotes it (a test moves it to cross a pending order). */
  let eurusd = { bid: 1.1, ask: 1.1002 };
  const timers: NodeJS.Timeout[] = [];
  const problems: string[] = [];
  /** Every USDJPY tick any node's price book took, in the order they arrived: which source made it. */
  const tickOrigins: number[] = [];
  /** Leadership terms as sampled: the node index each time the leader changed. */
  const terms: number[] = [];
  const onFault = (err: unknown) => problems.push(`unhandled: ${err instanceof Error ? err.stack : String(err)}`);
  let exitSpy: ReturnType<typeof vi.spyOn> | undefined;

  beforeAll(async () => {
    process.on('unhandledRejection', onFault);
    process.on('uncaughtException', onFault);
    exitSpy = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      problems.push(`process.exit(${code})`);
    }) as typeof process.exit);
    db = await freshDatabase();
    const target = new URL(redisUrl!);
    for (const source of sources) {
      const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
      proxies.push(proxy);
      const viaProxy = new URL(redisUrl!);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      source.push({ symbol: 'EURUSD', bid: 1.1, ask: 1.1002, timestamp: Date.now() });
      nodes.push(
        await startTestApp({
          ...db,
          keep: true,
          listen: true,
          priceSource: source,
          env: { CHART_HISTORY_DAYS: '0', REDIS_URL: viaProxy.toString() },
        }),
      );
    }
    for (const node of nodes) {
      node.market.prices.onTick((quote) => {
        if (quote.symbol === 'USDJPY') tickOrigins.push(markerBid.indexOf(Math.round(quote.bid)));
      });
    }
    // Each source ticks while it runs, as a live feed would.
    timers.push(
      setInterval(() => {
        sources.forEach((source, i) => {
          if (!source.connected()) return;
          source.push({ symbol: 'EURUSD', ...eurusd, timestamp: Date.now() });
          source.push({ symbol: 'USDJPY', bid: markerBid[i]!, ask: markerBid[i]! + 0.02, timestamp: Date.now() });
        });
      }, 50),
      setInterval(() => {
        const leaders = nodes.flatMap((node, i) => (node.market.isLeader() ? [i] : []));
        const running = sources.filter((s) => s.connected()).length;
        if (leaders.length > 1) problems.push(`two leaders at ${Date.now()}`);
        if (running > 1) problems.push(`two price sources running at ${Date.now()}`);
        if (leaders.length === 1 && terms.at(-1) !== leaders[0]) terms.push(leaders[0]!);
      }, 10),
    );
    expect(nodes.map((n) => n.market.isLeader())).toEqual([true, false]);
    await vi.waitFor(() => expect(nodes[1]!.market.prices.latest('EURUSD')).toBeDefined(), { timeout: 5_000 });
  });

  afterAll(async () => {
    for (const timer of timers) clearInterval(timer);
    for (const node of nodes) await node.close();
    for (const proxy of proxies) await proxy.close();
    await db?.drop();
    exitSpy?.mockRestore();
    process.off('unhandledRejection', onFault);
    process.off('uncaughtException', onFault);
  });

  it('Redis cut for the leader: it keeps serving its traders, hands over, and the other node catches up after healing', async () => {
    const [a, b] = [nodes[0]!, nodes[1]!];
    const trader = await signedInTrader(a);
    const onB = await tradingSocket(b, trader);
    onB.send({ type: 'subscribe_to_pnl' });
    await onB.next('pnl_subscription_confirmed');
    const opened = await placeMarket(a, trader, 0.1);
    await onB.next('order_confirmation', (m) => (m.data as PlaceMarketOrderResponse).order.id === opened.order.id);

    // An order in flight as the link drops still gets its answer.
    const inFlight = placeMarket(a, trader, 0.1);
    proxies[0]!.cut();
    await vi.waitFor(() => expect(a.ctx.bus.healthy()).toBe(false), { timeout: 3_000, interval: 10 });
    expect((await inFlight).position.quantity).toBe(0.2);
    // The cut node serves its own traders: their socket there still hears of their orders.
    const local = await signedInTrader(a);
    const onA = await tradingSocket(a, local);
    const localOrder = await placeMarket(a, local, 0.2);
    await onA.next('order_confirmation', (m) => (m.data as PlaceMarketOrderResponse).order.id === localOrder.order.id);
    const health = await a.app.inject({ method: 'GET', url: '/api/health/' });
    expect(JSON.stringify(health.json())).toMatch(/"bus":\{[^}]*"ok":false/);

    // The leader lost its bus: it steps down and the node that can still publish leads.
    await vi.waitFor(() => expect([a.market.isLeader(), b.market.isLeader()]).toEqual([false, true]), {
      timeout: STANDBY_MS - 1_000,
      interval: 20,
    });
    // A pending order placed on the cut node: the leader's order engine cannot hear of it yet.
    const pending = await a.app.inject({
      method: 'POST',
      url: '/api/trading/place-pending-order/',
      headers: local.headers,
      payload: { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, order_type: 'LIMIT', price: 1.099 },
    });
    expect(pending.statusCode, pending.body).toBe(201);
    const pendingId = (pending.json().data.order as { id: number }).id;
    // The trader's position grows on the cut node; the other node cannot know yet.
    const grown = await placeMarket(a, trader, 0.2);
    expect(grown.position.quantity).toBe(0.4);
    expect((await onB.positions()).map((p) => p.quantity)).toEqual([0.1]);

    proxies[0]!.heal();
    await vi.waitFor(() => expect(a.ctx.bus.healthy()).toBe(true), { timeout: 10_000, interval: 20 });
    // The other node reloads from the database and tells the trader's socket.
    await onB.next('positions_update', (m) => (m.data as PositionDto[]).some((p) => p.quantity === 0.4));
    expect((await onB.positions()).map((p) => [p.id, p.quantity])).toEqual([[grown.position.id, 0.4]]);
    // Its account figures too: the same as on the node that executed every order.
    const figures = async (socket: Awaited<ReturnType<typeof tradingSocket>>) => {
      const from = socket.messages.length;
      socket.send({ type: 'subscribe_to_pnl' });
      return (await socket.next('account_update', (m) => socket.messages.indexOf(m) >= from)).data;
    };
    const onAForTrader = await tradingSocket(a, trader);
    const truth = await figures(onAForTrader);
    expect(truth).toMatchObject({ margin_used: expect.any(Number) });
    expect((truth as { margin_used: number }).margin_used).toBeGreaterThan(0);
    expect(await figures(onB)).toEqual(truth);
    onAForTrader.close();
    // The leader's engine reloaded its armed orders: the pending order placed during the outage fills when crossed.
    eurusd = { bid: 1.0985, ask: 1.0987 };
    await vi.waitFor(
      async () => {
        const res = await b.app.inject({ method: 'GET', url: '/api/trading/orders/?page_size=100', headers: local.headers });
        expect((res.json().results as Array<{ id: number; status: string }>).find((o) => o.id === pendingId)?.status).toBe(
          'FILLED',
        );
      },
      { timeout: 5_000, interval: 100 },
    );
    eurusd = { bid: 1.1, ask: 1.1002 };

    // Cross-node delivery is back: an order on the healed node reaches the socket on the other.
    const after = await placeMarket(a, trader, 0.1);
    await onB.next('order_confirmation', (m) => (m.data as PlaceMarketOrderResponse).order.id === after.order.id);
    expect(b.market.isLeader()).toBe(true);
    onA.close();
    onB.close();
    for (const t of [trader, local]) expect(await auditAccount(a.ctx.db, t.account!.accountId)).toEqual([]);
    expect(problems).toEqual([]);
  }, 40_000);

  it('Redis cut for every node: one of them leads alone, and after healing both deliver across again', async () => {
    const [a, b] = [nodes[0]!, nodes[1]!];
    for (const proxy of proxies) proxy.cut();
    await vi.waitFor(() => expect([a.ctx.bus.healthy(), b.ctx.bus.healthy()]).toEqual([false, false]), {
      timeout: 3_000,
      interval: 10,
    });
    // The leader lost its bus: it steps down. No node can publish: after its standby one leads anyway, for its own traders.
    await vi.waitFor(() => expect(nodes.filter((n) => n.market.isLeader())).toHaveLength(0), {
      timeout: 5_000,
      interval: 20,
    });
    await vi.waitFor(() => expect(nodes.filter((n) => n.market.isLeader())).toHaveLength(1), {
      timeout: STANDBY_MS + 8_000,
      interval: 50,
    });
    const alone = nodes.findIndex((n) => n.market.isLeader());
    const seenBefore = tickOrigins.length;
    await vi.waitFor(() => expect(tickOrigins.slice(seenBefore)).toContain(alone), { timeout: 3_000, interval: 20 });
    const trader = await signedInTrader(nodes[alone]!);
    await placeMarket(nodes[alone]!, trader, 0.1);

    for (const proxy of proxies) proxy.heal();
    await vi.waitFor(() => expect([a.ctx.bus.healthy(), b.ctx.bus.healthy()]).toEqual([true, true]), {
      timeout: 10_000,
      interval: 20,
    });
    const other = nodes[1 - alone]!;
    const onOther = await tradingSocket(other, trader);
    // The node that did not lead hears the leader's ticks again.
    const seenHealed = tickOrigins.length;
    await vi.waitFor(() => expect(tickOrigins.slice(seenHealed).filter((o) => o === alone).length).toBeGreaterThan(2), {
      timeout: 5_000,
      interval: 20,
    });
    // The position opened during the outage is in the other node's book, and orders cross again.
    await vi.waitFor(async () => expect((await onOther.positions()).map((p) => p.quantity)).toEqual([0.1]), {
      timeout: 5_000,
      interval: 100,
    });
    const after = await placeMarket(nodes[alone]!, trader, 0.1);
    await onOther.next('order_confirmation', (m) => (m.data as PlaceMarketOrderResponse).order.id === after.order.id);
    onOther.close();
    expect(await auditAccount(a.ctx.db, trader.account!.accountId)).toEqual([]);

    // Never two leaders: the ticks every node received switch source only when leadership moved.
    let switches = 0;
    for (let i = 1; i < tickOrigins.length; i++) if (tickOrigins[i] !== tickOrigins[i - 1]) switches++;
    expect(terms.length).toBeGreaterThanOrEqual(2);
    expect(switches).toBeLessThanOrEqual(terms.length - 1);
    expect(problems).toEqual([]);
  }, 40_000);
});
