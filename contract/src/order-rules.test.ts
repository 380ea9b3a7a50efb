import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from './decimal.js';
import {
  expiryProblem,
  limitPriceProblem,
  type OrderProblem,
  orderProblemMessage,
  type ProtectionReference,
  pendingPriceProblem,
  priceProblem,
  protectionSideProblems,
  trailingPipsProblem,
} from './order-rules.js';

// docs/orders.md#validation: the rules both ends apply, and the one wording of their problems.

const DAY = 86_400_000;
const words = (problem: OrderProblem | null | undefined) => (problem ? orderProblemMessage(problem) : null);
const d = (v: string) => Dec.from(v);

/** A property's seed: printed so a failure can be replayed with PROPERTY_SEED=<seed>. */
function propertySeed(name: string): number {
  const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31;
  console.log(`${name} property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
  return seed;
}

describe('priceProblem', () => {
  it('takes a positive price with at most the pair digits', () => {
    expect(priceProblem(d('1.08734'), 5)).toBeNull();
    expect(priceProblem(1.08125, 5)).toBeNull();
    expect(words(priceProblem(d('1.087345'), 5))).toBe('must have at most 5 decimals');
    expect(words(priceProblem(d('151.2345'), 3))).toBe('must have at most 3 decimals');
    expect(words(priceProblem(d('0'), 5))).toBe('must be greater than 0');
  });

  it('is above 0 for any number, including those too small for the exact type', () => {
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e-300, 5e-324]) {
      expect(priceProblem(value, 5), String(value)).toEqual({ code: 'PRICE_NOT_POSITIVE' });
    }
  });

  it('accepts every price written with the digits and refuses one digit more (property)', () => {
    const seed = propertySeed('priceProblem');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 900_000_000 }),
        fc.constantFrom(2, 3, 5),
        fc.integer({ min: 1, max: 9 }),
        (units, digits, extra) => {
          expect(priceProblem(Dec.scaled(units, digits), digits)).toBeNull();
          expect(priceProblem(Dec.scaled(units * 10 + extra, digits + 1), digits)).toEqual({ code: 'PRICE_DECIMALS', digits });
          expect(priceProblem(Dec.scaled(-units, digits), digits)).toEqual({ code: 'PRICE_NOT_POSITIVE' });
        },
      ),
      { seed, numRuns: 500 },
    );
  });
});

describe('trailingPipsProblem', () => {
  it('takes whole pips from 5 to 1,000', () => {
    expect(trailingPipsProblem(5)).toBeNull();
    expect(trailingPipsProblem(1000)).toBeNull();
    expect(words(trailingPipsProblem(4))).toBe('must be at least 5');
    expect(words(trailingPipsProblem(1001))).toBe('must be at most 1000');
    expect(words(trailingPipsProblem(12.5))).toBe('must be a whole number of pips');
  });

  it('accepts exactly the whole numbers from 5 to 1,000 (property)', () => {
    const seed = propertySeed('trailingPipsProblem');
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -50, max: 1100 }), fc.double({ min: -50, max: 1100, noNaN: true })), (pips) => {
        expect(trailingPipsProblem(pips) === null).toBe(Number.isInteger(pips) && pips >= 5 && pips <= 1000);
      }),
      { seed, numRuns: 1000 },
    );
  });
});

describe('protectionSideProblems', () => {
  const judge = (long: boolean, reference: string, against: ProtectionReference, digits: number) => ({
    long,
    reference: d(reference),
    against,
    digits,
  });
  const sideWords = (sl: string | null, tp: string | null, j: ReturnType<typeof judge>) => {
    const problems = protectionSideProblems({ stopLoss: sl === null ? null : d(sl), takeProfit: tp === null ? null : d(tp) }, j);
    return { stopLoss: words(problems.stopLoss), takeProfit: words(problems.takeProfit) };
  };

  it('a long: stop loss below the reference, take profit above; a short the other way round', () => {
    expect(sideWords('1.19', '1.21', judge(true, '1.2', 'bid', 5))).toEqual({ stopLoss: null, takeProfit: null });
    expect(sideWords('1.2', '1.2', judge(true, '1.2', 'bid', 5))).toEqual({
      stopLoss: 'must be below the bid (1.20000) for a long position',
      takeProfit: 'must be above the bid (1.20000) for a long position',
    });
    expect(sideWords('1.2', '1.2', judge(false, '1.2', 'ask', 5))).toEqual({
      stopLoss: 'must be above the ask (1.20000) for a short position',
      takeProfit: 'must be below the ask (1.20000) for a short position',
    });
    expect(sideWords('149.9', '150.1', judge(false, '150', 'entry', 3))).toEqual({
      stopLoss: 'must be above the entry price (150.000) for a short position',
      takeProfit: 'must be below the entry price (150.000) for a short position',
    });
  });

  it('judges nothing without a value', () => {
    expect(protectionSideProblems({ stopLoss: null, takeProfit: null }, judge(true, '1.2', 'bid', 5))).toEqual({});
  });

  it('a short is a long mirrored around the reference, and the reference itself is never allowed (property)', () => {
    const seed = propertySeed('protectionSideProblems');
    const price = fc.integer({ min: 1, max: 300_000 }).map((units) => Dec.scaled(units, 5));
    fc.assert(
      fc.property(price, price, price, (reference, stopLoss, takeProfit) => {
        const j = { reference, against: 'bid' as const, digits: 5 };
        const long = protectionSideProblems({ stopLoss, takeProfit }, { ...j, long: true });
        const mirror = (p: Dec) => reference.times(2).minus(p);
        const short = protectionSideProblems(
          { stopLoss: mirror(stopLoss), takeProfit: mirror(takeProfit) },
          { ...j, long: false },
        );
        expect(long.stopLoss === undefined).toBe(short.stopLoss === undefined);
        expect(long.takeProfit === undefined).toBe(short.takeProfit === undefined);
        expect(long.stopLoss === undefined).toBe(stopLoss.lt(reference));
        expect(long.takeProfit === undefined).toBe(takeProfit.gt(reference));
        const atReference = protectionSideProblems({ stopLoss: reference, takeProfit: reference }, { ...j, long: true });
        expect(atReference.stopLoss?.code).toBe('STOP_LOSS_SIDE');
        expect(atReference.takeProfit?.code).toBe('TAKE_PROFIT_SIDE');
        // The words show the reference with the pair's digits.
        expect(words(atReference.stopLoss)).toContain(`(${reference.toFixed(5)})`);
      }),
      { seed, numRuns: 1000 },
    );
  });
});

describe('pendingPriceProblem', () => {
  const quote = { bid: 1.19994, ask: 1.20006 };

  it('a BUY LIMIT below the ask, a BUY STOP above it; a SELL LIMIT above the bid, a SELL STOP below it', () => {
    expect(pendingPriceProblem('LIMIT', 'BUY', d('1.2'), quote, 5)).toBeNull();
    expect(words(pendingPriceProblem('LIMIT', 'BUY', d('1.20006'), quote, 5))).toBe(
      'a BUY LIMIT must be below the ask (1.20006)',
    );
    expect(pendingPriceProblem('STOP', 'BUY', d('1.2001'), quote, 5)).toBeNull();
    expect(words(pendingPriceProblem('STOP', 'BUY', d('1.2'), quote, 5))).toBe('a BUY STOP must be above the ask (1.20006)');
    expect(pendingPriceProblem('LIMIT', 'SELL', d('1.2001'), quote, 5)).toBeNull();
    expect(words(pendingPriceProblem('LIMIT', 'SELL', d('1.19994'), quote, 5))).toBe(
      'a SELL LIMIT must be above the bid (1.19994)',
    );
    expect(pendingPriceProblem('STOP', 'SELL', d('1.1999'), quote, 5)).toBeNull();
    expect(words(pendingPriceProblem('STOP', 'SELL', d('1.2'), quote, 5))).toBe('a SELL STOP must be below the bid (1.19994)');
  });

  it("judges a STOP_LIMIT's trigger as a STOP and writes the quote with the pair's digits", () => {
    expect(words(pendingPriceProblem('STOP_LIMIT', 'BUY', d('1.2'), quote, 5))).toBe(
      'a BUY STOP must be above the ask (1.20006)',
    );
    expect(words(pendingPriceProblem('LIMIT', 'BUY', d('150.1'), { bid: 150, ask: 150.02 }, 3))).toBe(
      'a BUY LIMIT must be below the ask (150.020)',
    );
  });

  it('exactly one of LIMIT and STOP accepts a price off the market, neither the market itself (property)', () => {
    const seed = propertySeed('pendingPriceProblem');
    const units = fc.integer({ min: 1, max: 300_000 });
    fc.assert(
      fc.property(
        units,
        fc.integer({ min: 0, max: 50 }),
        units,
        fc.constantFrom('BUY' as const, 'SELL' as const),
        (bid, spread, at, side) => {
          const q = { bid: Dec.scaled(bid, 5), ask: Dec.scaled(bid + spread, 5) };
          const price = Dec.scaled(at, 5);
          const market = side === 'BUY' ? q.ask : q.bid;
          const limit = pendingPriceProblem('LIMIT', side, price, q, 5);
          const stop = pendingPriceProblem('STOP', side, price, q, 5);
          expect(pendingPriceProblem('STOP_LIMIT', side, price, q, 5)).toEqual(stop);
          if (price.eq(market)) {
            expect(limit).not.toBeNull();
            expect(stop).not.toBeNull();
          } else {
            expect((limit === null) !== (stop === null)).toBe(true);
            // A BUY LIMIT and a SELL STOP wait below the market, the others above.
            expect(limit === null).toBe(side === 'BUY' ? price.lt(market) : price.gt(market));
          }
          expect(pendingPriceProblem('MARKET', side, price, q, 5)).toBeNull();
        },
      ),
      { seed, numRuns: 1000 },
    );
  });
});

describe('limitPriceProblem', () => {
  it('a STOP_LIMIT needs its limit price and no other type takes one', () => {
    expect(limitPriceProblem('STOP_LIMIT', true)).toBeNull();
    expect(words(limitPriceProblem('STOP_LIMIT', false))).toBe('is required for a STOP_LIMIT order');
    expect(words(limitPriceProblem('LIMIT', true))).toBe('only a STOP_LIMIT order has a limit price');
    expect(limitPriceProblem('STOP', false)).toBeNull();
  });
});

describe('expiryProblem', () => {
  const NOW = Date.parse('2026-04-01T12:00:00.000Z');

  it('GTD: after now and at most 90 days ahead; GTC: none', () => {
    expect(words(expiryProblem('GTD', null, NOW))).toBe('is required for a GTD order');
    expect(words(expiryProblem('GTD', Number.NaN, NOW))).toBe('must be a date and time');
    expect(words(expiryProblem('GTD', NOW, NOW))).toBe('must be in the future');
    expect(expiryProblem('GTD', NOW + 90 * DAY, NOW)).toBeNull();
    expect(words(expiryProblem('GTD', NOW + 90 * DAY + 60_000, NOW))).toBe('must be at most 90 days ahead');
    expect(expiryProblem('GTC', null, NOW)).toBeNull();
    expect(words(expiryProblem('GTC', NOW + DAY, NOW))).toBe('only a GTD order has an expiry');
  });

  it('accepts a GTD expiry exactly when now < expiry ≤ now + 90 days (property)', () => {
    const seed = propertySeed('expiryProblem');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: -2 * DAY, max: 92 * DAY }), (now, ahead) => {
        expect(expiryProblem('GTD', now + ahead, now) === null).toBe(ahead > 0 && ahead <= 90 * DAY);
        expect(expiryProblem('GTC', now + ahead, now)).toEqual({ code: 'EXPIRY_NOT_ALLOWED' });
      }),
      { seed, numRuns: 1000 },
    );
  });
});
