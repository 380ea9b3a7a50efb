import { describe, expect, it } from 'vitest';
import { Dec } from './decimal.js';
import { positionSizeFromRisk, stopDistancePips } from './position-size.js';
import { UsdRate } from './trading-math.js';

const eurusd = { pip_size: 0.0001, contract_size: 100_000, min_lot_size: 0.01, max_lot_size: 100 };
const usdjpy = { pip_size: 0.01, contract_size: 100_000, min_lot_size: 0.01, max_lot_size: 100 };

describe('positionSizeFromRisk', () => {
  it('EURUSD, 20-pip stop, 10,000 equity, 1 %: 0.50 lots (the loss at 0.50 is exactly the risk)', () => {
    // 1 % of 10,000 = 100 USD; a pip of one lot = 0.0001 × 100,000 = 10 USD; 100 ÷ (20 × 10) = 0.5.
    const size = positionSizeFromRisk({ equity: 10_000, riskPct: 1, stopPips: 20, pair: eurusd, quoteUsdRate: 1 });
    expect(size.lots.toString()).toBe('0.5');
    expect(size.riskAmount.toString()).toBe('100');
    expect(size.pipValuePerLot.toString()).toBe('10');
  });

  it('a quotient that rounds up at its last decimal never tips the size over the risk', () => {
    // One lot loses 1 pip × 0.0001 × 100,000 = 10 USD; 1 % of 570 − 10⁻¹⁹ is just under 0.57
    // lots' loss, and the quotient 0.57 − 10⁻²² rounds to 0.57 at Dec's 20th decimal: the answer is 0.56.
    const equity = '569.9999999999999999999';
    expect(Dec.from(equity).div(1000).toString()).toBe('0.57');
    expect(positionSizeFromRisk({ equity, riskPct: 1, stopPips: 1, pair: eurusd, quoteUsdRate: 1 }).lots.toString()).toBe('0.56');
    expect(positionSizeFromRisk({ equity: 570, riskPct: 1, stopPips: 1, pair: eurusd, quoteUsdRate: 1 }).lots.toString()).toBe(
      '0.57',
    );
  });

  it('converts the loss through the quote currency (USDJPY at mid 150.01)', () => {
    // 1 % of 9,500 = 95 USD; 25 pips of one lot = 25 × 0.01 × 100,000 = 25,000 JPY = 166.655… USD;
    // 0.57 lots lose 14,250 ÷ 150.01 = 94.99 USD ≤ 95, 0.58 lose 96.66: 0.57.
    const size = positionSizeFromRisk({
      equity: 9_500,
      riskPct: 1,
      stopPips: 25,
      pair: usdjpy,
      quoteUsdRate: new UsdRate(Dec.ONE, Dec.from('150.01')),
    });
    expect(size.lots.toString()).toBe('0.57');
    expect(size.pipValuePerLot.toNumber(2)).toBe(6.67);
  });

  it('caps at the max lot size, and answers 0 below the min lot size', () => {
    expect(
      positionSizeFromRisk({ equity: 1_000_000, riskPct: 100, stopPips: 1, pair: eurusd, quoteUsdRate: 1 }).lots.toString(),
    ).toBe('100');
    // 0.5 % of 1,000 = 5 USD over a 20-pip stop: 0.02 lots, below a pair whose minimum is 0.1.
    const small = positionSizeFromRisk({
      equity: 1_000,
      riskPct: 0.5,
      stopPips: 20,
      pair: { ...eurusd, min_lot_size: 0.1 },
      quoteUsdRate: 1,
    });
    expect(small.lots.toString()).toBe('0');
    expect(small.riskAmount.toString()).toBe('5');
  });

  it('a negative equity risks nothing', () => {
    const size = positionSizeFromRisk({ equity: -10, riskPct: 1, stopPips: 20, pair: eurusd, quoteUsdRate: 1 });
    expect(size.lots.toString()).toBe('0');
    expect(size.riskAmount.toString()).toBe('0');
  });
});

describe('stopDistancePips', () => {
  const quote = { bid: '1.0951', ask: '1.0952' };
  it('from the ask for a BUY (stop below the bid), from the bid for a SELL (stop above the ask)', () => {
    expect(stopDistancePips(quote, '1.0932', 0.0001)).toEqual({ side: 'BUY', pips: Dec.from(20) });
    expect(stopDistancePips(quote, '1.0972', 0.0001)).toEqual({ side: 'SELL', pips: Dec.from(21) });
    expect(stopDistancePips(quote, '1.0951', 0.0001, 'BUY')).toEqual({ side: 'BUY', pips: Dec.from(1) });
  });
  it('names the problem of a stop that protects nothing', () => {
    expect(stopDistancePips(quote, '1.09515', 0.0001)).toEqual({ problem: 'STOP_INSIDE_SPREAD' });
    expect(stopDistancePips(quote, '1.0951', 0.0001)).toEqual({ problem: 'STOP_INSIDE_SPREAD' });
    expect(stopDistancePips(quote, '1.0960', 0.0001, 'BUY')).toEqual({ problem: 'STOP_WRONG_SIDE' });
    expect(stopDistancePips(quote, '1.0951', 0.0001, 'SELL')).toEqual({ problem: 'STOP_WRONG_SIDE' });
  });
});
