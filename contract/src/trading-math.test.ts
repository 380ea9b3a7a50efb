import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from './decimal.js';
import {
  accountFigures,
  closingPrice,
  conversionRoute,
  estimateMarginRequired,
  executionPrice,
  isLotStep,
  marginUsd,
  maxAllowedLots,
  maxAllowedLotsNumber,
  midOf,
  type PairTerms,
  pipValueUsd,
  pnlInQuote,
  UsdRate,
  unitsOf,
  usdRate,
} from './trading-math.js';

const pair = (symbol: string, extra: Partial<PairTerms> = {}): PairTerms => ({
  symbol,
  base_currency: symbol.slice(0, 3),
  quote_currency: symbol.slice(3),
  contract_size: 100_000,
  min_lot_size: 0.01,
  max_lot_size: 100,
  pip_size: symbol.endsWith('JPY') ? 0.01 : 0.0001,
  ...extra,
});
const CATALOGUE = [
  'EURUSD',
  'GBPUSD',
  'USDJPY',
  'USDCHF',
  'AUDUSD',
  'USDCAD',
  'NZDUSD',
  'EURGBP',
  'EURJPY',
  'GBPJPY',
  'EURCHF',
  'AUDJPY',
].map((s) => pair(s));
const mids = (m: Record<string, number>) => (symbol: string) => m[symbol];

describe('docs/trading-rules.md#numbers-that-must-hold numbers through the shared math', () => {
  it('margin: EURUSD 1 lot at 1.2000, leverage 100 → 1,200.00 USD', () => {
    const rate = usdRate('EUR', CATALOGUE, mids({ EURUSD: 1.2 }))!;
    expect(marginUsd(unitsOf(1, 100_000), rate, 100).toFixed(2)).toBe('1200.00');
    expect(estimateMarginRequired(1, pair('EURUSD'), 100, CATALOGUE, mids({ EURUSD: 1.2 }))).toBe(1200);
  });

  it('margin: EURUSD 0.1 lot at 1.1500, leverage 400 → 28.75 USD', () => {
    expect(estimateMarginRequired(0.1, pair('EURUSD'), 400, CATALOGUE, mids({ EURUSD: 1.15 }))).toBe(28.75);
  });

  it('margin: USDJPY 1 lot, leverage 100 → 1,000.00 USD whatever the price', () => {
    for (const price of [80, 115.05, 151.234])
      expect(estimateMarginRequired(1, pair('USDJPY'), 100, CATALOGUE, mids({ USDJPY: price }))).toBe(1000);
  });

  it('P&L: buy 10,000 USDJPY at 115.05, sell at 114.45 → −6,000 JPY → −52.42 USD', () => {
    const jpy = pnlInQuote(10_000, 115.05, 114.45);
    expect(jpy.toString()).toBe('-6000');
    const rate = usdRate('JPY', CATALOGUE, mids({ USDJPY: 114.45 }))!;
    expect(rate.convert(jpy).toFixed(2)).toBe('-52.42');
  });

  it('P&L: sell 10,000 EURUSD at 0.9521, buy back at 0.9505 → +16.00 USD', () => {
    expect(pnlInQuote(-10_000, 0.9521, 0.9505).toFixed(2)).toBe('16.00');
  });

  it('pip value: EURUSD 1 lot → 10 USD; USDJPY 1 lot at 119.80 → 8.35 USD', () => {
    expect(pipValueUsd(pair('EURUSD'), 1, usdRate('USD', CATALOGUE, mids({}))!).toFixed(2)).toBe('10.00');
    const jpy = usdRate('JPY', CATALOGUE, mids({ USDJPY: 119.8 }))!;
    const pip = pipValueUsd(pair('USDJPY'), 1, jpy);
    expect(pip.toFixed(3)).toBe('8.347');
    expect(pip.toFixed(2)).toBe('8.35');
  });
});

