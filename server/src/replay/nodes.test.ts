import { orderSchema, pairPriceSchema, replayAnswerSchema, replayDetailSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededPairs } from '../market/catalogue.js';
import { loadReplayData, type Quote } from '../market/index.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { freshDatabase, startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { PriceSocketClient as PriceClient } from '../test/price-socket-client.js';
import { TradingSocketClient as Client } from '../test/trading-socket-client.js';
import { PAUSE_UNWATCHED_MS, PLAY_EVERY_MS } from './play-loop.js';
import { SessionMarket } from './session-market.js';

/**
 * A replay session served by two nodes over one database (docs/replay.md#many-nodes): the row is
 * the truth and each node's copy catches up with it before a call uses it, so a call on one node
 * acts at the clock another node moved the session to and sees the orders placed there; one node
 * moves a session at a time (its lease), and a node that stops gives its leases up. With
 * PostgreSQL and TEST_REDIS_URL the nodes are joined over Redis too, as in production.
 */

const MINUTE = 60_000;
const START = Date.UTC(2023, 3, 4, 7, 0, 0);
const STEP_MINUTES = 60;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const redisUrl = testDbKind === 'postgres' ? process.env.TEST_REDIS_URL : undefined;
const EURUSD = seededPairs().filter((p) => p.symbol === 'EURUSD');

/** The session's EURUSD ticks from START to `until`, from the pure market (what both nodes must agree with). */
function ticksTo(until: number): { start: Quote; played: Quote[]; at: Quote } {
  const market = new SessionMarket({ data: loadReplayData(), pairs: EURUSD, clock: START });
  const start = market.quote('EURUSD')!;
  const played: Quote[] = [];
  market.advanceTo(until, (q) => played.push(q));
  return { start, played, at: market.quote('EURUSD')! };
}

