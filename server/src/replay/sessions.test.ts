import {
  type OrderDto,
  orderSchema,
  replayAnswerSchema,
  replayDetailSchema,
  replayListSchema,
  studentReplaysSchema,
} from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { seededPairs } from '../market/catalogue.js';
import { loadReplayData, type Quote } from '../market/index.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { academyCast, api } from '../test/academy.js';
import { insertSignedInTrader } from '../test/factories.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { SessionMarket } from './session-market.js';

/**
 * Replay sessions through the real server (DESIGN §19, docs/replay.md): a practice account trades
 * on its session's market; a step or a seek fills every order at the tick that crosses it, exactly
 * as advancing minute by minute does, at prices the data reached; the live market and the session
 * never touch each other's accounts; a session resumes at its clock after a restart.
 */

const SYMBOLS = ['AUDUSD', 'EURUSD', 'GBPUSD', 'USDJPY'];
const WINDOW_MINUTES = 360;
const digitsOf = (symbol: string) => seededPairs().find((p) => p.symbol === symbol)!.digits;
const round = (symbol: string, price: number) => Number(price.toFixed(digitsOf(symbol)));
/** The first of some London mornings where every pair has room for a level between its start quote and its extremes. */
const START: number = [4, 5, 6, 12, 13, 14, 18, 19, 20]
  .map((day) => Date.UTC(2023, 3, day, 7, 0, 0))
  .find((start) => hasRoom(ticksOfWindow(start)))!;
const END = START + WINDOW_MINUTES * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

/** Every tick the session plays over the window, from the pure market (what the server must agree with). */
function ticksOfWindow(start: number = START): Quote[] {
  const pairs = seededPairs().filter((p) => SYMBOLS.includes(p.symbol));
  const market = new SessionMarket({ data: loadReplayData(), pairs, clock: start });
  const ticks: Quote[] = SYMBOLS.map((s) => market.quote(s)!);
  market.advanceTo(start + WINDOW_MINUTES * 60_000, (q) => ticks.push(q));
  return ticks;
}

/** Whether each pair moves at least 4 points past its start quote in the direction its role needs. */
function hasRoom(ticks: Quote[]): boolean {
  const room = (s: string, side: 'bid' | 'ask', down: boolean) => {
    const all = ticks.filter((q) => q.symbol === s).map((q) => q[side]);
    const extreme = down ? Math.min(...all) : Math.max(...all);
    return Math.abs(extreme - all[0]!) >= 4 * 10 ** -digitsOf(s);
  };
  return (
    room('EURUSD', 'bid', true) && room('GBPUSD', 'bid', false) && room('USDJPY', 'ask', true) && room('AUDUSD', 'ask', false)
  );
}

/**
 * The plan: on each pair one thing that the window's data crosses, halfway between the start
 * quote and the window's extreme, and where and when it must fill (the first tick crossing it).
 */
function plan(ticks: Quote[]) {
  const start = (s: string) => ticks.find((q) => q.symbol === s)!;
  const played = (s: string) => ticks.filter((q) => q.symbol === s).slice(1);
  const halfway = (s: string, from: number, to: number) => {
    const level = round(s, (from + to) / 2);
    expect(level, `${s}: the window moves too little to test`).not.toBe(round(s, from));
    expect(level).not.toBe(round(s, to));
    return level;
  };
  const first = (s: string, crosses: (q: Quote) => boolean) => {
    const tick = played(s).find(crosses);
    expect(tick, `${s}: nothing crosses`).toBeDefined();
    return tick!;
  };
  const eur = start('EURUSD');
  const slLevel = halfway('EURUSD', eur.bid, Math.min(...played('EURUSD').map((q) => q.bid)));
  const gbp = start('GBPUSD');
  const tpLevel = halfway('GBPUSD', gbp.bid, Math.max(...played('GBPUSD').map((q) => q.bid)));
  const jpy = start('USDJPY');
  const limitLevel = halfway('USDJPY', jpy.ask, Math.min(...played('USDJPY').map((q) => q.ask)));
  const aud = start('AUDUSD');
  const stopLevel = halfway('AUDUSD', aud.ask, Math.max(...played('AUDUSD').map((q) => q.ask)));
  const sl = first('EURUSD', (q) => q.bid <= slLevel);
  const tp = first('GBPUSD', (q) => q.bid >= tpLevel);
  const limit = first('USDJPY', (q) => q.ask <= limitLevel);
  const stop = first('AUDUSD', (q) => q.ask >= stopLevel);
  return {
    levels: { slLevel, tpLevel, limitLevel, stopLevel },
    expected: {
      stop_loss: { symbol: 'EURUSD', price: sl.bid, at: iso(sl.timestamp) },
      take_profit: { symbol: 'GBPUSD', price: tp.bid, at: iso(tp.timestamp) },
      limit: { symbol: 'USDJPY', price: limit.ask, at: iso(limit.timestamp) },
      stop: { symbol: 'AUDUSD', price: stop.ask, at: iso(stop.timestamp) },
    },
  };
}