describe('conversion to USD', () => {
  it('USD is 1, CUSD multiplies, USDC divides', () => {
    expect(conversionRoute('USD', CATALOGUE)).toEqual([]);
    expect(conversionRoute('EUR', CATALOGUE)).toEqual([{ symbol: 'EURUSD', invert: false }]);
    expect(conversionRoute('CHF', CATALOGUE)).toEqual([{ symbol: 'USDCHF', invert: true }]);
    expect(
      usdRate('CHF', CATALOGUE, mids({ USDCHF: 0.8 }))!
        .toDec()
        .toString(),
    ).toBe('1.25');
  });

  it('goes through a cross when the catalogue has no USD pair for the currency', () => {
    const pairs = [pair('EURUSD'), pair('SEKEUR'), pair('EURNOK')];
    expect(conversionRoute('SEK', pairs)).toEqual([
      { symbol: 'SEKEUR', invert: false },
      { symbol: 'EURUSD', invert: false },
    ]);
    expect(
      usdRate('SEK', pairs, mids({ SEKEUR: 0.1, EURUSD: 1.1 }))!
        .toDec()
        .toString(),
    ).toBe('0.11');
    expect(
      usdRate('NOK', pairs, mids({ EURNOK: 11, EURUSD: 1.1 }))!
        .toDec()
        .toString(),
    ).toBe('0.1');
    expect(conversionRoute('XAU', pairs)).toBeUndefined();
  });

  it('divides once, at the end, so an exact half cent rounds the right way', () => {
    // 3.015 JPY at USDJPY 3 is exactly 1.005 USD → 1.01; (1 ÷ 3) rounded first would give 1.00
    const rate = usdRate('JPY', CATALOGUE, mids({ USDJPY: 3 }))!;
    expect(rate.convert('3.015').toFixed(2)).toBe('1.01');
  });

  it('converts with a whole divisor exactly as with the same divisor as a decimal (property)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`UsdRate convert property seed ${seed}`);
    const decimal = (max: bigint) =>
      fc
        .tuple(fc.bigInt({ min: -max, max }), fc.integer({ min: 0, max: 20 }))
        .map(([units, decimals]) => Dec.scaled(units, decimals));
    const positive = fc
      .tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 10 }))
      .map(([units, decimals]) => Dec.scaled(units, decimals));
    // A rate that only multiplies (CUSD, USD itself) takes the quick way; one that divides does not.
    const rate = fc.oneof(
      fc.constant(UsdRate.ONE),
      positive.map((m) => new UsdRate(m, Dec.ONE)),
      fc.tuple(positive, positive).map(([m, d]) => new UsdRate(m, d)),
    );
    const divisor = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(1, 30, 50, 100, 400, -7));
    fc.assert(
      fc.property(decimal(10n ** 30n), rate, divisor, (amount, r, k) => {
        expect(r.convert(amount, k).eq(r.convert(amount, Dec.from(String(k))))).toBe(true);
      }),
      { seed, numRuns: 3000 },
    );
    expect(UsdRate.ONE.convert('1', 3).toString()).toBe('0.33333333333333333333');
    expect(() => UsdRate.ONE.convert('1', 0)).toThrow(RangeError);
  });

  it('is undefined while a needed price is missing', () => {
    expect(usdRate('EUR', CATALOGUE, mids({}))).toBeUndefined();
    expect(estimateMarginRequired(1, pair('EURUSD'), 100, CATALOGUE, mids({}))).toBeNull();
  });

  it('mid is the exact middle of bid and ask', () => {
    expect(midOf(1.08734, 1.08737).toString()).toBe('1.087355');
  });
});

describe('execution and valuation prices', () => {
  const quote = { bid: 1.1, ask: 1.1002 };
  it('BUY at ask, SELL at bid; a long is valued at bid, a short at ask', () => {
    expect(executionPrice('BUY', quote).toString()).toBe('1.1002');
    expect(executionPrice('SELL', quote).toString()).toBe('1.1');
    expect(closingPrice(5, quote).toString()).toBe('1.1');
    expect(closingPrice(-5, quote).toString()).toBe('1.1002');
  });
});

describe('maximum allowed lots', () => {
  it('is free margin × leverage ÷ (contract × base rate), floored to 0.01 and capped', () => {
    // 1,000 USD free, leverage 100, EURUSD at 1.2: 100,000 / 120,000 = 0.8333 → 0.83
    expect(maxAllowedLots(1000, 100, pair('EURUSD'), 1.2).toString()).toBe('0.83');
    expect(maxAllowedLots(10_000_000, 100, pair('EURUSD'), 1.2).toString()).toBe('100');
    expect(maxAllowedLots(-5, 100, pair('EURUSD'), 1.2).toString()).toBe('0');
    expect(maxAllowedLotsNumber(1000, 100, pair('USDJPY'), CATALOGUE, mids({ USDJPY: 150 }))).toBe(1);
  });

  it('never allows more margin than is free', () => {
    for (const free of [0.01, 12.34, 999.99, 1000, 1234.56]) {
      const lots = maxAllowedLots(free, 100, pair('EURUSD'), 1.1234);
      expect(marginUsd(unitsOf(lots, 100_000), 1.1234, 100).lte(free)).toBe(true);
      expect(marginUsd(unitsOf(lots.plus('0.01'), 100_000), 1.1234, 100).gt(free)).toBe(true);
    }
  });
});

describe('account figures', () => {
  it('equity = balance + Σ unrealized; free = equity − margin; level = equity ÷ margin × 100', () => {
    const f = accountFigures(10_000, [
      { unrealizedPnl: Dec.from(-250), margin: Dec.from(1200) },
      { unrealizedPnl: Dec.from(50), margin: Dec.from(800) },
    ]);
    expect(f.equity.toString()).toBe('9800');
    expect(f.marginUsed.toString()).toBe('2000');
    expect(f.freeMargin.toString()).toBe('7800');
    expect(f.marginLevel!.toString()).toBe('490');
    expect(accountFigures(10, []).marginLevel).toBeNull();
  });
});

describe('lot step', () => {
  it('accepts positive multiples of 0.01 only, checked exactly', () => {
    for (const ok of [0.01, 0.1, 0.29, 1, 1.1, 99.99, 100]) expect(isLotStep(ok)).toBe(true);
    for (const bad of [0, -0.01, 0.001, 0.015, 1.234, Number.NaN, Number.POSITIVE_INFINITY]) expect(isLotStep(bad)).toBe(false);
  });
});
