import { type Alert, alertAnswerSchema, alertsSchema, MAX_ACTIVE_ALERTS } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { expireAlerts, fireAlerts } from './repo.js';

// The calls and the firing of docs/charting.md#alerts on one node, on a scripted market and a
// manual clock. EURUSD rests at 1.08500 / 1.08520; each test moves it and puts it back.

let t: TestApp;
let db: Awaited<ReturnType<typeof freshDatabase>>;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

const quote = (bid: number, ask: number, symbol = 'EURUSD') => prices.push({ symbol, bid, ask, timestamp: clock.now() });
const rest = () => quote(1.085, 1.0852);

function call(who: Trader, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  return t.app.inject({ method, url, headers: who.headers, ...(payload ? { payload: payload as Record<string, unknown> } : {}) });
}

async function create(who: Trader, body: object): Promise<Alert> {
  const res = await call(who, 'POST', '/api/trading/alerts/', body);
  expect(res.statusCode, res.body).toBe(201);
  return alertAnswerSchema.parse(res.json().data).alert;
}

async function list(who: Trader, status?: string): Promise<Alert[]> {
  const res = await call(who, 'GET', `/api/trading/alerts/${status ? `?status=${status}` : ''}`);
  expect(res.statusCode, res.body).toBe(200);
  return alertsSchema.parse(res.json().data);
}

const find = async (who: Trader, id: number) => (await list(who)).find((a) => a.id === id)!;
/** Waits for the evaluator's batched write to show in the list. */
const until = (who: Trader, id: number, status: string) =>
  vi.waitFor(
    async () => {
      const a = await find(who, id);
      expect(a.status).toBe(status);
      return a;
    },
    { timeout: 5_000, interval: 20 },
  );

/** A trading socket of the trader, authenticated; collects every message. */
async function socketOf(app: TestApp, who: { token: string }) {
  const ws = new WebSocket(`${app.url.replace('http', 'ws')}/ws/trading/`);
  const messages: Array<{ type: string; data?: { alert?: Alert } }> = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ type: 'authenticate', token: who.token }));
  await vi.waitFor(() => expect(messages.some((m) => m.type === 'connection_established')).toBe(true));
  const alertUpdates = () => messages.filter((m) => m.type === 'alert_update').map((m) => m.data!.alert!);
  return { ws, alertUpdates };
}

beforeAll(async () => {
  db = await freshDatabase();
  rest();
  quote(150, 150.02, 'USDJPY');
  t = await startTestApp({ ...db, keep: true, clock, priceSource: prices, listen: true, env: { CHART_HISTORY_DAYS: '0' } });
});
afterAll(async () => {
  await t?.close();
  await db?.drop();
});

