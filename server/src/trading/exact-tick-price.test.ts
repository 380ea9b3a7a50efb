import { Dec } from '@pipdesk/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactTickPrice } from './math.js';

describe('exactTickPrice', () => {
  it('is the same decimal as Dec.from(price).round(digits), for tick-like and arbitrary prices', () => {
    const seed = Number(process.env.EXACT_PRICE_SEED ?? Date.now() % 2 ** 31);
    console.log(`exactTickPrice property seed ${seed}`);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.oneof(
          fc.integer({ min: 1, max: 99_999_999 }).map((units) => ({ units })),
          fc.double({ min: 1e-6, max: 1e6, noNaN: true }).map((price) => ({ price })),
        ),
        (digits, p) => {
          const price = 'units' in p ? p.units / 10 ** digits : p.price;
          const fast = exactTickPrice(price, digits);
          const slow = Dec.from(price).round(digits);
          expect(fast.eq(slow)).toBe(true);
          expect(fast.toString()).toBe(slow.toString());
        },
      ),
      { seed, numRuns: 2_000 },
    );
  });
});
