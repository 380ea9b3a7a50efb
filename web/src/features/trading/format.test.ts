import { describe, expect, it } from 'vitest';
import { digitsLookup, formatDateTime, formatLeverage, formatLots, formatPnl, formatQuote, formatUsd } from './format';
import { LOT_MAX_FALLBACK, LOT_MIN_FALLBACK, lotHint, lotSizeProblem, pairLotBounds } from './lotRules';

describe('figures on the trading screens (docs/screens.md#formatting)', () => {
  it('money is USD with 2 decimals', () => {
    expect(formatUsd(10_000)).toBe('$10,000.00');
    expect(formatUsd(-52.42)).toBe('-$52.42');
    expect(formatUsd(-0.001)).toBe('$0.00');
  });

  it('P&L is always signed, never "-$0.00"', () => {
    expect(formatPnl(16)).toBe('+$16.00');
    expect(formatPnl(-52.42)).toBe('-$52.42');
    expect(formatPnl(-0)).toBe('$0.00');
    expect(formatPnl(0.004)).toBe('$0.00');
  });

  it("prices use the pair's digits; lots 2 decimals, unsigned; leverage N:1", () => {
    const digits = digitsLookup([{ symbol: 'EURUSD', digits: 5 }]);
    expect(formatQuote(1.0873449, digits('EURUSD'))).toBe('1.08734');
    expect(formatQuote(151.2345, digits('USDJPY'))).toBe('151.235');
    expect(formatQuote(null, 5)).toBe('—');
    expect(formatLots(-0.1)).toBe('0.10');
    expect(formatLeverage(100)).toBe('100:1');
  });

  it('times read in the trader’s zone, and an unreadable one reads empty', () => {
    expect(formatDateTime('2026-04-01T12:03:04Z')).toMatch(/^\d{2} [A-Z][a-z]{2} 2026, \d{2}:03:04$/);
    expect(formatDateTime('soon')).toBe('');
  });
});

describe('lot size rules (docs/screens.md#order-forms)', () => {
  it('falls back to 0.01 and 100 when the pair gives no bound', () => {
    expect(pairLotBounds(undefined)).toEqual({ min: LOT_MIN_FALLBACK, max: LOT_MAX_FALLBACK });
    expect(pairLotBounds({ min_lot_size: 0.1, max_lot_size: null })).toEqual({ min: 0.1, max: 100 });
    expect(lotHint({ min: 0.01, max: 100 })).toBe('Minimum: 0.01, Maximum: 100.00');
  });

  it('says why a lot size cannot be sent', () => {
    const bounds = { min: 0.01, max: 100 };
    expect(lotSizeProblem('', bounds)).toBeNull();
    expect(lotSizeProblem('0.01', bounds)).toBeNull();
    expect(lotSizeProblem('100', bounds)).toBeNull();
    expect(lotSizeProblem('abc', bounds)).toBe('Enter a number of lots');
    expect(lotSizeProblem('0', bounds)).toBe('Lot size must be greater than 0');
    expect(lotSizeProblem('0.005', bounds)).toBe('Lot size must be in steps of 0.01');
    expect(lotSizeProblem('100.01', bounds)).toBe('Lot size must be at most 100.00');
    expect(lotSizeProblem('0.01', { min: 0.1, max: 1 })).toBe('Lot size must be at least 0.10');
  });
});
