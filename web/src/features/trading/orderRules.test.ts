import { Dec } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import {
  pendingPriceProblem,
  protectionChange,
  protectionSideProblems,
  readExpiry,
  readPrice,
  readProtection,
  readTrailingPips,
} from './orderRules';

// docs/orders.md#validation: the server's checks, shared by the ticket, the Modify form and the protection editor.

describe('readPrice', () => {
  it('takes a positive price with at most the pair digits, empty as none', () => {
    expect(readPrice('', 5)).toEqual({ kind: 'empty' });
    expect(readPrice('1.08734', 5)).toMatchObject({ kind: 'price' });
    expect(readPrice('1.087345', 5)).toEqual({ kind: 'invalid', problem: 'must have at most 5 decimals' });
    expect(readPrice('151.2345', 3)).toEqual({ kind: 'invalid', problem: 'must have at most 3 decimals' });
    expect(readPrice('0', 5)).toEqual({ kind: 'invalid', problem: 'must be greater than 0' });
    expect(readPrice('-1', 5)).toEqual({ kind: 'invalid', problem: 'must be a number' });
    expect(readPrice('abc', 5)).toEqual({ kind: 'invalid', problem: 'must be a number' });
  });
});

describe('readTrailingPips', () => {
  it('takes whole pips from 5 to 1,000', () => {
    expect(readTrailingPips('')).toEqual({ kind: 'empty' });
    expect(readTrailingPips('5')).toEqual({ kind: 'pips', value: 5 });
    expect(readTrailingPips('1000')).toEqual({ kind: 'pips', value: 1000 });
    expect(readTrailingPips('4')).toEqual({ kind: 'invalid', problem: 'must be at least 5' });
    expect(readTrailingPips('1001')).toEqual({ kind: 'invalid', problem: 'must be at most 1000' });
    expect(readTrailingPips('12.5')).toEqual({ kind: 'invalid', problem: 'must be a whole number of pips' });
  });
});

describe('protectionSideProblems', () => {
  const d = (v: string) => Dec.from(v);

  it('a long: stop loss below the reference, take profit above; a short the other way round', () => {
    expect(protectionSideProblems(true, d('1.2'), 'the bid', d('1.19'), d('1.21'), 5)).toEqual({});
    expect(protectionSideProblems(true, d('1.2'), 'the bid', d('1.2'), d('1.2'), 5)).toEqual({
      stopLoss: 'must be below the bid (1.20000) for a long position',
      takeProfit: 'must be above the bid (1.20000) for a long position',
    });
    expect(protectionSideProblems(false, d('150'), 'the entry', d('149.9'), d('150.1'), 3)).toEqual({
      stopLoss: 'must be above the entry (150.000) for a short position',
      takeProfit: 'must be below the entry (150.000) for a short position',
    });
  });

  it('judges nothing without a reference or a value', () => {
    expect(protectionSideProblems(true, null, 'the bid', d('2'), d('0.5'), 5)).toEqual({});
    expect(protectionSideProblems(true, d('1.2'), 'the bid', null, null, 5)).toEqual({});
  });
});

describe('readProtection', () => {
  const side = { long: true, reference: Dec.from('1.2'), what: 'the order price' };

  it('reads the values; a field with its own problem is not judged by side', () => {
    const read = readProtection({ stopLoss: '1.19', takeProfit: '', trailingStopPips: '15' }, 5, side);
    expect(read.stopLoss?.toString()).toBe('1.19');
    expect(read.takeProfit).toBeNull();
    expect(read.trailingStopPips).toBe(15);
    expect(read.problems).toEqual({});
    expect(readProtection({ stopLoss: '1.2000001', takeProfit: '1.1', trailingStopPips: '4' }, 5, side).problems).toEqual({
      stopLoss: 'must have at most 5 decimals',
      takeProfit: 'must be above the order price (1.20000) for a long position',
      trailingStopPips: 'must be at least 5',
    });
  });
});

describe('protectionChange', () => {
  const current = { stop_loss: 1.19, take_profit: 1.21, trailing_stop_pips: 15 };

  it('only what changed, null for a cleared value', () => {
    expect(
      protectionChange({ stopLoss: Dec.from('1.190'), takeProfit: Dec.from('1.21'), trailingStopPips: 15 }, current),
    ).toEqual({});
    expect(protectionChange({ stopLoss: Dec.from('1.185'), takeProfit: null, trailingStopPips: null }, current)).toEqual({
      stop_loss: 1.185,
      take_profit: null,
      trailing_stop_pips: null,
    });
  });
});

describe('pendingPriceProblem', () => {
  const quote = { bid: 1.19994, ask: 1.20006 };
  const p = (v: string) => Dec.from(v);

  it('a BUY LIMIT below the ask, a BUY STOP above it; a SELL LIMIT above the bid, a SELL STOP below it', () => {
    expect(pendingPriceProblem('LIMIT', 'BUY', p('1.2'), quote, 5)).toBeNull();
    expect(pendingPriceProblem('LIMIT', 'BUY', p('1.20006'), quote, 5)).toBe('a BUY LIMIT must be below the ask (1.20006)');
    expect(pendingPriceProblem('STOP', 'BUY', p('1.2001'), quote, 5)).toBeNull();
    expect(pendingPriceProblem('STOP', 'BUY', p('1.2'), quote, 5)).toBe('a BUY STOP must be above the ask (1.20006)');
    expect(pendingPriceProblem('LIMIT', 'SELL', p('1.2001'), quote, 5)).toBeNull();
    expect(pendingPriceProblem('LIMIT', 'SELL', p('1.19994'), quote, 5)).toBe('a SELL LIMIT must be above the bid (1.19994)');
    expect(pendingPriceProblem('STOP', 'SELL', p('1.1999'), quote, 5)).toBeNull();
    expect(pendingPriceProblem('STOP', 'SELL', p('1.2'), quote, 5)).toBe('a SELL STOP must be below the bid (1.19994)');
  });

  it("a STOP_LIMIT's trigger is judged as a STOP", () => {
    expect(pendingPriceProblem('STOP_LIMIT', 'BUY', p('1.2'), quote, 5)).toBe('a BUY STOP must be above the ask (1.20006)');
  });
});

describe('readExpiry', () => {
  const NOW = Date.parse('2026-04-01T12:00:00.000Z');
  const DAY = 86_400_000;
  const at = (ms: number) => new Date(ms).toISOString();

  it('after now and at most 90 days ahead', () => {
    expect(readExpiry('', NOW)).toEqual({ problem: 'missing' });
    expect(readExpiry('not a date', NOW)).toEqual({ problem: 'invalid' });
    expect(readExpiry(at(NOW), NOW)).toEqual({ problem: 'past' });
    expect(readExpiry(at(NOW + 90 * DAY), NOW)).toEqual({ at: NOW + 90 * DAY });
    expect(readExpiry(at(NOW + 90 * DAY + 60_000), NOW)).toEqual({ problem: 'tooFar' });
  });
});
