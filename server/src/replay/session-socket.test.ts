import { pairPageSchema, placeMarketOrderResponseSchema, replayAnswerSchema } from '@pipdesk/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededPairs } from '../market/catalogue.js';
import { loadReplayData } from '../market/index.js';
import { insertSignedInTrader } from '../test/factories.js';
import type { TestApp } from '../test/helpers.js';
import { replaySuiteApp } from '../test/replay.js';
import { TradingSocketClient as Client } from '../test/trading-socket-client.js';
import { SessionMarket } from './session-market.js';

/**
 * The trading socket of a practice account (docs/replay.md#the-trading-socket-of-a-practice-account):
 * its fills, P&L, figures and prices come from its session as the session moves; live ticks send
 * nothing to it, and the live socket of the primary account goes on as before.
 */

const MINUTE = 60_000;
const START = Date.UTC(2023, 3, 4, 7, 0, 0);
const STEP_MINUTES = 30;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the trading socket of a practice account', () => {
  const suite = replaySuiteApp({ listen: true });
  const { clock, prices } = suite;
  let t: TestApp;
  beforeAll(() => {
    t = suite.app();
  });

  it('sends the fill, then P&L, figures and prices from the session as it steps, and nothing of the live ticks', async () => {
    const me = await insertSignedInTrader(t);
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: me.headers, ...(payload ? { payload } : {}) });
    const created = await call('POST', '/api/trading/replays/', { symbols: ['EURUSD'], start: iso(START) });
    expect(created.statusCode, created.body).toBe(201);
    const replay = replayAnswerSchema.parse(created.json().data).replay;
    const account = replay.account_id;

    const practice = await Client.signedIn(t, me.token, account);
    const primary = await Client.signedIn(t, me.token);
    practice.send({ type: 'subscribe_to_pnl' });
    await practice.next('pnl_subscription_confirmed');
    const first = await practice.next('account_update');
    expect(first.data).toMatchObject({ balance: 10_000, equity: 10_000, margin_used: 0 });

    // A fill of the practice account reaches its socket (its executions never go on the bus).
    const placed = await call('POST', `/api/trading/place-market-order/?account=${account}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.1,
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const fill = placeMarketOrderResponseSchema.parse(placed.json().data);
    const confirmation = await practice.next('order_confirmation');
    expect(confirmation.data.order.id).toBe(fill.order.id);
    const positions = await practice.next('positions_update');
    expect(positions.data.map((p) => p.id)).toEqual([fill.position.id]);

    // A step moves the price: the position's P&L and the account's figures follow the session's bid.
    const step = await call('POST', `/api/trading/replays/${replay.id}/step/`, { minutes: STEP_MINUTES });
    expect(step.statusCode, step.body).toBe(200);
    const market = new SessionMarket({
      data: loadReplayData(),
      pairs: seededPairs().filter((p) => p.symbol === 'EURUSD'),
      clock: START,
    });
    market.advanceTo(START + STEP_MINUTES * MINUTE);
    const quote = market.quote('EURUSD')!;
    expect(quote.bid).not.toBe(fill.execution_details.execution_price);
    // 0.1 lot of EURUSD: 10,000 units, so a point (0.00001) is 0.10 USD.
    const pnl = Math.round((quote.bid - fill.execution_details.execution_price) * 1e5) / 10;
    const update = await practice.next('pnl_batch_update', { where: (m) => m.updates[0]?.current_price === quote.bid });
    expect(update.updates).toEqual([{ position_id: fill.position.id, unrealized_pnl: pnl, current_price: quote.bid }]);
    await practice.next('account_update', { where: (m) => m.data.equity === Math.round((10_000 + pnl) * 100) / 100 });
    await practice.next('price_update', { where: (m) => m.symbol === 'EURUSD' && m.bid === quote.bid && m.ask === quote.ask });

    // Live ticks: the primary account's socket gets them, the practice account's nothing at all.
    await sleep(600);
    const from = practice.mark();
    const primaryFrom = primary.mark();
    prices.push({ symbol: 'EURUSD', bid: 1.25, ask: 1.2502, timestamp: clock.now() });
    await primary.next('price_update', { from: primaryFrom, where: (m) => m.bid === 1.25 });
    await sleep(700);
    expect(practice.received.slice(from).map((r) => r.message.type)).toEqual([]);
    practice.close();
    primary.close();
  });

  it('values a cross at the session’s conversion rates after a step, as the calls do', async () => {
    const me = await insertSignedInTrader(t);
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: me.headers, ...(payload ? { payload } : {}) });
    // A USD account trading EURJPY values its yen at USDJPY, a pair this session does not play.
    const created = await call('POST', '/api/trading/replays/', { symbols: ['EURJPY'], start: iso(START) });
    expect(created.statusCode, created.body).toBe(201);
    const replay = replayAnswerSchema.parse(created.json().data).replay;
    const account = replay.account_id;
    const placed = await call('POST', `/api/trading/place-market-order/?account=${account}`, {
      symbol: 'EURJPY',
      side: 'SELL',
      quantity: 0.2,
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const practice = await Client.signedIn(t, me.token, account);
    practice.send({ type: 'subscribe_to_pnl' });
    await practice.next('pnl_subscription_confirmed');
    const step = await call('POST', `/api/trading/replays/${replay.id}/step/`, { minutes: 6 * 60 });
    expect(step.statusCode, step.body).toBe(200);
    const page = await call('GET', `/api/trading/pair/EURJPY/?account=${account}`);
    expect(page.statusCode, page.body).toBe(200);
    const [position] = pairPageSchema.parse(page.json().data).positions;
    const expected = {
      position_id: position!.id,
      unrealized_pnl: position!.unrealized_pnl,
      current_price: position!.current_price,
    };
    await practice.next('pnl_batch_update', {
      where: (m) => JSON.stringify(m.updates) === JSON.stringify([expected]),
      timeoutMs: 3_000,
    });
    practice.close();
    await practice.closed;

    // Stepped while no socket serves it: the next socket's first figures are those at the new clock.
    const again = await call('POST', `/api/trading/replays/${replay.id}/step/`, { minutes: 6 * 60 });
    expect(again.statusCode, again.body).toBe(200);
    const later = await call('GET', `/api/trading/pair/EURJPY/?account=${account}`);
    const [moved] = pairPageSchema.parse(later.json().data).positions;
    expect(moved!.current_price).not.toBe(position!.current_price);
    const next = await Client.signedIn(t, me.token, account);
    next.send({ type: 'subscribe_to_pnl' });
    const first = await next.next('pnl_batch_update');
    expect(first.updates).toEqual([
      { position_id: moved!.id, unrealized_pnl: moved!.unrealized_pnl, current_price: moved!.current_price },
    ]);
    next.close();
  });

  it('sends margin_call once when the session’s prices take the margin level to 100 % or below, as a live account gets it', async () => {
    const me = await insertSignedInTrader(t);
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: me.headers, ...(payload ? { payload } : {}) });
    // A balance a dollar above the margin of 0.1 lot at 1:100: the spread and the next pips decide it.
    const opening = new SessionMarket({
      data: loadReplayData(),
      pairs: seededPairs().filter((p) => p.symbol === 'EURUSD'),
      clock: START,
    }).quote('EURUSD')!;
    const balance = Math.ceil(opening.ask * 100 * 100) / 100 + 1;
    const created = await call('POST', '/api/trading/replays/', {
      symbols: ['EURUSD'],
      start: iso(START),
      initial_balance: balance,
      leverage: 100,
    });
    expect(created.statusCode, created.body).toBe(201);
    const replay = replayAnswerSchema.parse(created.json().data).replay;
    const account = replay.account_id;
    const practice = await Client.signedIn(t, me.token, account);
    practice.send({ type: 'subscribe_to_pnl' });
    await practice.next('pnl_subscription_confirmed');
    const placed = await call('POST', `/api/trading/place-market-order/?account=${account}`, {
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.1,
    });
    expect(placed.statusCode, placed.body).toBe(201);

    // Minute by minute until the accounts call shows the level at 100 % or below: the call is on the socket then.
    let figures: { equity: number; margin_used: number } | undefined;
    for (let minute = 0; minute < 240; minute++) {
      const accounts = await call('GET', '/api/trading/accounts/');
      const mine = (accounts.json().data as Array<{ id: number; equity: number; margin_used: number }>).find(
        (a) => a.id === account,
      )!;
      if (mine.margin_used > 0 && mine.equity <= mine.margin_used) {
        figures = mine;
        break;
      }
      const step = await call('POST', `/api/trading/replays/${replay.id}/step/`, { minutes: 1 });
      expect(step.statusCode, step.body).toBe(200);
    }
    expect(figures, 'the session’s prices never took the level to 100 %').toBeDefined();
    const notice = await practice.next('margin_call');
    expect(notice.data.margin_level).toBeLessThanOrEqual(100);
    expect(notice.data.equity).toBeLessThanOrEqual(notice.data.margin_used);
    expect(notice.data.message).toMatch(
      /^Margin call: your margin level is \d+\.\d{2}%\. Positions are closed automatically from 50%/,
    );
    practice.close();
  });
});
