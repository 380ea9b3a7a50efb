import { describe, expect, it } from 'vitest';
import type { Pair } from '../market/index.js';
import { exactPrice } from './order-rules.js';

const EURUSD: Pair = {
  id: 1,
  symbol: 'EURUSD',
  name: 'Euro / US Dollar',
  baseCurrency: 'EUR',
  quoteCurrency: 'USD',
  minLotSize: 0.01,
  maxLotSize: 100,
  contractSize: 100_000,
  spread: 1,
  pipSize: 0.0001,
  digits: 5,
  isActive: true,
};

describe('a price the trader sends (docs/orders.md#validation)', () => {
  it('is exact with at most the pair digits', () => {
    expect(exactPrice(EURUSD, 'price', 1.08125).toString()).toBe('1.08125');
    expect(() => exactPrice(EURUSD, 'price', 1.081255)).toThrow('price: must have at most 5 decimals');
  });

  it('is above 0, including numbers too small for the exact type (once stored as price 0)', () => {
    for (const value of [0, -1, Number.NaN, 1e-300, 5e-324]) {
      expect(() => exactPrice(EURUSD, 'stop_loss', value), String(value)).toThrow('stop_loss: must be greater than 0');
    }
  });
});
