import { describe, expect, it } from 'vitest';
import { CURRENCIES, currencyFlag, currencyInfo, FLAG_CURRENCIES, PAIR_NICKNAMES, pairName } from './currencies.js';
import { formatPrice, roundPrice, spreadInPips } from './prices.js';

describe('currencies', () => {
  it('knows the flag currencies and an extended list, with unique codes', () => {
    const codes = CURRENCIES.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of FLAG_CURRENCIES) expect(codes).toContain(code);
    expect(codes.length).toBeGreaterThan(30);
    for (const c of CURRENCIES) {
      expect(c.code).toMatch(/^[A-Z]{3}$/);
      for (const n of c.nicknames) expect(n).toBe(n.toLowerCase());
    }
  });

  it('maps the market nicknames', () => {
    const owner = (nick: string) => CURRENCIES.filter((c) => c.nicknames.includes(nick)).map((c) => c.code);
    expect(owner('euro')).toEqual(['EUR']);
    expect(owner('yen')).toEqual(['JPY']);
    expect(owner('sterling')).toEqual(['GBP']);
    expect(owner('loonie')).toEqual(['CAD']);
    expect(owner('aussie')).toEqual(['AUD']);
    expect(owner('kiwi')).toEqual(['NZD']);
    expect(owner('swissie')).toEqual(['CHF']);
    expect(owner('greenback')).toEqual(['USD']);
    expect(PAIR_NICKNAMES.GBPUSD).toContain('cable');
    expect(PAIR_NICKNAMES.EURUSD).toContain('fiber');
  });

  it('names pairs and draws flags', () => {
    expect(pairName('EURUSD')).toBe('Euro / US Dollar');
    expect(pairName('gbpjpy')).toBe('British Pound / Japanese Yen');
    expect(pairName('XXXYYY')).toBe('XXXYYY');
    expect(currencyInfo('chf')?.name).toBe('Swiss Franc');
    expect(currencyFlag('EUR')).toBe('🇪🇺');
    expect(currencyFlag('JPY')).toBe('🇯🇵');
    expect(currencyFlag('XAU')).toBe('');
  });
});

describe('formatPrice', () => {
  it('shows the pair digits, rounding half away from zero without binary surprises', () => {
    expect(formatPrice(1.0842, 5)).toBe('1.08420');
    expect(formatPrice(151.2345, 3)).toBe('151.235');
    expect(formatPrice(1.005, 2)).toBe('1.01');
    expect(formatPrice(1.084175, 5)).toBe('1.08418');
    expect(formatPrice(-0.000015, 5)).toBe('-0.00002');
    expect(formatPrice(1e-7, 5)).toBe('0.00000');
    expect(formatPrice(Number.NaN, 5)).toBe('');
    expect(roundPrice(0.1 + 0.2, 5)).toBe(0.3);
  });

  it('measures a spread in pips', () => {
    expect(spreadInPips(1.08412, 1.08424, 0.0001)).toBe(1.2);
    expect(spreadInPips(151.234, 151.246, 0.01)).toBe(1.2);
  });
});
