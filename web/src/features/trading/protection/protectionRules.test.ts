import { describe, expect, it } from 'vitest';
import { makePosition } from '../testSupport';
import { checkProtection, closeLotsProblem, protectionDraftOf, readPrice, readTrailingPips } from './protectionRules';

// docs/orders.md#validation: what the server refuses with a 400, refused before sending.

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

describe('checkProtection', () => {
  const long = makePosition({ id: 1, quantity: 0.1, side: 'LONG', stop_loss: 1.19, take_profit: null });
  const short = makePosition({ id: 2, quantity: -0.1, side: 'SHORT', stop_loss: null, take_profit: null });
  const draft = (p = long) => protectionDraftOf(p, 5);

  it('a long: stop loss below the bid, take profit above it', () => {
    expect(checkProtection(long, { ...draft(), stopLoss: '1.20000' }, 5, 1.2).problems).toEqual({
      stopLoss: 'must be below the bid (1.20000) for a long position',
    });
    expect(checkProtection(long, { ...draft(), takeProfit: '1.19990' }, 5, 1.2).problems).toEqual({
      takeProfit: 'must be above the bid (1.20000) for a long position',
    });
    expect(checkProtection(long, { ...draft(), stopLoss: '1.19950', takeProfit: '1.21' }, 5, 1.2)).toEqual({
      change: { stop_loss: 1.1995, take_profit: 1.21 },
      problems: {},
    });
  });

  it('a short: take profit below the ask, stop loss above it', () => {
    expect(checkProtection(short, { ...draft(short), stopLoss: '1.19', takeProfit: '1.21' }, 5, 1.2).problems).toEqual({
      stopLoss: 'must be above the ask (1.20000) for a short position',
      takeProfit: 'must be below the ask (1.20000) for a short position',
    });
    expect(checkProtection(short, { ...draft(short), stopLoss: '1.21', takeProfit: '1.19' }, 5, 1.2).change).toEqual({
      stop_loss: 1.21,
      take_profit: 1.19,
    });
  });

  it('sends only what changed; an emptied field clears it (null); nothing changed sends nothing', () => {
    expect(checkProtection(long, draft(), 5, 1.2)).toEqual({ change: null, problems: {} });
    expect(checkProtection(long, { ...draft(), stopLoss: '' }, 5, 1.2).change).toEqual({ stop_loss: null });
    expect(checkProtection(long, { ...draft(), trailingStopPips: '20' }, 5, 1.2).change).toEqual({ trailing_stop_pips: 20 });
  });

  it('without a live price leaves the sides to the server, still checks the format', () => {
    expect(checkProtection(long, { ...draft(), stopLoss: '1.30' }, 5, null)).toEqual({
      change: { stop_loss: 1.3 },
      problems: {},
    });
    expect(checkProtection(long, { ...draft(), trailingStopPips: '3' }, 5, null).problems).toEqual({
      trailingStopPips: 'must be at least 5',
    });
  });
});

describe('closeLotsProblem (docs/orders.md#partial-close)', () => {
  it('a multiple of 0.01, above 0, at most the size (of a long or a short)', () => {
    expect(closeLotsProblem('0.10', 0.1)).toBeNull();
    expect(closeLotsProblem('0.04', -0.1)).toBeNull();
    expect(closeLotsProblem('0.11', 0.1)).toBe('Lots to close must be at most 0.10');
    expect(closeLotsProblem('0.015', 0.1)).toBe('Lots to close must be in steps of 0.01');
    expect(closeLotsProblem('0', 0.1)).toBe('Lots to close must be greater than 0');
    expect(closeLotsProblem('', 0.1)).toBe('Enter the lots to close');
    expect(closeLotsProblem('x', 0.1)).toBe('Enter a number of lots');
  });
});
