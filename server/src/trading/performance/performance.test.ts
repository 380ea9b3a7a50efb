import { equityCurveSchema, performanceSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTransaction } from '../../db/transaction.js';
import { insertSignedInTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { placeFilledMarketOrder, scriptedMarket, type SignedInTrader as Trader } from '../../test/scripted-trading.js';
import { auditAccount } from '../audit.js';

let t: TestApp;
const { prices, clock, quote, advance } = scriptedMarket();

async function order(trader: Trader, symbol: string, side: 'BUY' | 'SELL', quantity: number) {
  advance(60_000);
  await placeFilledMarketOrder(t, trader, { symbol, side, quantity });
}

const get = (trader: Trader, url: string) => t.app.inject({ method: 'GET', url, headers: trader.headers });

beforeAll(async () => {
  t = await startTestApp({ priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000' } });
  for (const [symbol, price] of [
    ['EURUSD', 1.085],
    ['GBPUSD', 1.27],
    ['USDJPY', 150],
    ['EURJPY', 162.75],
  ] as const) {
    quote(symbol, price);
  }
});
afterAll(async () => {
  await t.close();
});

/**
 * Six closed trades, hand-computed (docs/performance.md#definitions); buys fill at the ask, sells at the bid:
 *  EURUSD buy 1.00 @ 1.08501; sell 0.50 @ 1.08751 → 50,000 × 0.0025 = +125.00 (reduce)
 *  EURUSD sell 1.00 @ 1.08751 → closes the 0.50 long: +125.00, opens 0.50 short (flip)
 *  EURUSD buy 0.50 @ 1.08851 → 50,000 × −0.001 = −50.00
 *  USDJPY buy 1.00 @ 150.001; sell @ 149.701 → −30,000 JPY ÷ 149.7015 (mid) = −200.40
 *  EURJPY (a cross) buy 0.10 @ 162.750; sell @ 163.000 → 2,500 JPY ÷ 149.7015 = +16.70
 *  GBPUSD buy 0.10 @ 1.27001; sell 0.10 @ 1.27001 → 0.00 (breakeven)
 */
async function scriptedTrades(trader: Trader) {
  quote('EURUSD', 1.085);
  quote('USDJPY', 150);
  quote('EURJPY', 162.749);
  quote('GBPUSD', 1.27);
  await order(trader, 'EURUSD', 'BUY', 1);
  quote('EURUSD', 1.08751);
  await order(trader, 'EURUSD', 'SELL', 0.5);
  await order(trader, 'EURUSD', 'SELL', 1);
  quote('EURUSD', 1.0885);
  await order(trader, 'EURUSD', 'BUY', 0.5);
  await order(trader, 'USDJPY', 'BUY', 1);
  quote('USDJPY', 149.701);
  await order(trader, 'USDJPY', 'SELL', 1);
  await order(trader, 'EURJPY', 'BUY', 0.1);
  quote('EURJPY', 163);
  await order(trader, 'EURJPY', 'SELL', 0.1);
  await order(trader, 'GBPUSD', 'BUY', 0.1);
  quote('GBPUSD', 1.27001);
  await order(trader, 'GBPUSD', 'SELL', 0.1);
}

describe('GET trading/performance/', () => {
  it('answers the hand-computed figures after scripted trades', async () => {
    const trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
    await scriptedTrades(trader);
    const res = await get(trader, '/api/trading/performance/');
    expect(res.statusCode, res.body).toBe(200);
    const data = performanceSchema.parse(res.json().data);
    expect(data).toMatchObject({
      start_balance: 10000,
      equity: 10016.3,
      net_pnl: 16.3,
      return_pct: 0.16,
      closed_trades: 6,
      wins: 3,
      losses: 2,
      breakevens: 1,
      win_rate: 60,
      profit_factor: 1.07, // 266.70 ÷ 250.40
      expectancy: 2.72, // 16.30 ÷ 6
      average_win: 88.9,
      average_loss: -125.2,
      largest_win: 125,
      largest_loss: -200.4,
      longest_win_streak: 2,
      longest_loss_streak: 2,
      // Peak 10,250.00 (the 0.50 long at +125.00), trough 9,999.53 (the EURJPY buy, a point under water).
      max_drawdown_pct: 2.44,
    });
    expect(data.by_pair).toEqual([
      { symbol: 'EURJPY', trades: 1, net_pnl: 16.7, win_rate: 100 },
      { symbol: 'EURUSD', trades: 3, net_pnl: 200, win_rate: 66.67 },
      { symbol: 'GBPUSD', trades: 1, net_pnl: 0, win_rate: null },
      { symbol: 'USDJPY', trades: 1, net_pnl: -200.4, win_rate: 0 },
    ]);
    expect(Date.parse(data.period_start)).toBeLessThanOrEqual(clock.now());
    await auditAccount(t.ctx.db, trader.accountId!);
  });

  it('an account with no trade answers zeros and nulls', async () => {
    const trader = await insertSignedInTrader(t, { balanceMinor: 500_000 });
    const data = performanceSchema.parse((await get(trader, '/api/trading/performance/')).json().data);
    expect(data).toMatchObject({
      start_balance: 5000,
      equity: 5000,
      net_pnl: 0,
      return_pct: 0,
      closed_trades: 0,
      win_rate: null,
      profit_factor: null,
      expectancy: null,
      average_win: null,
      largest_loss: null,
      max_drawdown_pct: 0,
      by_pair: [],
    });
  });

  it('equity counts open positions and the start counts deposits, not P&L', async () => {
    const trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
    quote('EURUSD', 1.085);
    await order(trader, 'EURUSD', 'BUY', 1);
    quote('EURUSD', 1.08601);
    await order(trader, 'EURUSD', 'SELL', 0.5); // 50,000 × (1.08601 − 1.08501) = +50.00
    // A deposit after the period started raises the start, not the return.
    await writeTransaction(t.ctx.db, async (trx) => {
      const { postLedgerEntry } = await import('../../accounts/index.js');
      await postLedgerEntry(trx, {
        accountId: trader.accountId!,
        kind: 'deposit',
        amountMinor: 100_000,
        reference: null,
        now: clock.now(),
      });
    });
    quote('EURUSD', 1.08401); // the open 0.50 long is now −50.00
    const data = performanceSchema.parse((await get(trader, '/api/trading/performance/')).json().data);
    expect(data.start_balance).toBe(11000);
    expect(data.net_pnl).toBe(50);
    expect(data.equity).toBe(11000);
    expect(data.return_pct).toBe(0);
    quote('EURUSD', 1.085);
  });

  it('builds the period of an account that traded before the statistics existed', async () => {
    const trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
    quote('EURUSD', 1.085);
    await order(trader, 'EURUSD', 'BUY', 0.2);
    quote('EURUSD', 1.08701);
    await order(trader, 'EURUSD', 'SELL', 0.3); // flip: 20,000 × 0.002 = +40.00
    quote('EURUSD', 1.088);
    await order(trader, 'EURUSD', 'BUY', 0.1); // closes the 0.10 short at 1.08801: −10.00
    const before = performanceSchema.parse((await get(trader, '/api/trading/performance/')).json().data);
    // Forget the statistics, as if the account predated them: the first call rebuilds them from the trades.
    await writeTransaction(t.ctx.db, async (trx) => {
      await trx.deleteFrom('journal_entries').where('account_id', '=', trader.accountId!).execute();
      await trx.deleteFrom('performance_periods').where('account_id', '=', trader.accountId!).execute();
    });
    const rebuilt = performanceSchema.parse((await get(trader, '/api/trading/performance/')).json().data);
    expect(rebuilt).toEqual({ ...before, max_drawdown_pct: 0 });
    expect(rebuilt).toMatchObject({ closed_trades: 2, wins: 1, losses: 1, net_pnl: 30 });
    const journal = (await get(trader, '/api/trading/journal/')).json();
    expect(journal.count).toBe(2);
    expect(journal.results.map((e: { trade: { realized_pnl: number } }) => e.trade.realized_pnl)).toEqual([-10, 40]);
  });

  it('answers 409 without a trading account and 401 without a token', async () => {
    const trader = await insertSignedInTrader(t, { withAccount: false });
    expect((await get(trader, '/api/trading/performance/')).statusCode).toBe(409);
    expect((await t.app.inject({ method: 'GET', url: '/api/trading/performance/' })).statusCode).toBe(401);
  });
});

describe('GET trading/equity-curve/', () => {
  it('has a point at every execution, oldest first, and the ranges cut by time', async () => {
    const trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
    await scriptedTrades(trader);
    const res = await get(trader, '/api/trading/equity-curve/?range=all');
    expect(res.statusCode, res.body).toBe(200);
    const points = equityCurveSchema.parse(res.json().data);
    // Open positions count at bid (long) or ask (short): one point under water right after a buy.
    expect(points.map((p) => p.equity)).toEqual([
      9999, 10250, 10249.5, 10200, 10199.33, 9999.6, 9999.53, 10016.3, 10016.2, 10016.3,
    ]);
    expect(points.at(-1)).toMatchObject({ balance: 10016.3 });
    const times = points.map((p) => Date.parse(p.time));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    clock.advance(8 * 24 * 60 * 60 * 1000);
    const week = equityCurveSchema.parse((await get(trader, '/api/trading/equity-curve/?range=1w')).json().data);
    expect(week).toEqual([]);
    const month = equityCurveSchema.parse((await get(trader, '/api/trading/equity-curve/?range=1m')).json().data);
    expect(month).toHaveLength(10);
    const plain = equityCurveSchema.parse((await get(trader, '/api/trading/equity-curve/')).json().data);
    expect(plain).toHaveLength(10);
  });

  it('answers 400 naming range for an unknown range', async () => {
    const trader = await insertSignedInTrader(t);
    const res = await get(trader, '/api/trading/equity-curve/?range=2y');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'range' }] });
  });
});