describe('a replay session on two nodes', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const apps: TestApp[] = [];
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    db = await freshDatabase();
    for (const name of ['a', 'b']) {
      const prices = new ScriptedPriceSource(name);
      prices.push({ symbol: 'EURUSD', bid: 1.2, ask: 1.2002, timestamp: Date.now() });
      apps.push(
        await startTestApp({
          dataDir: db.dataDir,
          ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}),
          keep: true,
          listen: true,
          priceSource: prices,
          env: { CHART_HISTORY_DAYS: '0', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) },
        }),
      );
    }
    [a, b] = apps as [TestApp, TestApp];
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
  });

  async function session() {
    const me = await insertSignedInTrader(a);
    const on = (app: TestApp) => (method: 'GET' | 'POST', url: string, payload?: object) =>
      app.app.inject({ method, url, headers: me.headers, ...(payload ? { payload } : {}) });
    const created = await on(a)('POST', '/api/trading/replays/', { symbols: ['EURUSD'], start: iso(START) });
    expect(created.statusCode, created.body).toBe(201);
    const replay = replayAnswerSchema.parse(created.json().data).replay;
    const url = `/api/trading/replays/${replay.id}/`;
    const account = `?account=${replay.account_id}`;
    const priceOn = async (app: TestApp) => {
      const res = await on(app)('GET', `/api/trading/pair/EURUSD/price/${account}`);
      expect(res.statusCode, res.body).toBe(200);
      return pairPriceSchema.parse(res.json().data);
    };
    const clockOn = async (app: TestApp) => replayDetailSchema.parse((await on(app)('GET', url)).json().data).replay.clock;
    const stored = async () =>
      a.ctx.db.kysely
        .selectFrom('replay_sessions')
        .select(['clock', 'status', 'mover', 'lease_until'])
        .where('id', '=', replay.id)
        .executeTakeFirstOrThrow();
    return { me, on, replay, url, account, priceOn, clockOn, stored };
  }

  it('a step on one node moves the session for the other: its prices, its orders and its next step', async () => {
    const { me, on, url, replay, account, priceOn } = await session();
    const { start, played, at } = ticksTo(START + STEP_MINUTES * MINUTE);
    // Node b holds its copy at the start, and a price socket of the session there.
    expect((await priceOn(b)).bid).toBe(start.bid);
    const prices = await PriceClient.open(b);
    prices.send({ type: 'authenticate', token: me.token, account: replay.account_id });
    prices.send({ type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m' });
    await prices.waitFor('price_update', (m) => m.bid === start.bid);

    // A buy limit placed on b, halfway down to the lowest ask of the hour: a's step must fill it.
    const lowest = Math.min(...played.map((q) => q.ask));
    const level = Number(((start.ask + lowest) / 2).toFixed(5));
    expect(level).toBeLessThan(start.ask);
    const crossing = played.find((q) => q.ask <= level)!;
    const placed = await on(b)('POST', `/api/trading/place-pending-order/${account}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      order_type: 'LIMIT',
      quantity: 0.1,
      price: level,
    });
    expect(placed.statusCode, placed.body).toBe(201);

    const stepped = await on(a)('POST', `${url}step/`, { minutes: STEP_MINUTES });
    expect(stepped.statusCode, stepped.body).toBe(200);
    expect(replayAnswerSchema.parse(stepped.json().data).replay.clock).toBe(iso(START + STEP_MINUTES * MINUTE));

    // b answers at a's clock: the session's quote there, not its own copy's at the start.
    expect(await priceOn(b)).toMatchObject({ bid: at.bid, ask: at.ask });
    // b's copy caught up: its price socket follows, as after a move.
    await prices.waitFor('price_update', (m) => m.bid === at.bid && m.timestamp === iso(at.timestamp));
    prices.close();
    // b's next step goes on from a's clock.
    const next = await on(b)('POST', `${url}step/`, { minutes: 1 });
    expect(next.statusCode, next.body).toBe(200);
    expect(replayAnswerSchema.parse(next.json().data).replay.clock).toBe(iso(START + (STEP_MINUTES + 1) * MINUTE));

    // The limit filled once, where the tick that crossed it says, and opened one position.
    for (const app of [a, b]) {
      const orders = (await on(app)('GET', `/api/trading/orders/${account}&page_size=100`))
        .json()
        .results.map((o: unknown) => orderSchema.parse(o));
      expect(orders.map((o: { status: string }) => o.status)).toEqual(['FILLED']);
      expect(orders[0].average_fill_price).toBe(crossing.ask);
      const page = (await on(app)('GET', `/api/trading/platform-data/${account}`)).json().data;
      expect(page.open_positions).toHaveLength(1);
    }
  });

  it('moves a session on one node at a time: a step on the other is refused while it plays, and goes on from its clock once paused', async () => {
    const { me, on, url, replay, priceOn, clockOn, stored } = await session();
    await priceOn(b); // b holds a copy at the start too
    const socket = await Client.signedIn(a, me.token, replay.account_id);
    expect((await on(a)('POST', `${url}play/`, { speed: 60 })).statusCode).toBe(200);
    const deadline = Date.now() + 5_000;
    while ((await clockOn(a)) === iso(START) && Date.now() < deadline) await sleep(50);
    expect(await clockOn(a)).not.toBe(iso(START));

    // a plays it (a socket there watches it) and holds its lease: b cannot move it.
    const refused = await on(b)('POST', `${url}step/`, { minutes: 5 });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'REPLAY_BUSY',
      error: 'This replay session is playing on another server: pause it first',
    });

    // A pause on b stops a at its next turn; b's step then goes on from where a stopped.
    const paused = await on(b)('POST', `${url}pause/`);
    expect(paused.statusCode, paused.body).toBe(200);
    await sleep(1_000);
    const where = Date.parse(await clockOn(a));
    expect(where).toBeGreaterThan(START);
    expect(Number((await stored()).clock)).toBe(where);
    const stepped = await on(b)('POST', `${url}step/`, { minutes: 5 });
    expect(stepped.statusCode, stepped.body).toBe(200);
    expect(replayAnswerSchema.parse(stepped.json().data).replay.clock).toBe(iso(where + 5 * MINUTE));
    expect(await clockOn(a)).toBe(iso(where + 5 * MINUTE));
    socket.close();
  });

  it('plays on the node whose socket watches the session, whichever node the play reached, and the other does not pause it', async () => {
    const { me, on, url, replay, clockOn, stored } = await session();
    const socket = await Client.signedIn(a, me.token, replay.account_id);
    // Pressed on b, where no socket watches it: a learns it at its next turn and plays it.
    const played = await on(b)('POST', `${url}play/`, { speed: 60 });
    expect(played.statusCode, played.body).toBe(200);
    const deadline = Date.now() + 5_000;
    while ((await clockOn(a)) === iso(START) && Date.now() < deadline) await sleep(50);
    expect(await clockOn(a)).not.toBe(iso(START));
    // Past b's wait for a socket of its own (PAUSE_UNWATCHED_MS): a still plays it, it is not paused.
    await sleep(PAUSE_UNWATCHED_MS + 1_000);
    const row = await stored();
    expect(row.status).toBe('playing');
    const before = Number(row.clock);
    await sleep(PLAY_EVERY_MS * 4);
    expect(Number((await stored()).clock)).toBeGreaterThan(before);
    // b shows it as stored: playing, at the clock a wrote.
    const shown = replayDetailSchema.parse((await on(b)('GET', url)).json().data).replay;
    expect(shown.status).toBe('playing');
    expect(Date.parse(shown.clock)).toBeGreaterThanOrEqual(before);
    expect((await on(b)('POST', `${url}pause/`)).statusCode).toBe(200);
    socket.close();
  }, 15_000);

  it('a node that stops gives up its leases: the other moves the session at once', async () => {
    const { me, on, url, replay, priceOn, clockOn, stored } = await session();
    await priceOn(b);
    const socket = await Client.signedIn(a, me.token, replay.account_id);
    expect((await on(a)('POST', `${url}play/`, { speed: 60 })).statusCode).toBe(200);
    const deadline = Date.now() + 5_000;
    while ((await clockOn(a)) === iso(START) && Date.now() < deadline) await sleep(50);
    expect((await stored()).lease_until).toBeGreaterThan(Date.now());

    socket.close();
    await a.close();
    apps.splice(apps.indexOf(a), 1);
    const row = await b.ctx.db.kysely
      .selectFrom('replay_sessions')
      .select(['clock', 'status', 'lease_until'])
      .where('id', '=', replay.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.lease_until)).toBe(0);
    const where = Number(row.clock);
    expect(where).toBeGreaterThan(START);
    const stepped = await on(b)('POST', `${url}step/`, { minutes: 5 });
    expect(stepped.statusCode, stepped.body).toBe(200);
    expect(replayAnswerSchema.parse(stepped.json().data).replay.clock).toBe(iso(where + 5 * MINUTE));
  });
});
