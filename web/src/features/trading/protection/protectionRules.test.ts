import { describe, expect, it } from 'vitest';
import { makePosition } from '../testSupport';
import { checkProtection, closeLotsProblem, protectionDraftOf } from './protectionRules';

// docs/orders.md#validation: what the server refuses with a 400, refused before sending.

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