describe('price alert calls', () => {
  it('creates an ACTIVE alert with the pair’s digits, lists it newest first, filters by status', async () => {
    const trader = await insertSignedInTrader(t);
    const first = await create(trader, { symbol: 'eurusd', condition: 'bid_above', price: 1.2, note: ' breakout ' });
    expect(first).toMatchObject({
      symbol: 'EURUSD',
      condition: 'bid_above',
      price: 1.2,
      note: 'breakout',
      status: 'ACTIVE',
      expires_at: null,
      triggered_at: null,
      triggered_price: null,
      created_at: new Date(clock.now()).toISOString(),
    });
    const second = await create(trader, {
      symbol: 'USDJPY',
      condition: 'ask_below',
      price: 140.125,
      expires_at: '2026-02-01T00:00:00Z',
    });
    expect(second.expires_at).toBe('2026-02-01T00:00:00.000Z');
    expect((await list(trader)).map((a) => a.id)).toEqual([second.id, first.id]);
    expect(await list(trader, 'triggered')).toEqual([]);
  });

  it('refuses what orders refuse: too many decimals, an unknown pair, an expiry in the past', async () => {
    const trader = await insertSignedInTrader(t);
    const tooFine = await call(trader, 'POST', '/api/trading/alerts/', {
      symbol: 'EURUSD',
      condition: 'bid_above',
      price: 1.123456,
    });
    expect(tooFine.statusCode).toBe(400);
    expect(tooFine.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: 'price: must have at most 5 decimals' });
    const jpy = await call(trader, 'POST', '/api/trading/alerts/', { symbol: 'USDJPY', condition: 'bid_above', price: 150.1234 });
    expect(jpy.json().error).toBe('price: must have at most 3 decimals');
    const unknown = await call(trader, 'POST', '/api/trading/alerts/', { symbol: 'XXXYYY', condition: 'bid_above', price: 1 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('PAIR_NOT_FOUND');
    const past = await call(trader, 'POST', '/api/trading/alerts/', {
      symbol: 'EURUSD',
      condition: 'bid_above',
      price: 1.2,
      expires_at: new Date(clock.now()).toISOString(),
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().error).toBe('expires_at: must be in the future');
    expect(await list(trader)).toEqual([]);
  });

  it('changes an ACTIVE alert, and 409 once it fired; another trader’s is 404 to every call', async () => {
    const trader = await insertSignedInTrader(t);
    const other = await insertSignedInTrader(t);
    const a = await create(trader, { symbol: 'EURUSD', condition: 'bid_above', price: 1.2, note: 'x' });
    for (const [method, payload] of [
      ['PATCH', { price: 1.3 }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(other, method, `/api/trading/alerts/${a.id}/`, payload);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('ALERT_NOT_FOUND');
    }
    expect(await list(other)).toEqual([]);

    const patched = await call(trader, 'PATCH', `/api/trading/alerts/${a.id}/`, { price: 1.0851, note: null });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.alert).toMatchObject({ price: 1.0851, note: null, status: 'ACTIVE' });

    quote(1.0851, 1.0853);
    await until(trader, a.id, 'TRIGGERED');
    rest();
    const late = await call(trader, 'PATCH', `/api/trading/alerts/${a.id}/`, { price: 1.3 });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'ALERT_NOT_ACTIVE', error: 'Alert is TRIGGERED, not ACTIVE' });

    const deleted = await call(trader, 'DELETE', `/api/trading/alerts/${a.id}/`);
    expect(deleted.json().data).toEqual({ id: a.id });
    expect((await call(trader, 'DELETE', `/api/trading/alerts/${a.id}/`)).statusCode).toBe(404);
  });

  it(`keeps at most ${MAX_ACTIVE_ALERTS} ACTIVE per trader (409 beyond); a deleted one frees its place`, async () => {
    const trader = await insertSignedInTrader(t);
    const ids: number[] = [];
    for (let i = 0; i < MAX_ACTIVE_ALERTS - 3; i++)
      ids.push((await create(trader, { symbol: 'GBPUSD', condition: 'bid_above', price: 2 + i / 1e4 })).id);
    // Six creates at once for the last three places: exactly three win, whatever the race.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(trader, 'POST', '/api/trading/alerts/', { symbol: 'GBPUSD', condition: 'bid_above', price: 2.5 }),
      ),
    );
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 201, 201, 409, 409, 409]);
    expect(await list(trader, 'ACTIVE')).toHaveLength(MAX_ACTIVE_ALERTS);
    const over = await call(trader, 'POST', '/api/trading/alerts/', { symbol: 'GBPUSD', condition: 'bid_above', price: 3 });
    expect(over.statusCode).toBe(409);
    expect(over.json().code).toBe('LIMIT_REACHED');
    // Another trader is not counted against this one.
    await create(await insertSignedInTrader(t), { symbol: 'GBPUSD', condition: 'bid_above', price: 3 });
    await call(trader, 'DELETE', `/api/trading/alerts/${ids[0]}/`);
    await create(trader, { symbol: 'GBPUSD', condition: 'bid_above', price: 3 });
  });
});

