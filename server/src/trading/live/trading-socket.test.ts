import { type PlaceMarketOrderResponse, positionSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { disableTrader } from '../../auth/service.js';
import { ManualClock } from '../../core/clock.js';
import { ScriptedPriceSource } from '../../market/index.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { signedInTrader } from '../../test/traders.js';
import { TradingSocketClient as Client, type Message } from '../../test/trading-socket-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('/ws/trading/', () => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 2, 2, 10, 0, 0));
  const prices = new ScriptedPriceSource();
  const tick = (symbol: string, bid: number, ask: number) => prices.push({ symbol, bid, ask, timestamp: clock.now() });

  beforeAll(async () => {
    tick('EURUSD', 1.1, 1.1001);
    tick('GBPUSD', 1.3, 1.3002);
    tick('USDJPY', 150, 150.02);
    t = await startTestApp({ listen: true, priceSource: prices, clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function order(headers: Record<string, string>, symbol: string, side: 'BUY' | 'SELL', quantity: number) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers,
      payload: { symbol, side, quantity },
    });
    expect(res.statusCode).toBe(201);
    return res.json().data as PlaceMarketOrderResponse;
  }

  it('asks for authentication on open and answers connection_established with the user', async () => {
    const trader = await signedInTrader(t);
    const client = await Client.open(t);
    await client.next('auth_required');
    client.send({ type: 'authenticate', token: trader.session.token });
    const established = await client.next('connection_established');
    expect(established.user).toEqual({ id: trader.userId, email: trader.email, full_name: trader.fullName });
    client.close();
  });

  it('closes with 4001 after an error on a bad token', async () => {
    const client = await Client.open(t);
    client.send({ type: 'authenticate', token: 'not-a-jwt' });
    const error = await client.next('error');
    expect(error.message).toMatch(/token/i);
    expect((await client.closed).code).toBe(4001);
  });

  it('closes with 4001 when no authentication arrives within 10 s', async () => {
    const client = await Client.open(t);
    clock.advance(9_000);
    await sleep(600);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    clock.advance(1_000);
    const closed = await client.closed;
    expect(closed.code).toBe(4001);
    expect(client.of('error').map((e) => e.message)).toEqual(['Authentication timeout']);
  });

  it('answers messages sent before authentication with an error, and ping with pong', async () => {
    const client = await Client.open(t);
    client.send({ type: 'get_positions_update' });
    expect((await client.next('error')).message).toBe('Authenticate first');
    client.send({ type: 'ping' });
    await client.next('pong');
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.close();
  });

  it('answers anything malformed with an error and stays open', async () => {
    const trader = await signedInTrader(t);
    const client = await Client.signedIn(t, trader.session.token);
    const from = client.mark();
    for (const bad of [
      'not json',
      '[1,2]',
      '{"no":"type"}',
      '{"type":"launch_rockets"}',
      '{"type":"subscribe_to_pnl","extra":1}',
      '42',
    ]) {
      client.send(bad);
    }
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await client.next('error', { from, where: () => client.of('error', from).length >= 7 });
    expect(client.of('error', from).map((e) => e.message)).toEqual([
      'Invalid JSON',
      'Message must be a JSON object',
      'Unknown message type: undefined',
      'Unknown message type: launch_rockets',
      expect.stringMatching(/^Invalid subscribe_to_pnl message/),
      'Message must be a JSON object',
      'Messages must be JSON text',
    ]);
    client.send({ type: 'ping' });
    await client.next('pong', { from });
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.close();
  });

  it('sends positions_update with the positions as the REST calls answer them', async () => {
    const trader = await signedInTrader(t);
    await order(trader.headers, 'EURUSD', 'BUY', 0.5);
    await order(trader.headers, 'USDJPY', 'SELL', 0.2);
    const client = await Client.signedIn(t, trader.session.token);
    client.send({ type: 'get_positions_update' });
    const update = await client.next('positions_update');
    const platform = (await t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers: trader.headers })).json();
    expect(update.data).toEqual(platform.data.open_positions);
    expect(update.data.map((p) => [p.fx_pair_symbol, p.side, p.quantity])).toEqual([
      ['EURUSD', 'LONG', 0.5],
      ['USDJPY', 'SHORT', -0.2],
    ]);
    for (const p of update.data) positionSchema.parse(p);
    client.close();
  });

  it('sends order_confirmation after a REST order, and pnl_update after a close realizes P&L', async () => {
    const trader = await signedInTrader(t);
    const client = await Client.signedIn(t, trader.session.token);
    const placed = await order(trader.headers, 'GBPUSD', 'BUY', 1);
    const confirmation = await client.next('order_confirmation');
    expect(confirmation.data).toEqual(placed);
    expect(client.of('pnl_update')).toEqual([]);

    tick('GBPUSD', 1.3012, 1.3014); // +10 pips on the bid: +100.00 USD
    const from = client.mark();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/trading/close-position/${placed.position.id}/`,
      headers: trader.headers,
      payload: {},
    });
    expect(res.statusCode).toBe(200);
    const closed = res.json().data;
    expect(closed.profit_loss).toBe(100);
    const pnl = await client.next('pnl_update', { from });
    expect(pnl.trades).toEqual([{ trade_id: expect.any(Number), position_id: placed.position.id, pnl: 100 }]);
    const closeConfirmation = await client.next('order_confirmation', { from });
    expect(closeConfirmation.data.order).toEqual(closed.order);
    expect(closeConfirmation.data.order.reason).toBe('close');
    tick('GBPUSD', 1.3, 1.3002);
    client.close();
  });

  it('confirms a P&L subscription, then streams pnl_batch_update and account_update at most twice a second', async () => {
    const trader = await signedInTrader(t);
    const placed = await order(trader.headers, 'EURUSD', 'BUY', 1);
    const client = await Client.signedIn(t, trader.session.token);
    client.send({ type: 'subscribe_to_pnl' });
    await client.next('pnl_subscription_confirmed');
    const first = await client.next('account_update');
    expect(first.data).toMatchObject({ balance: 10_000, leverage: 100 });

    // 60 ticks over 1.5 s.
    const from = client.mark();
    const started = performance.now();
    let bid = 1.1;
    for (let i = 0; i < 60; i++) {
      bid = Math.round((bid + 0.00001) * 100_000) / 100_000;
      tick('EURUSD', bid, Math.round((bid + 0.0001) * 100_000) / 100_000);
      await sleep(25);
    }
    await sleep(700);
    const batches = client.received.slice(from).filter((r) => r.message.type === 'pnl_batch_update');
    const accounts = client.received.slice(from).filter((r) => r.message.type === 'account_update');
    const elapsed = performance.now() - started;
    for (const list of [batches, accounts]) {
      expect(list.length).toBeGreaterThanOrEqual(2);
      expect(list.length).toBeLessThanOrEqual(Math.ceil(elapsed / 500) + 1);
      // Steady changes: the server spaces them by 500 ms, and never sends 3 in a second
      // (pacer.test.ts checks both exactly); arrival times jitter.
      for (let i = 1; i < list.length; i++) expect(list[i]!.at - list[i - 1]!.at).toBeGreaterThan(350);
      for (let i = 2; i < list.length; i++) expect(list[i]!.at - list[i - 2]!.at).toBeGreaterThan(850);
    }
    // The last update carries the last tick, and equals what the REST calls answer at that price.
    const last = batches.at(-1)!.message as Extract<Message, { type: 'pnl_batch_update' }>;
    const platform = (await t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers: trader.headers })).json()
      .data;
    const position = platform.open_positions.find((p: { id: number }) => p.id === placed.position.id);
    expect(last.updates).toEqual([
      { position_id: placed.position.id, unrealized_pnl: position.unrealized_pnl, current_price: bid },
    ]);
    const lastAccount = accounts.at(-1)!.message as Extract<Message, { type: 'account_update' }>;
    const { id: _id, currency: _currency, ...figures } = platform.trading_account;
    expect(lastAccount.data).toEqual(figures);
    client.close();
  });

  it('sends a cross’s P&L at once when its own price ticks, a conversion rate’s change riding along or within a second', async () => {
    // A EURGBP position's P&L is in GBP, valued in USD through GBPUSD, and its margin in EUR
    // through EURUSD: three pairs move it, more than the 2 updates a second allowed.
    tick('EURGBP', 0.85, 0.8502);
    const trader = await signedInTrader(t);
    await order(trader.headers, 'EURGBP', 'BUY', 1);
    const client = await Client.signedIn(t, trader.session.token);
    client.send({ type: 'subscribe_to_pnl' });
    await client.next('pnl_batch_update');
    // A quiet second: the connection's last updates have left the one-second window.
    await sleep(1100);
    const platformPnl = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers: trader.headers })).json().data
        .open_positions[0].unrealized_pnl;

    // The rates move, then its own price 80 ms later: one update, at once, carrying all three.
    let from = client.mark();
    tick('GBPUSD', 1.31, 1.3102);
    tick('EURUSD', 1.11, 1.1101);
    await sleep(80);
    let sent = performance.now();
    tick('EURGBP', 0.851, 0.8512);
    const own = await client.next('pnl_batch_update', { from });
    expect(own.updates[0]!.current_price).toBe(0.851);
    expect(own.updates[0]!.unrealized_pnl).toBe(await platformPnl());
    expect(client.received.at(-1)!.at - sent).toBeLessThan(250);
    expect(client.of('pnl_batch_update', from)).toHaveLength(1);

    // A rate alone waits for the account's own price, at most a second.
    await sleep(300);
    from = client.mark();
    sent = performance.now();
    tick('GBPUSD', 1.3, 1.3002);
    const alone = await client.next('pnl_batch_update', { from });
    const waited = client.received.at(-1)!.at - sent;
    expect(alone.updates[0]!.current_price).toBe(0.851);
    expect(alone.updates[0]!.unrealized_pnl).toBe(await platformPnl());
    expect(waited).toBeGreaterThan(900);
    expect(waited).toBeLessThan(2000);
    tick('EURUSD', 1.1, 1.1001);
    client.close();
  });

  it('coalesces price_update to at most 4 per second per symbol', async () => {
    const trader = await signedInTrader(t);
    const client = await Client.signedIn(t, trader.session.token);
    const from = client.mark();
    const started = performance.now();
    let bid = 150;
    for (let i = 0; i < 100; i++) {
      bid = Math.round((bid + 0.001) * 1000) / 1000;
      tick('USDJPY', bid, Math.round((bid + 0.02) * 1000) / 1000);
      tick('EURUSD', 1.1, 1.1001);
      await sleep(10);
    }
    await sleep(400);
    const elapsed = performance.now() - started;
    for (const symbol of ['USDJPY', 'EURUSD']) {
      const updates = client.received.slice(from).filter((r) => r.message.type === 'price_update' && r.message.symbol === symbol);
      expect(updates.length).toBeGreaterThanOrEqual(3);
      expect(updates.length).toBeLessThanOrEqual(Math.ceil(elapsed / 250) + 1);
      for (let i = 1; i < updates.length; i++) expect(updates[i]!.at - updates[i - 1]!.at).toBeGreaterThan(150);
    }
    const last = client
      .of('price_update', from)
      .filter((m) => m.symbol === 'USDJPY')
      .at(-1)!;
    expect(last).toEqual({
      type: 'price_update',
      symbol: 'USDJPY',
      bid,
      ask: Math.round((bid + 0.02) * 1000) / 1000,
      price: Math.round((bid + 0.01) * 10_000) / 10_000,
      timestamp: new Date(clock.now()).toISOString(),
    });
    client.close();
  });

  it('sends margin_call once when the margin level falls to 100 %, and to a trader who subscribes while in it', async () => {
    tick('USDJPY', 150, 150.02);
    // 1 lot USDJPY sold at 150.00 with 1,050.00 USD: margin 1,000.00; valued at the ask
    // 150.02: −13.33 USD, margin level 103.67 %.
    const trader = await signedInTrader(t, { balanceMinor: 105_000 });
    await order(trader.headers, 'USDJPY', 'SELL', 1);
    const client = await Client.signedIn(t, trader.session.token);
    client.send({ type: 'subscribe_to_pnl' });
    await client.next('pnl_subscription_confirmed');
    expect((await client.next('account_update')).data.margin_level).toBe(103.67);
    tick('USDJPY', 150.06, 150.08); // −8,000 JPY at mid 150.07: −53.31 USD, 99.67 %
    const call = await client.next('margin_call');
    expect(call.data).toEqual({
      margin_level: 99.67,
      equity: 996.69,
      margin_used: 1000,
      message: 'Margin call: your margin level is 99.67%. Positions are closed automatically from 50%, largest loss first.',
    });
    tick('USDJPY', 150.07, 150.09);
    await sleep(100);
    expect(client.of('margin_call')).toHaveLength(1);

    const late = await Client.signedIn(t, trader.session.token);
    late.send({ type: 'subscribe_to_pnl' });
    expect((await late.next('margin_call')).data.margin_level).toBeLessThanOrEqual(100);

    // Back above 100 % re-arms it; the next fall sends another.
    tick('USDJPY', 149.9, 149.92);
    tick('USDJPY', 150.07, 150.09);
    await client.next('margin_call', { where: () => client.of('margin_call').length === 2 });
    tick('USDJPY', 150, 150.02);
    client.close();
    late.close();
  });

  it('closes on logout of the session', async () => {
    const trader = await signedInTrader(t);
    const client = await Client.signedIn(t, trader.session.token);
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout/', headers: trader.headers, payload: {} });
    expect(res.statusCode).toBe(200);
    expect((await client.closed).code).toBe(4001);
  });

  it('closes every socket of a trader who is disabled', async () => {
    const trader = await signedInTrader(t);
    const [a, b] = await Promise.all([Client.signedIn(t, trader.session.token), Client.signedIn(t, trader.session.token)]);
    const other = await signedInTrader(t);
    const bystander = await Client.signedIn(t, other.session.token);
    await disableTrader(t.ctx, trader.email);
    expect((await a.closed).code).toBe(4001);
    expect((await b.closed).code).toBe(4001);
    bystander.send({ type: 'ping' });
    await bystander.next('pong');
    bystander.close();
  });

  it('closes on token expiry unless re-authenticated with a fresh token', async () => {
    const trader = await signedInTrader(t);
    const client = await Client.signedIn(t, trader.session.token);
    // 50 minutes later (tokens live 60), a fresh token arrives over the socket.
    clock.advance(50 * 60_000);
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh/',
      payload: { refresh: trader.session.refresh },
    });
    expect(refreshed.statusCode).toBe(200);
    const from = client.mark();
    client.send({ type: 'authenticate', token: refreshed.json().data.access });
    await client.next('connection_established', { from });
    clock.advance(15 * 60_000); // past the first token's expiry, within the second's
    await sleep(600);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    clock.advance(50 * 60_000);
    expect((await client.closed).code).toBe(4001);
    expect(client.of('error').map((e) => e.message)).toContain('Token expired');
  });

  it('tells a trader without a trading account so, with no positions', async () => {
    const trader = await signedInTrader(t, { withAccount: false });
    const client = await Client.signedIn(t, trader.session.token);
    client.send({ type: 'get_positions_update' });
    expect((await client.next('positions_update')).data).toEqual([]);
    client.send({ type: 'subscribe_to_pnl' });
    expect((await client.next('error')).message).toBe('Trading account not found');
    expect(client.of('pnl_subscription_confirmed')).toEqual([]);
    client.close();
  });

  it('refuses to switch a connection to another trader (4001)', async () => {
    const [first, second] = [await signedInTrader(t), await signedInTrader(t)];
    const client = await Client.signedIn(t, first.session.token);
    client.send({ type: 'authenticate', token: second.session.token });
    expect((await client.next('error')).message).toBe('The token belongs to another user');
    expect((await client.closed).code).toBe(4001);
  });

  it('closes a connection that floods it with messages (1008)', async () => {
    const trader = await signedInTrader(t);
    const client = await Client.signedIn(t, trader.session.token);
    for (let i = 0; i < 200; i++) client.send({ type: 'ping' });
    expect((await client.closed).code).toBe(1008);
    expect(client.of('pong').length).toBeLessThan(200);
  });
});
