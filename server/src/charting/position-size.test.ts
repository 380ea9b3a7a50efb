import { positionSizeSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { placeFilledMarketOrder } from '../test/scripted-trading.js';

// docs/charting.md#position-size: lots = the largest multiple of 0.01 whose loss at the stop is
// within risk_pct % of equity, in USD at current mids. Every expected figure is worked by hand.

let t: TestApp;
const prices = new ScriptedPriceSource();
type Who = Awaited<ReturnType<typeof insertSignedInTrader>>;

const tick = (symbol: string, bid: number, ask: number) => prices.push({ symbol, bid, ask, timestamp: Date.now() });

const size = (who: Who, query: Record<string, string>) =>
  t.app.inject({ method: 'GET', url: '/api/trading/position-size/', query, headers: who.headers });

async function sized(who: Who, query: Record<string, string>) {
  const res = await size(who, query);
  expect(res.statusCode, res.body).toBe(200);
  return positionSizeSchema.parse(res.json().data);
}

beforeAll(async () => {
  t = await startTestApp({ priceSource: prices });
  tick('EURUSD', 1.1, 1.1001);
  tick('USDJPY', 150, 150.02); // mid 150.01
  tick('GBPUSD', 1.25, 1.2502); // mid 1.2501
  tick('EURGBP', 0.85, 0.8502);
  tick('GBPJPY', 190, 190.03);
  tick('EURCHF', 0.955, 0.9552); // no USDCHF price: CHF cannot be converted
  await vi.waitFor(() => expect(t.market.prices.latest('EURCHF')?.bid).toBe(0.955), { timeout: 10_000 });
});
afterAll(async () => {
  await t?.close();
});

describe('position size from risk', () => {
  it('EURUSD at a 20-pip stop with 10,000 equity and 1 % risk is 0.50 lots', async () => {
    const trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
    // 1 % of 10,000 = 100 USD; one pip of one lot = 0.0001 × 100,000 = 10 USD; 100 ÷ (20 × 10) = 0.50.
    expect(await sized(trader, { symbol: 'eurusd', risk_pct: '1', stop_pips: '20' })).toEqual({
      lots: 0.5,
      risk_amount: 100,
      pip_value_per_lot: 10,
      stop_pips: 20,
    });
    // 100 % at a 1-pip stop would be 10,000 ÷ 10 = 1,000 lots: capped at the pair's 100.
    expect((await sized(trader, { symbol: 'EURUSD', risk_pct: '100', stop_pips: '1' })).lots).toBe(100);
    // 0.001 % is 0.10 USD; 0.01 lots lose 2 USD at 20 pips: nothing the pair accepts fits.
    expect(await sized(trader, { symbol: 'EURUSD', risk_pct: '0.001', stop_pips: '20' })).toMatchObject({
      lots: 0,
      risk_amount: 0.1,
    });
  });

  describe('in a losing account: 10,000 balance, 1.00 EURUSD bought at 1.1001 and now bid 1.0951', () => {
    let trader: Who;
    beforeAll(async () => {
      trader = await insertSignedInTrader(t, { balanceMinor: 1_000_000 });
      await placeFilledMarketOrder(t, trader, { symbol: 'EURUSD', side: 'BUY', quantity: 1 });
      tick('EURUSD', 1.0951, 1.0952);
      // Equity = 10,000 + 100,000 × (1.0951 − 1.1001) = 10,000 − 500 = 9,500: 1 % of it is 95.
      await vi.waitFor(
        async () => expect((await sized(trader, { symbol: 'EURUSD', risk_pct: '1', stop_pips: '20' })).risk_amount).toBe(95),
        { timeout: 10_000 },
      );
    });

    it('USDJPY: 25 pips at 1 % is 0.57 lots', async () => {
      // One pip of one lot = 0.01 × 100,000 = 1,000 JPY = 1,000 ÷ 150.01 = 6.666… USD.
      // 0.57 lots lose 0.57 × 25 × 1,000 ÷ 150.01 = 14,250 ÷ 150.01 = 94.99 ≤ 95;
      // 0.58 lose 14,500 ÷ 150.01 = 96.66 > 95.
      expect(await sized(trader, { symbol: 'USDJPY', risk_pct: '1', stop_pips: '25' })).toEqual({
        lots: 0.57,
        risk_amount: 95,
        pip_value_per_lot: 6.67,
        stop_pips: 25,
      });
    });

    it('EURGBP: 15 pips at 2 % is 1.01 lots (GBP converted at GBPUSD 1.2501)', async () => {
      // 2 % of 9,500 = 190 USD. One pip of one lot = 10 GBP × 1.2501 = 12.501 USD;
      // 15 pips = 187.515 USD a lot. 1.01 lots lose 189.39 ≤ 190; 1.02 lose 191.27 > 190.
      expect(await sized(trader, { symbol: 'EURGBP', risk_pct: '2', stop_pips: '15' })).toEqual({
        lots: 1.01,
        risk_amount: 190,
        pip_value_per_lot: 12.5,
        stop_pips: 15,
      });
    });

    it('GBPJPY (a cross): a stop at 189.500 below the bid 190.000 is a BUY from the ask 190.030, 53 pips', async () => {
      // 0.5 % of 9,500 = 47.50 USD. 53 pips of one lot = 53 × 1,000 JPY = 53,000 ÷ 150.01 = 353.31 USD.
      // 0.13 lots lose 6,890 ÷ 150.01 = 45.93 ≤ 47.50; 0.14 lose 7,420 ÷ 150.01 = 49.46 > 47.50.
      expect(await sized(trader, { symbol: 'GBPJPY', risk_pct: '0.5', stop_price: '189.5' })).toEqual({
        lots: 0.13,
        risk_amount: 47.5,
        pip_value_per_lot: 6.67,
        stop_pips: 53,
      });
    });

    it('EURUSD: a stop above the ask is a SELL from the bid', async () => {
      // 1.0972 − 1.0951 = 21 pips; 95 ÷ (21 × 10) = 0.452…: 0.45 lots.
      expect(await sized(trader, { symbol: 'EURUSD', risk_pct: '1', stop_price: '1.0972' })).toEqual({
        lots: 0.45,
        risk_amount: 95,
        pip_value_per_lot: 10,
        stop_pips: 21,
      });
      // The side said: a BUY from the ask 1.0952 to a stop at 1.0932 is 20 pips: 95 ÷ 200 = 0.475: 0.47.
      expect(await sized(trader, { symbol: 'EURUSD', risk_pct: '1', stop_price: '1.0932', side: 'buy' })).toMatchObject({
        lots: 0.47,
        stop_pips: 20,
      });
    });
  });

  it('refuses what it cannot size', async () => {
    const trader = await insertSignedInTrader(t);
    const refused = async (query: Record<string, string>, status: number, code: string, field?: string) => {
      const res = await size(trader, query);
      expect(res.statusCode, `${JSON.stringify(query)}: ${res.body}`).toBe(status);
      expect(res.json().code).toBe(code);
      if (field) expect(res.json().details[0].field).toBe(field);
    };
    const eurusd = { symbol: 'EURUSD' };
    await refused({ ...eurusd, risk_pct: '1', stop_pips: '20', stop_price: '1.09' }, 400, 'VALIDATION_ERROR', 'stop_pips');
    await refused({ ...eurusd, risk_pct: '1' }, 400, 'VALIDATION_ERROR', 'stop_pips');
    await refused({ ...eurusd, risk_pct: '0', stop_pips: '20' }, 400, 'VALIDATION_ERROR', 'risk_pct');
    await refused({ ...eurusd, risk_pct: '100.5', stop_pips: '20' }, 400, 'VALIDATION_ERROR', 'risk_pct');
    await refused({ ...eurusd, risk_pct: 'much', stop_pips: '20' }, 400, 'VALIDATION_ERROR', 'risk_pct');
    await refused({ ...eurusd, risk_pct: '1', stop_pips: '0' }, 400, 'VALIDATION_ERROR', 'stop_pips');
    await refused({ ...eurusd, risk_pct: '1', stop_pips: '20', side: 'up' }, 400, 'VALIDATION_ERROR', 'side');
    // Bid 1.0951, ask 1.0952: a stop between them protects neither side; one above the ask is no BUY's.
    await refused({ ...eurusd, risk_pct: '1', stop_price: '1.09515' }, 400, 'VALIDATION_ERROR', 'stop_price');
    await refused({ ...eurusd, risk_pct: '1', stop_price: '1.096', side: 'BUY' }, 400, 'VALIDATION_ERROR', 'stop_price');
    await refused({ symbol: 'XAUUSD', risk_pct: '1', stop_pips: '20' }, 404, 'PAIR_NOT_FOUND');
    // No tick yet for AUDJPY; EURCHF has one but CHF has no USD rate.
    await refused({ symbol: 'AUDJPY', risk_pct: '1', stop_pips: '20' }, 503, 'UNAVAILABLE');
    await refused({ symbol: 'EURCHF', risk_pct: '1', stop_pips: '20' }, 503, 'UNAVAILABLE');
    const unregistered = await insertSignedInTrader(t, { withAccount: false });
    const noAccount = await size(unregistered, { ...eurusd, risk_pct: '1', stop_pips: '20' });
    expect(noAccount.statusCode).toBe(409);
    expect(noAccount.json().code).toBe('NO_TRADING_ACCOUNT');
  });
});
