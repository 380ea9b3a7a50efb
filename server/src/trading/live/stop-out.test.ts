import type { OrderDto, PlaceMarketOrderResponse } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../accounts/index.js';
import { ScriptedPriceSource } from '../../market/index.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { signedInTrader } from '../../test/traders.js';
import { auditAccount } from '../audit.js';

/**
 * Stop-out and negative balance protection of docs/trading-rules.md#margin-call-and-stop-out, driven by a scripted price source
 * through the whole server (price book → live book → risk engine → trading service → database).
 * The traders have no socket: risk is watched whether they are connected or not.
 */
describe('stop-out', () => {
  let t: TestApp;
  const prices = new ScriptedPriceSource();
  const tick = (symbol: string, bid: number, ask: number) => prices.push({ symbol, bid, ask, timestamp: t.ctx.clock.now() });

  beforeAll(async () => {
    t = await startTestApp({ listen: false, priceSource: prices });
  });
  afterAll(async () => {
    await t?.close();
  });

  function reset() {
    tick('EURUSD', 1.1, 1.1001);
    tick('GBPUSD', 1.3, 1.3002);
  }

  /** A trader with 1,000.00 USD at 100:1 holding 0.5 lot EURUSD (margin 550.03) and 0.3 lot GBPUSD (390.03). */
  async function exposedTrader() {
    reset();
    const trader = await signedInTrader(t, { balanceMinor: 100_000, leverage: 100 });
    for (const [symbol, quantity] of [
      ['EURUSD', 0.5],
      ['GBPUSD', 0.3],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/trading/place-market-order/',
        headers: trader.headers,
        payload: { symbol, side: 'BUY', quantity },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect((res.json().data as PlaceMarketOrderResponse).order.status).toBe('FILLED');
    }
    return trader;
  }

  const platform = async (headers: Record<string, string>) =>
    (await t.app.inject({ method: 'GET', url: '/api/trading/platform-data/', headers })).json().data;

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async function stopOutOrders(headers: Record<string, string>): Promise<OrderDto[]> {
    const res = await t.app.inject({ method: 'GET', url: '/api/trading/orders/?page_size=100', headers });
    return (res.json().results as OrderDto[]).filter((o) => o.reason === 'stop_out').sort((a, b) => a.id - b.id);
  }

  it('does nothing above 50 %, even below the margin call level', async () => {
    const trader = await exposedTrader();
    // GBPUSD −300.00, EURUSD −5.00: equity 695.00 / margin 937.12 = 74.16 %.
    tick('GBPUSD', 1.2902, 1.2904);
    const data = await platform(trader.headers);
    expect(data.trading_account.margin_level).toBe(74.16);
    await new Promise((r) => setTimeout(r, 200));
    expect(await stopOutOrders(trader.headers)).toEqual([]);
    expect((await platform(trader.headers)).open_positions).toHaveLength(2);
  });

  it('closes the largest loser first and stops once the level is back above 50 %', async () => {
    const trader = await exposedTrader();
    // GBPUSD −600.00, EURUSD −5.00: equity 395.00 / margin 934.12 = 42.29 %.
    tick('GBPUSD', 1.2802, 1.2804);
    const data = await until(
      () => platform(trader.headers),
      (d) => d.open_positions.length === 1,
    );
    expect(data.open_positions.map((p: { fx_pair_symbol: string }) => p.fx_pair_symbol)).toEqual(['EURUSD']);
    const orders = await stopOutOrders(trader.headers);
    expect(orders.map((o) => [o.fx_pair_symbol, o.side, o.quantity, o.status, o.average_fill_price])).toEqual([
      ['GBPUSD', 'SELL', 0.3, 'FILLED', 1.2802],
    ]);
    // Balance 1,000.00 − 600.00; equity 395.00 over 550.025 of margin: 71.81 %.
    expect(data.trading_account).toMatchObject({ balance: 400, equity: 395, margin_used: 550.03, margin_level: 71.81 });
    expect(await auditAccount(t.ctx.db, trader.account!.accountId)).toEqual([]);
  });

  it('after a gap through the stop-out level, closes everything and brings the negative balance back to 0', async () => {
    const trader = await exposedTrader();
    const accountId = trader.account!.accountId;
    tick('EURUSD', 1.098, 1.0981); // EURUSD −105.00
    // A gap: GBPUSD −3,006.00 at once. Equity −2,111.00.
    tick('GBPUSD', 1.2, 1.2002);
    const data = await until(
      () => platform(trader.headers),
      (d) => d.open_positions.length === 0 && d.trading_account.balance === 0,
    );
    const orders = await stopOutOrders(trader.headers);
    // The largest loser (GBPUSD) first, then EURUSD while the level stays below 50 %.
    expect(orders.map((o) => [o.fx_pair_symbol, o.side, o.quantity, o.status])).toEqual([
      ['GBPUSD', 'SELL', 0.3, 'FILLED'],
      ['EURUSD', 'SELL', 0.5, 'FILLED'],
    ]);
    expect(data.open_positions).toEqual([]);
    expect(data.trading_account).toMatchObject({ balance: 0, equity: 0, margin_used: 0, free_margin: 0, margin_level: null });
    const ledger = await t.ctx.db.kysely
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_minor'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    expect(ledger.map((e) => [e.kind, Number(e.amount_minor)])).toEqual([
      ['deposit', 100_000],
      ['realized_pnl', -300_600], // GBPUSD: 30,000 × (1.20000 − 1.30020)
      ['realized_pnl', -10_500], // EURUSD: 50,000 × (1.09800 − 1.10010)
      ['negative_balance_adjustment', 211_100],
    ]);
    expect(await ledgerSum(t.ctx.db.kysely, accountId)).toBe(0);
    expect(await auditAccount(t.ctx.db, accountId)).toEqual([]);
  });

  it('leaves other traders alone', async () => {
    reset();
    const calm = await signedInTrader(t, { balanceMinor: 1_000_000 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/trading/place-market-order/',
      headers: calm.headers,
      payload: { symbol: 'GBPUSD', side: 'BUY', quantity: 0.1 },
    });
    expect(res.statusCode).toBe(201);
    tick('GBPUSD', 1.2, 1.2002);
    await new Promise((r) => setTimeout(r, 200));
    expect(await stopOutOrders(calm.headers)).toEqual([]);
    expect((await platform(calm.headers)).open_positions).toHaveLength(1);
  });
});