describe('price alerts firing', () => {
  it('fires on equal, not one point short, at the tick’s price and time, once, with one socket message', async () => {
    const trader = await insertSignedInTrader(t);
    const socket = await socketOf(t, trader);
    const bidAbove = await create(trader, { symbol: 'EURUSD', condition: 'bid_above', price: 1.0855 });
    const askBelow = await create(trader, { symbol: 'EURUSD', condition: 'ask_below', price: 1.0848 });

    quote(1.08549, 1.08569); // one point short of bid_above
    quote(1.08461, 1.08481); // one point short of ask_below
    await new Promise((r) => setTimeout(r, 100));
    expect((await list(trader, 'ACTIVE')).length).toBe(2);

    clock.advance(1_000);
    const firedAt = clock.now();
    quote(1.0855, 1.0857); // equal
    clock.advance(1_000);
    quote(1.086, 1.0862); // crosses again: it fired already
    const fired = await until(trader, bidAbove.id, 'TRIGGERED');
    expect(fired).toMatchObject({ triggered_price: 1.0855, triggered_at: new Date(firedAt).toISOString() });

    quote(1.0846, 1.0848); // the ask equals ask_below's price
    const fired2 = await until(trader, askBelow.id, 'TRIGGERED');
    expect(fired2.triggered_price).toBe(1.0848);
    await vi.waitFor(() => expect(socket.alertUpdates().map((a) => a.id)).toEqual([bidAbove.id, askBelow.id]));
    expect(socket.alertUpdates()[0]).toEqual(fired);
    await new Promise((r) => setTimeout(r, 200)); // time for a wrongful second message
    expect(socket.alertUpdates()).toHaveLength(2);
    socket.ws.close();
    rest();
  });

  it('fires at the gap tick’s own price when the market jumps over the alert', async () => {
    const trader = await insertSignedInTrader(t);
    const below = await create(trader, { symbol: 'EURUSD', condition: 'bid_below', price: 1.08 });
    quote(1.07012, 1.07032);
    const fired = await until(trader, below.id, 'TRIGGERED');
    expect(fired.triggered_price).toBe(1.07012);
    rest();
  });

  it('expires an alert past expires_at (one socket message), and an expired alert never fires', async () => {
    const trader = await insertSignedInTrader(t);
    const socket = await socketOf(t, trader);
    const a = await create(trader, {
      symbol: 'EURUSD',
      condition: 'bid_above',
      price: 1.09,
      expires_at: new Date(clock.now() + 60_000).toISOString(),
    });
    clock.advance(59_999);
    await new Promise((r) => setTimeout(r, 300)); // a timer turn: not due yet
    expect((await find(trader, a.id)).status).toBe('ACTIVE');
    clock.advance(1);
    const expired = await until(trader, a.id, 'EXPIRED');
    quote(1.1, 1.1002);
    await new Promise((r) => setTimeout(r, 100));
    expect(await find(trader, a.id)).toEqual(expired);
    expect(expired.triggered_at).toBeNull();
    await vi.waitFor(() => expect(socket.alertUpdates()).toEqual([expired]));
    socket.ws.close();
    rest();
  });
});

describe('the guarded writes of fires and expiries', () => {
  it('records a fire once: a retry or a second node changes nothing; a fire a change overtook is not recorded', async () => {
    const trader = await insertSignedInTrader(t);
    const a = await create(trader, { symbol: 'AUDUSD', condition: 'bid_above', price: 0.7 });
    const b = await create(trader, { symbol: 'AUDUSD', condition: 'bid_above', price: 0.7 });
    // A PATCH moved b above the tick before the fire's write.
    await call(trader, 'PATCH', `/api/trading/alerts/${b.id}/`, { price: 0.72 });
    const group = { ids: [a.id, b.id], condition: 'bid_above' as const, priceE10: 7_100_000_000, at: clock.now() };
    expect((await fireAlerts(t.ctx.db, [group])).map((r) => r.id)).toEqual([a.id]);
    expect(await fireAlerts(t.ctx.db, [group])).toEqual([]);
    expect((await find(trader, a.id)).triggered_price).toBe(0.71);
    expect((await find(trader, b.id)).status).toBe('ACTIVE');
    // Nor is an expiry that a PATCH moved later, nor one of a fired alert.
    const c = await create(trader, {
      symbol: 'AUDUSD',
      condition: 'bid_below',
      price: 0.6,
      expires_at: new Date(clock.now() + 10_000).toISOString(),
    });
    expect(await expireAlerts(t.ctx.db, [a.id, c.id], clock.now() + 5_000)).toEqual([]);
    await call(trader, 'DELETE', `/api/trading/alerts/${b.id}/`);
    await call(trader, 'DELETE', `/api/trading/alerts/${c.id}/`);
  });
});

describe('price alerts across a restart', () => {
  it('an alert set before a restart fires after it', async () => {
    const trader = await insertSignedInTrader(t);
    const a = await create(trader, { symbol: 'EURUSD', condition: 'ask_above', price: 1.0875 });
    await t.close();
    const restarted = new ScriptedPriceSource();
    restarted.push({ symbol: 'EURUSD', bid: 1.085, ask: 1.0852, timestamp: clock.now() });
    t = await startTestApp({ ...db, keep: true, clock, priceSource: restarted, listen: true, env: { CHART_HISTORY_DAYS: '0' } });
    restarted.push({ symbol: 'EURUSD', bid: 1.0874, ask: 1.0876, timestamp: clock.now() });
    const fired = await until(trader, a.id, 'TRIGGERED');
    expect(fired.triggered_price).toBe(1.0876);
  });
});
