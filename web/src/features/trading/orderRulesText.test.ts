import { Dec } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import { protectionChange, readExpiry, readPrice, readProtection, readTrailingPips } from './orderRulesText';

// docs/orders.md#validation: typed texts read for the contract's rules (the rules themselves are
// tested in contract/src/order-rules.test.ts), shared by the ticket, the Modify form and the
// protection editor.

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

describe('readProtection', () => {
  const judge = { long: true, reference: Dec.from('1.2'), against: 'entry', digits: 5 } as const;

  it('reads the values; a field with its own problem is not judged by side', () => {
    const read = readProtection({ stopLoss: '1.19', takeProfit: '', trailingStopPips: '15' }, judge);
    expect(read.stopLoss?.toString()).toBe('1.19');
    expect(read.takeProfit).toBeNull();
    expect(read.trailingStopPips).toBe(15);
    expect(read.problems).toEqual({});
    expect(readProtection({ stopLoss: '1.2000001', takeProfit: '1.1', trailingStopPips: '4' }, judge).problems).toEqual({
      stopLoss: 'must have at most 5 decimals',
      takeProfit: 'must be above the entry price (1.20000) for a long position',
      trailingStopPips: 'must be at least 5',
    });
  });

  it('judges no side without a reference', () => {
    expect(
      readProtection({ stopLoss: '2', takeProfit: '0.5', trailingStopPips: '' }, { ...judge, reference: null }).problems,
    ).toEqual({});
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

describe('readExpiry', () => {
  const NOW = Date.parse('2026-04-01T12:00:00.000Z');
  const DAY = 86_400_000;
  const at = (ms: number) => new Date(ms).toISOString();

  it('after now and at most 90 days ahead; empty is missing, unreadable invalid', () => {
    expect(readExpiry('', NOW)).toEqual({ problem: { code: 'EXPIRY_REQUIRED' } });
    expect(readExpiry('not a date', NOW)).toEqual({ problem: { code: 'EXPIRY_INVALID' } });
    expect(readExpiry(at(NOW), NOW)).toEqual({ problem: { code: 'EXPIRY_PAST' } });
    expect(readExpiry(at(NOW + 90 * DAY), NOW)).toEqual({ at: NOW + 90 * DAY });
    expect(readExpiry(at(NOW + 90 * DAY + 60_000), NOW)).toEqual({ problem: { code: 'EXPIRY_TOO_FAR', maxDays: 90 } });
  });
});
