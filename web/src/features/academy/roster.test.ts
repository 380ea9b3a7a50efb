import { describe, expect, it } from 'vitest';
import { nextSort, sortRoster } from './roster';
import { makeRosterRow } from './testAcademy';

const names = (rows: { user: { full_name: string } }[]) => rows.map((r) => r.user.full_name);

describe('the roster order (docs/screens.md#academy)', () => {
  const rows = [
    makeRosterRow(1, 'Cleo', { return_pct: 2.5, last_trade_at: '2026-04-02T10:00:00.000Z', flags: ['no_stop_loss'] }),
    makeRosterRow(2, 'Ada', { return_pct: -1.25, last_trade_at: null }),
    makeRosterRow(3, 'Bea', { return_pct: null, account: null, last_trade_at: '2026-04-03T10:00:00.000Z' }),
    makeRosterRow(4, 'Dan', { return_pct: 2.5, flags: ['margin_call', 'high_exposure'] }),
  ];

  it('sorts by name A to Z first', () => {
    expect(names(sortRoster(rows, { key: 'name', direction: 'asc' }))).toEqual(['Ada', 'Bea', 'Cleo', 'Dan']);
    expect(names(sortRoster(rows, { key: 'name', direction: 'desc' }))).toEqual(['Dan', 'Cleo', 'Bea', 'Ada']);
  });

  it('puts a missing figure last in either direction, and ties in name order', () => {
    expect(names(sortRoster(rows, { key: 'return_pct', direction: 'desc' }))).toEqual(['Cleo', 'Dan', 'Ada', 'Bea']);
    expect(names(sortRoster(rows, { key: 'return_pct', direction: 'asc' }))).toEqual(['Ada', 'Cleo', 'Dan', 'Bea']);
    expect(names(sortRoster(rows, { key: 'equity', direction: 'asc' })).at(-1)).toBe('Bea');
    expect(names(sortRoster(rows, { key: 'last_trade_at', direction: 'desc' }))).toEqual(['Bea', 'Cleo', 'Ada', 'Dan']);
  });

  it('sorts by the number of flags', () => {
    expect(names(sortRoster(rows, { key: 'flags', direction: 'desc' }))).toEqual(['Dan', 'Cleo', 'Ada', 'Bea']);
  });

  it('flips the direction on the same column and starts figures high first', () => {
    expect(nextSort({ key: 'name', direction: 'asc' }, 'name')).toEqual({ key: 'name', direction: 'desc' });
    expect(nextSort({ key: 'name', direction: 'asc' }, 'return_pct')).toEqual({ key: 'return_pct', direction: 'desc' });
    expect(nextSort({ key: 'return_pct', direction: 'desc' }, 'name')).toEqual({ key: 'name', direction: 'asc' });
  });
});
