import { describe, expect, it } from 'vitest';
import { equityCurveQuerySchema, journalEntryRequestSchema, journalQuerySchema } from './performance.js';

const issuePath = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.error?.issues[0]?.path.map(String).join('.');

describe('PUT trading/journal/{tradeId}/ body', () => {
  it('trims tags and keeps each once, in order; null clears the rating', () => {
    expect(journalEntryRequestSchema.parse({ tags: [' a ', 'b', 'a'], rating: null })).toEqual({
      tags: ['a', 'b'],
      rating: null,
    });
    expect(journalEntryRequestSchema.parse({ note: '' })).toEqual({ note: '' });
  });

  it('counts the tag limit after repeated tags are merged', () => {
    const eleven = [...Array.from({ length: 10 }, (_, i) => `t${i}`), 't0'];
    expect(journalEntryRequestSchema.safeParse({ tags: eleven }).success).toBe(true);
    expect(issuePath(journalEntryRequestSchema.safeParse({ tags: [...eleven.slice(0, 10), 't10'] }))).toBe('tags');
  });

  it('names the field that breaks a limit', () => {
    expect(issuePath(journalEntryRequestSchema.safeParse({ note: 'x'.repeat(5001) }))).toBe('note');
    expect(journalEntryRequestSchema.safeParse({ note: 'x'.repeat(5000) }).success).toBe(true);
    expect(issuePath(journalEntryRequestSchema.safeParse({ note: 'a\u0000b' }))).toBe('note');
    expect(issuePath(journalEntryRequestSchema.safeParse({ note: 'a\uDC00b' }))).toBe('note');
    expect(journalEntryRequestSchema.safeParse({ note: 'emoji 🙂 ok' }).success).toBe(true);
    expect(issuePath(journalEntryRequestSchema.safeParse({ tags: ['y'.repeat(33)] }))).toBe('tags.0');
    expect(issuePath(journalEntryRequestSchema.safeParse({ rating: 0 }))).toBe('rating');
    expect(issuePath(journalEntryRequestSchema.safeParse({ rating: 4.5 }))).toBe('rating');
    expect(journalEntryRequestSchema.safeParse({}).success).toBe(false);
    expect(journalEntryRequestSchema.safeParse({ note: 'x', extra: 1 }).success).toBe(false);
  });
});

describe('queries', () => {
  it('journal: a pair in any case, a page from 1, empty means no filter', () => {
    expect(journalQuerySchema.parse({ symbol: 'eurusd', page: '2', tag: '' })).toEqual({ symbol: 'EURUSD', page: 2 });
    expect(issuePath(journalQuerySchema.safeParse({ page: '0' }))).toBe('page');
    expect(issuePath(journalQuerySchema.safeParse({ symbol: 'EUR/USD' }))).toBe('symbol');
  });

  it('equity curve: 1w, 1m or all (the default)', () => {
    expect(equityCurveQuerySchema.parse({})).toEqual({ range: 'all' });
    expect(equityCurveQuerySchema.parse({ range: '1w' })).toEqual({ range: '1w' });
    expect(issuePath(equityCurveQuerySchema.safeParse({ range: '1y' }))).toBe('range');
  });
});