describe('replay sessions through the server', () => {
  const cleanups: Array<() => Promise<void>> = [];
  let t: TestApp;
  let me: Trader;
  let other: Trader;
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
  const prices = new ScriptedPriceSource();
  const live = (symbol: string, bid: number) => prices.push({ symbol, bid, ask: bid + 0.0002, timestamp: clock.now() });
  let dataDir: string;
  let pgSchema: string | undefined;

  const call = (who: Trader, method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: who.headers, ...(payload ? { payload } : {}) });
  const create = async (who: Trader, body: object) => {
    const res = await call(who, 'POST', '/api/trading/replays/', body);
    expect(res.statusCode, res.body).toBe(201);
    return replayAnswerSchema.parse(res.json().data).replay;
  };
  const ordersOf = async (who: Trader, account?: number): Promise<OrderDto[]> => {
    const res = await call(who, 'GET', `/api/trading/orders/?page_size=100${account ? `&account=${account}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().results as unknown[]).map((o) => orderSchema.parse(o));
  };

  beforeAll(async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    dataDir = db.dataDir;
    pgSchema = db.pgSchema;
    live('EURUSD', 1.1);
    live('GBPUSD', 1.3);
    live('USDJPY', 150);
    live('AUDUSD', 0.7);
    t = await startTestApp({ clock, priceSource: prices, dataDir, ...(pgSchema ? { pgSchema } : {}), keep: true });
    me = await insertSignedInTrader(t);
    other = await insertSignedInTrader(t);
  });
  afterAll(async () => {
    await t?.close();
    for (const c of cleanups.reverse()) await c();
  });

  /** A session with one thing to cross on each pair, placed at its start. */
  async function sessionWithPlan(levels: ReturnType<typeof plan>['levels']) {
    const replay = await create(me, { symbols: SYMBOLS, start: iso(START), initial_balance: 100_000, leverage: 100 });
    const on = (path: string) => `${path}?account=${replay.account_id}`;
    const place = async (path: string, body: object) => {
      const res = await call(me, 'POST', on(path), body);
      expect(res.statusCode, res.body).toBe(201);
    };
    await place('/api/trading/place-market-order/', { symbol: 'EURUSD', side: 'BUY', quantity: 0.1, stop_loss: levels.slLevel });
    await place('/api/trading/place-market-order/', {
      symbol: 'GBPUSD',
      side: 'BUY',
      quantity: 0.1,
      take_profit: levels.tpLevel,
    });
    await place('/api/trading/place-pending-order/', {
      symbol: 'USDJPY',
      side: 'BUY',
      order_type: 'LIMIT',
      quantity: 0.1,
      price: levels.limitLevel,
    });
    await place('/api/trading/place-pending-order/', {
      symbol: 'AUDUSD',
      side: 'BUY',
      order_type: 'STOP',
      quantity: 0.1,
      price: levels.stopLevel,
    });
    return replay;
  }

  /** What each crossing came to: the fill price and time of the stop loss, take profit, limit and stop. */
  async function outcome(account: number) {
    const orders = await ordersOf(me, account);
    const filled = (pick: (o: OrderDto) => boolean) => {
      const o = orders.find(pick);
      return o ? { symbol: o.fx_pair_symbol, status: o.status, price: o.average_fill_price, at: o.updated_at } : undefined;
    };
    return {
      stop_loss: filled((o) => o.reason === 'stop_loss'),
      take_profit: filled((o) => o.reason === 'take_profit'),
      limit: filled((o) => o.order_type === 'LIMIT'),
      stop: filled((o) => o.order_type === 'STOP'),
      all: orders
        .map((o) => ({
          symbol: o.fx_pair_symbol,
          type: o.order_type,
          side: o.side,
          reason: o.reason,
          status: o.status,
          price: o.average_fill_price,
          at: o.updated_at,
        }))
        .sort((a, b) => (a.at + a.symbol + a.type < b.at + b.symbol + b.type ? -1 : 1)),
    };
  }

  it('fills a limit, a stop, a stop loss and a take profit crossed during a step or a seek exactly where minute by minute does', async () => {
    const ticks = ticksOfWindow();
    const { levels, expected } = plan(ticks);

    const stepped = await sessionWithPlan(levels);
    const res = await call(me, 'POST', `/api/trading/replays/${stepped.id}/step/`, { minutes: WINDOW_MINUTES });
    expect(res.statusCode, res.body).toBe(200);
    expect(replayAnswerSchema.parse(res.json().data).replay.clock).toBe(iso(END));

    const sought = await sessionWithPlan(levels);
    expect((await call(me, 'POST', `/api/trading/replays/${sought.id}/seek/`, { to: iso(END) })).statusCode).toBe(200);

    const walked = await sessionWithPlan(levels);
    for (let m = 0; m < WINDOW_MINUTES; m++) {
      const step = await call(me, 'POST', `/api/trading/replays/${walked.id}/step/`, { minutes: 1 });
      expect(step.statusCode, step.body).toBe(200);
    }

    const byStep = await outcome(stepped.account_id);
    // Each crossing filled at the first tick that crossed it, at that tick's price: a price the data reached.
    for (const kind of ['stop_loss', 'take_profit', 'limit', 'stop'] as const) {
      expect(byStep[kind], kind).toEqual({ ...expected[kind], status: 'FILLED' });
    }
    expect(await outcome(sought.account_id)).toEqual(byStep);
    expect(await outcome(walked.account_id)).toEqual(byStep);
    // Every fill of the session, market orders included, is at a bid or ask of a real tick at its time.
    for (const o of byStep.all) {
      const at = ticks.filter((q) => q.symbol === o.symbol && iso(q.timestamp) <= o.at).at(-1)!;
      expect(o.price).toBe(o.side === 'BUY' ? at.ask : at.bid);
    }
  });

  it('stops an account out on its session’s prices, at the tick where the rule says, stepping or minute by minute', async () => {
    // A start after which EURUSD falls 20 pips within six hours: 0.5 lots on 100 USD at 1:1000 are stopped out.
    const hours = Array.from({ length: 48 }, (_, i) => Date.UTC(2023, 3, 4, 0, 0, 0) + i * 3_600_000);
    const eurusd = seededPairs().filter((p) => p.symbol === 'EURUSD');
    const windowOf = (start: number) => {
      const market = new SessionMarket({ data: loadReplayData(), pairs: eurusd, clock: start });
      const ticks = [market.quote('EURUSD')!];
      market.advanceTo(start + WINDOW_MINUTES * 60_000, (q) => ticks.push(q));
      return ticks;
    };
    const start = hours.find((h) => {
      const ticks = windowOf(h);
      return Math.min(...ticks.map((q) => q.bid)) <= ticks[0]!.ask - 0.002;
    })!;
    expect(start).toBeDefined();
    const ticks = windowOf(start);
    const entry = ticks[0]!.ask;
    // Equity at or below half the margin used (50 %): 100 + 50,000 × (bid − entry) ≤ 50,000 × mid ÷ 1000 × 0.5.
    const due = (q: Quote) => (100 + 50_000 * (q.bid - entry)) * 100 <= ((50_000 * q.mid) / 1000) * 50;
    const expected = ticks.slice(1).find(due)!;
    expect(expected).toBeDefined();

    const open = async () => {
      const replay = await create(me, { symbols: ['EURUSD'], start: iso(start), initial_balance: 100, leverage: 1000 });
      const placed = await call(me, 'POST', `/api/trading/place-market-order/?account=${replay.account_id}`, {
        symbol: 'EURUSD',
        side: 'BUY',
        quantity: 0.5,
      });
      expect(placed.statusCode, placed.body).toBe(201);
      return replay;
    };
    const stopOut = async (account: number) => (await ordersOf(me, account)).find((o) => o.reason === 'stop_out');
    const stepped = await open();
    expect((await call(me, 'POST', `/api/trading/replays/${stepped.id}/step/`, { minutes: WINDOW_MINUTES })).statusCode).toBe(
      200,
    );
    const byStep = await stopOut(stepped.account_id);
    expect(byStep?.status).toBe('FILLED');
    expect(byStep?.average_fill_price).toBe(expected.bid);
    expect(byStep?.updated_at).toBe(iso(expected.timestamp));
    const walked = await open();
    const minutes = Math.ceil((expected.timestamp - start) / 60_000) + 1;
    for (let m = 0; m < minutes; m++) await call(me, 'POST', `/api/trading/replays/${walked.id}/step/`, { minutes: 1 });
    const byMinute = await stopOut(walked.account_id);
    expect([byMinute?.average_fill_price, byMinute?.updated_at]).toEqual([byStep?.average_fill_price, byStep?.updated_at]);
  });

  it('answers a start outside the data with a 400 naming the range, and refuses bad input with a 400', async () => {
    const outside = await call(me, 'POST', '/api/trading/replays/', { symbols: ['EURUSD'], start: '2022-01-01T00:00:00Z' });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().error).toBe('start: the data of these pairs runs from 2023-04-03T12:01:00Z to 2023-05-10T15:00:00Z');
    for (const body of [
      { symbols: ['EURUSD'], start: 'yesterday' },
      { symbols: [], start: iso(START) },
      { symbols: ['EURUSD', 'EURUSD'], start: iso(START) },
      { symbols: ['NOPE'], start: iso(START) },
      { symbols: ['EURUSD'], start: iso(START), leverage: 0 },
      { symbols: 'EURUSD', start: iso(START) },
    ]) {
      const res = await call(me, 'POST', '/api/trading/replays/', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const replay = await create(me, { symbols: ['EURUSD'], start: iso(START) });
    const url = `/api/trading/replays/${replay.id}`;
    expect((await call(me, 'POST', `${url}/play/`, { speed: 7 })).statusCode).toBe(400);
    expect((await call(me, 'POST', `${url}/step/`, { minutes: 0 })).statusCode).toBe(400);
    const back = await call(me, 'POST', `${url}/seek/`, { to: iso(START - 60_000) });
    expect(back.statusCode).toBe(400);
    expect(back.json().error).toContain('forward only');
    const beyond = await call(me, 'POST', `${url}/seek/`, { to: '2024-01-01T00:00:00Z' });
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json().error).toContain('2023-05-10T15:00:00');
    // An order on a pair the session does not play is refused.
    const off = await call(me, 'POST', `/api/trading/place-market-order/?account=${replay.account_id}`, {
      symbol: 'GBPUSD',
      side: 'BUY',
      quantity: 0.01,
    });
    expect(off.statusCode).toBe(400);
  });

  it('answers 404 for another trader’s session, and lists only the trader’s own', async () => {
    const mine = await create(me, { symbols: ['EURUSD'], start: iso(START) });
    const url = `/api/trading/replays/${mine.id}/`;
    expect((await call(other, 'GET', url)).json().code).toBe('REPLAY_NOT_FOUND');
    expect((await call(other, 'GET', url)).statusCode).toBe(404);
    expect((await call(other, 'POST', `${url}step/`, { minutes: 5 })).statusCode).toBe(404);
    expect((await call(other, 'POST', `${url}play/`, { speed: 60 })).statusCode).toBe(404);
    expect((await call(other, 'DELETE', url)).statusCode).toBe(404);
    expect((await call(other, 'GET', `/api/trading/orders/?account=${mine.account_id}`)).statusCode).toBe(404);
    const theirs = replayListSchema.parse((await call(other, 'GET', '/api/trading/replays/')).json().data).replays;
    expect(theirs.map((r) => r.id)).not.toContain(mine.id);
    const detail = replayDetailSchema.parse((await call(me, 'GET', url)).json().data);
    expect(detail.replay.id).toBe(mine.id);
    expect(detail.performance.equity).toBe(10_000);
    // Deleted: gone from the calls, its account closed.
    expect((await call(me, 'DELETE', url)).statusCode).toBe(200);
    expect((await call(me, 'GET', url)).statusCode).toBe(404);
    const after = await call(me, 'POST', `/api/trading/place-market-order/?account=${mine.account_id}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.01,
    });
    expect(after.statusCode, after.body).toBe(409);
  });

  it('keeps the live market and a session apart', async () => {
    const replay = await create(me, { symbols: ['EURUSD'], start: iso(START) });
    const on = `?account=${replay.account_id}`;
    const sessionBid = replayQuoteBid(START);
    // A position with a stop loss 20 pips under the session's bid, and a buy limit 20 pips under its ask.
    const placed = await call(me, 'POST', `/api/trading/place-market-order/${on}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.1,
      stop_loss: round('EURUSD', sessionBid - 0.002),
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const fill = orderSchema.parse(placed.json().data.order).average_fill_price!;
    // Filled at the session's price, not the live one (1.1002).
    expect(Math.abs(fill - sessionBid)).toBeLessThan(0.001);
    const limit = await call(me, 'POST', `/api/trading/place-pending-order/${on}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      order_type: 'LIMIT',
      quantity: 0.1,
      price: round('EURUSD', sessionBid - 0.002),
    });
    expect(limit.statusCode, limit.body).toBe(201);
    // The live market crashes through both levels: nothing of the session moves.
    clock.advance(1_000);
    live('EURUSD', 0.9);
    clock.advance(1_000);
    live('EURUSD', 0.95);
    await t.trading.engine.idle();
    const orders = await ordersOf(me, replay.account_id);
    expect(orders.map((o) => o.status).sort()).toEqual(['FILLED', 'PENDING']);
    const data = (await call(me, 'GET', `/api/trading/platform-data/${on}`)).json().data;
    expect(data.open_positions).toHaveLength(1);
    // The accounts call and the pair page value it at the session's prices too.
    const listed = (await call(me, 'GET', '/api/trading/accounts/')).json().data as Array<{
      id: number;
      equity: number;
      replay: { id: number } | null;
    }>;
    const practice = listed.find((a) => a.id === replay.account_id)!;
    expect(practice.replay?.id).toBe(replay.id);
    expect(practice.equity).toBe(data.trading_account.equity);
    expect(practice.equity).not.toBe(data.trading_account.balance);
    const page = (await call(me, 'GET', `/api/trading/pair/EURUSD/${on}`)).json().data;
    expect(page.price.bid).toBe(sessionBid);
    expect(page.open_positions ?? page.positions).toHaveLength(1);
    // The session's orders and positions never show on the live account, and a live order fills at the live price.
    expect((await ordersOf(me)).filter((o) => o.fx_pair_symbol === 'EURUSD' && o.status === 'PENDING')).toHaveLength(0);
    const primary = (await call(me, 'GET', '/api/trading/platform-data/')).json().data;
    expect(primary.open_positions).toHaveLength(0);
    const liveOrder = await call(me, 'POST', '/api/trading/place-market-order/', {
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.01,
    });
    expect(liveOrder.statusCode, liveOrder.body).toBe(201);
    expect(orderSchema.parse(liveOrder.json().data.order).average_fill_price).toBe(0.9502);
  });

  it('shows a student’s sessions and statistics to their instructors only, read-only', async () => {
    const cast = await academyCast(t);
    const mine = await api(t, cast.memberA, 'POST', '/api/trading/replays/', { symbols: ['EURUSD'], start: iso(START) });
    expect(mine.statusCode, mine.body).toBe(201);
    const url = `/api/academy/students/${cast.memberA.userId}/replays/`;
    const seen = studentReplaysSchema.parse((await api(t, cast.instructorA, 'GET', url)).json().data).replays;
    expect(seen.map((r) => r.replay.id)).toEqual([mine.json().data.replay.id]);
    expect(seen[0]!.performance.equity).toBe(10_000);
    expect((await api(t, cast.instructorB, 'GET', url)).statusCode).toBe(404);
    expect((await api(t, cast.memberB, 'GET', url)).statusCode).toBe(403);
    expect((await api(t, cast.admin, 'GET', url)).statusCode).toBe(200);
  });

  it('resumes a session at its clock after a restart', async () => {
    const replay = await create(me, { symbols: ['EURUSD'], start: iso(START) });
    const url = `/api/trading/replays/${replay.id}/`;
    expect((await call(me, 'POST', `${url}step/`, { minutes: 90 })).statusCode).toBe(200);
    expect((await call(me, 'POST', `${url}play/`, { speed: 60 })).statusCode).toBe(200);
    await t.close();
    t = await startTestApp({ clock, priceSource: prices, dataDir, ...(pgSchema ? { pgSchema } : {}), keep: true });
    const back = replayDetailSchema.parse((await call(me, 'GET', url)).json().data).replay;
    // Where it was, paused: nothing plays until the trader is back.
    expect(back.clock).toBe(iso(START + 90 * 60_000));
    expect(back.status).toBe('paused');
    const on = await call(me, 'POST', `${url}step/`, { minutes: 30 });
    expect(replayAnswerSchema.parse(on.json().data).replay.clock).toBe(iso(START + 120 * 60_000));
  });
});

/** EURUSD's bid at a session time (a session of that pair alone). */
function replayQuoteBid(at: number): number {
  const pairs = seededPairs().filter((p) => p.symbol === 'EURUSD');
  return new SessionMarket({ data: loadReplayData(), pairs, clock: at }).quote('EURUSD')!.bid;
}
