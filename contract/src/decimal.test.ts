import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from './decimal.js';

describe('Dec', () => {
  it('reads numbers through their shortest decimal text, so float noise never enters', () => {
    expect(Dec.from(0.1).plus(0.2).toString()).toBe('0.3');
    expect(Dec.from(1.08734).toString()).toBe('1.08734');
    expect(Dec.from(1e-7).toString()).toBe('0.0000001');
    expect(Dec.from(-2.5e3).toString()).toBe('-2500');
    expect(Dec.from('  12.340 ').toString()).toBe('12.34');
    expect(Dec.from(10n).toString()).toBe('10');
  });

  it('rejects text that is not a decimal', () => {
    for (const bad of ['', '.', 'abc', '1.2.3', '--1', 'NaN']) expect(() => Dec.from(bad)).toThrow(RangeError);
    expect(() => Dec.from(Number.NaN)).toThrow(RangeError);
    expect(() => Dec.from(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it('rounds half away from zero for money, and floors or truncates when asked', () => {
    expect(Dec.from('0.005').round(2).toString()).toBe('0.01');
    expect(Dec.from('-0.005').round(2).toString()).toBe('-0.01');
    expect(Dec.from('-52.42461').toFixed(2)).toBe('-52.42');
    expect(Dec.from('1.239').round(2, 'floor').toString()).toBe('1.23');
    expect(Dec.from('-1.231').round(2, 'floor').toString()).toBe('-1.24');
    expect(Dec.from('-1.239').round(2, 'down').toString()).toBe('-1.23');
    expect(Dec.from('1.231').round(2, 'ceil').toString()).toBe('1.24');
    expect(Dec.from('0.004').toNumber(2)).toBe(0);
    expect(Object.is(Dec.from('-0.004').toNumber(2), -0)).toBe(false);
  });

  it('converts to and from scaled integers (cents, centilots)', () => {
    expect(Dec.scaled(123456, 2).toString()).toBe('1234.56');
    expect(Dec.scaled(-5, 2).toFixed(2)).toBe('-0.05');
    expect(Dec.from('12.345').toScaledNumber(2)).toBe(1235);
    expect(Dec.from('-12.345').toScaledNumber(2)).toBe(-1235);
    expect(() => Dec.scaled(0.5, 2)).toThrow(RangeError);
  });

  it('divides with 20 decimals, half away from zero', () => {
    expect(Dec.from(1).div(3).toString()).toBe('0.33333333333333333333');
    expect(Dec.from(2).div(3).toString()).toBe('0.66666666666666666667');
    expect(Dec.from(-2).div(3).toString()).toBe('-0.66666666666666666667');
    expect(() => Dec.from(1).div(0)).toThrow(RangeError);
  });

  it('is exact for sums and products of cents and prices (property)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`Dec property seed ${seed}`);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10_000_000, max: 10_000_000 }), { maxLength: 50 }), (cents) => {
        const sum = cents.reduce((acc, c) => acc.plus(Dec.scaled(c, 2)), Dec.ZERO);
        return sum.toScaledNumber(2) === cents.reduce((a, b) => a + b, 0);
      }),
      { seed },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 20_000_000 }), (centilots, priceE5) => {
        // lots × price in hundred-thousandths: exact integer arithmetic as the reference
        const product = Dec.scaled(centilots, 2).times(Dec.scaled(priceE5, 5));
        return product.toScaled(7) === BigInt(centilots) * BigInt(priceE5);
      }),
      { seed },
    );
  });

  it('compares', () => {
    expect(Dec.from(1).lt(2)).toBe(true);
    expect(Dec.from(2).gte('2.000')).toBe(true);
    expect(Dec.max(Dec.from(-1), Dec.ZERO).toString()).toBe('0');
    expect(Dec.from(-3).abs().toString()).toBe('3');
    expect(Dec.from(-3).sign()).toBe(-1);
    expect(JSON.stringify({ v: Dec.from('1.50') })).toBe('{"v":"1.5"}');
  });

  it('gives the number its fixed text parses to, at every precision and size', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`Dec toNumber property seed ${seed}`);
    const decimal = fc
      .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 20 }))
      .map(([units, decimals]) => Dec.scaled(units, decimals));
    const expected = (a: Dec, decimals: number) => {
      const n = Number(a.toFixed(decimals));
      return Object.is(n, -0) ? 0 : n;
    };
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 20 }), (a, decimals) => {
        expect(Object.is(a.toNumber(decimals), expected(a, decimals))).toBe(true);
      }),
      { seed, numRuns: 5000 },
    );
    // Money and prices as the sockets send them, at and near a half of the last place kept.
    for (const text of ['110.005', '-110.005', '0.125', '-0.125', '1.10125', '9007199254740.99', '-0.0049', '90071992547409.915'])
      for (const decimals of [2, 5])
        expect(Object.is(Dec.from(text).toNumber(decimals), expected(Dec.from(text), decimals))).toBe(true);
  });

  it('reads plain decimal text as the same value as its exponent form (property)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`Dec plain text property seed ${seed}`);
    // Plain text takes a quick scan; the same value written with an exponent takes the general reader.
    const text = fc.tuple(
      fc.boolean(),
      fc.stringMatching(/^[0-9]{1,25}$/),
      fc.oneof(fc.constant(''), fc.stringMatching(/^[0-9]{1,24}$/)),
    );
    fc.assert(
      fc.property(text, ([negative, whole, fraction]) => {
        const plain = `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
        const exponent = `${negative ? '-' : ''}${whole}${fraction}e-${fraction.length}`;
        expect(Dec.from(plain).eq(Dec.from(exponent))).toBe(true);
        expect(Dec.from(` ${plain} `).eq(Dec.from(exponent))).toBe(true);
      }),
      { seed, numRuns: 5000 },
    );
    expect(Dec.from('-0').toString()).toBe('0');
    expect(Dec.from('007.50').toString()).toBe('7.5');
    expect(Dec.from('123456789012345.6').toString()).toBe('123456789012345.6');
    expect(Dec.from('1.000000000000000000005').toString()).toBe('1.00000000000000000001');
    for (const other of ['1.', '.5', '+2', '-.5']) expect(Dec.from(other).toString()).toBe(String(Number(other)));
    for (const bad of ['-', '1.2.3', '1-2', '1,5', '--1', '1..2', '٣']) expect(() => Dec.from(bad)).toThrow(RangeError);
  });

  it('multiplies and divides by a whole number exactly as by the same number as a decimal', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`Dec integer-factor property seed ${seed}`);
    const decimal = fc
      .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }))
      .map(([units, decimals]) => Dec.scaled(units, decimals));
    const factor = fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.constantFrom(100_000, 1000, 3, 7, -1));
    fc.assert(
      fc.property(decimal, factor, (a, k) => {
        expect(a.times(k).eq(a.times(Dec.from(String(k))))).toBe(true);
        if (k !== 0) expect(a.div(k).eq(a.div(Dec.from(String(k))))).toBe(true);
      }),
      { seed, numRuns: 2000 },
    );
    expect(Dec.from('1.5').div(4).toString()).toBe('0.375');
    expect(Dec.from('-0.00000000000000000005').div(2).toString()).toBe('-0.00000000000000000003');
  });
});
