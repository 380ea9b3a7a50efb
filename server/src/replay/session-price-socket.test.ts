import { replayAnswerSchema } from '@pipdesk/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededPairs } from '../market/catalogue.js';
import { loadReplayData } from '../market/index.js';
import { insertSignedInTrader } from '../test/factories.js';
import type { TestApp } from '../test/helpers.js';
import { PriceSocketClient as Client } from '../test/price-socket-client.js';
import { replaySuiteApp } from '../test/replay.js';
import { SessionMarket } from './session-market.js';

/**
 * The price socket of a practice account (docs/replay.md#the-price-socket-of-a-practice-account):
 * signed in and naming the account, it carries the session's quotes and forming candle as the
 * session moves, and never a live tick; another trader's account is refused.
 */

const MINUTE = 60_000;
const START = Date.UTC(2023, 3, 4, 7, 0, 0);
const STEP_MINUTES = 30;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The session's EURUSD quote at `clock`, as its market computes it. */
function sessionQuote(clock: number) {
  const market = new SessionMarket({
    data: loadReplayData(),
    pairs: seededPairs().filter((p) => p.symbol === 'EURUSD'),
    clock: START,
  });
  if (clock > START) market.advanceTo(clock);
  const quote = market.quote('EURUSD');
  if (!quote) throw new Error('no session quote');
  return quote;
}

describe('the price socket of a practice account', () => {
  const suite = replaySuiteApp({ listen: true });
  const { clock, prices } = suite;
  let t: TestApp;
  beforeAll(() => {
    t = suite.app();
  });

  it("streams the session's quote and forming candle as it steps, and no live tick", async () => {
    const me = await insertSignedInTrader(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/trading/replays/',
      headers: me.headers,
      payload: { symbols: ['EURUSD'], start: iso(START) },
    });
    expect(created.statusCode, created.body).toBe(201);
    const replay = replayAnswerSchema.parse(created.json().data).replay;

    const practice = await Client.open(t);
    practice.send({ type: 'authenticate', token: me.token, account: replay.account_id });
    practice.send({ type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m' });
    const live = await Client.open(t);
    live.send({ type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m' });

    // On subscribing: the session's forming candle and its quote at the start, in session time.
    const atStart = sessionQuote(START);
    const [first] = await practice.waitFor('price_update');
    expect(first).toMatchObject({ symbol: 'EURUSD', bid: atStart.bid, ask: atStart.ask, timestamp: iso(atStart.timestamp) });
    const [forming] = await practice.waitFor('chart_update');
    expect(forming?.candle.time).toBe(START);

    // A live tick reaches the live socket, and nothing of it the practice one.
    await live.waitFor('price_update', (m) => m.bid === 1.2);
    const before = practice.messages.length;
    prices.push({ symbol: 'EURUSD', bid: 1.25, ask: 1.2502, timestamp: clock.now() + 1 });
    await live.waitFor('price_update', (m) => m.bid === 1.25);
    await sleep(1_200);
    expect(practice.messages.slice(before)).toEqual([]);

    // A step: the quote and the candles up to the new clock follow, the forming one last.
    const step = await t.app.inject({
      method: 'POST',
      url: `/api/trading/replays/${replay.id}/step/`,
      headers: me.headers,
      payload: { minutes: STEP_MINUTES },
    });
    expect(step.statusCode, step.body).toBe(200);
    const moved = sessionQuote(START + STEP_MINUTES * MINUTE);
    await practice.waitFor('price_update', (m) => m.timestamp === iso(moved.timestamp));
    const after = practice.messages.slice(before);
    expect(after.at(-1)).toMatchObject({ type: 'price_update', bid: moved.bid, ask: moved.ask });
    const times = after.flatMap((m) => (m.type === 'chart_update' ? [m.candle.time] : []));
    // From the candle it had (then forming, now closed) to the one forming at the clock, one a minute.
    expect(times).toEqual(Array.from({ length: STEP_MINUTES + 1 }, (_, i) => START + i * MINUTE));
    expect(practice.messages.some((m) => m.type === 'price_update' && m.bid === 1.25)).toBe(false);
    practice.close();
    live.close();
  });

  it("refuses another trader's account, and a second account on one socket", async () => {
    const me = await insertSignedInTrader(t);
    const other = await insertSignedInTrader(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/trading/replays/',
      headers: me.headers,
      payload: { symbols: ['EURUSD'], start: iso(START) },
    });
    const replay = replayAnswerSchema.parse(created.json().data).replay;

    const intruder = await Client.open(t);
    intruder.send({ type: 'authenticate', token: other.token, account: replay.account_id });
    intruder.send({ type: 'subscribe_prices', symbol: 'EURUSD' });
    await intruder.waitFor('error', (m) => m.message === 'Trading account not found');
    expect((await intruder.waitClosed()).code).toBe(4004);
    expect(intruder.messages.some((m) => m.type === 'price_update' || m.type === 'chart_update')).toBe(false);

    // A socket that already follows the live market cannot be turned to the session's.
    const turned = await Client.open(t);
    turned.send({ type: 'subscribe_prices', symbol: 'EURUSD' });
    await turned.waitFor('price_update');
    turned.send({ type: 'authenticate', token: me.token, account: replay.account_id });
    expect((await turned.waitClosed()).code).toBe(4004);
  });
});
