import { describe, expect, it } from 'vitest';
import { journalApiQuery, journalPaginationText, readJournalFilters } from './journalFilters';
import { addTag, mergeTags, tagSuggestions } from './tags';

describe('journal tags (docs/performance.md#the-journal)', () => {
  it('adds a trimmed tag once, never an empty or too long one, and at most 10', () => {
    expect(addTag(['a'], '  b ')).toEqual(['a', 'b']);
    const same = ['a'];
    expect(addTag(same, 'a')).toBe(same);
    expect(addTag(same, '   ')).toBe(same);
    expect(addTag(same, 'x'.repeat(33))).toBe(same);
    expect(addTag(same, 'x'.repeat(32))).toEqual(['a', 'x'.repeat(32)]);
    const ten = Array.from({ length: 10 }, (_, i) => `t${i}`);
    expect(addTag(ten, 'eleventh')).toBe(ten);
  });

  it('merges tag lists into one sorted list without repeats', () => {
    expect(mergeTags(['news', 'Breakout'], ['breakout', 'news'], [])).toEqual(['breakout', 'Breakout', 'news']);
  });

  it('suggests tags not chosen yet that contain the typed text, those starting with it first', () => {
    const known = ['breakout', 'London open', 'news', 'revenge trade'];
    expect(tagSuggestions(known, ['news'], '')).toEqual(['breakout', 'London open', 'revenge trade']);
    expect(tagSuggestions(known, [], 'RE')).toEqual(['revenge trade', 'breakout']);
    expect(tagSuggestions(known, [], 'zzz')).toEqual([]);
    const many = Array.from({ length: 9 }, (_, i) => `tag${i}`);
    expect(tagSuggestions(many, [], 'tag')).toHaveLength(6);
  });
});

describe('journal filters in the address', () => {
  it('keeps what the journal call accepts and drops the rest', () => {
    expect(readJournalFilters(new URLSearchParams('symbol=eurusd&tag=%20news%20'))).toEqual({ symbol: 'EURUSD', tag: 'news' });
    expect(readJournalFilters(new URLSearchParams(`symbol=EUR/USD&tag=${'x'.repeat(33)}`))).toEqual({ symbol: '', tag: '' });
    expect(journalApiQuery({ symbol: '', tag: '' }, 3)).toEqual({ page: 3, symbol: undefined, tag: undefined });
  });

  it('words the pages as the Orders page does', () => {
    expect(journalPaginationText(1, 0)).toEqual({ pages: 'Page 1 of 1', showing: 'Showing 0 to 0 of 0 trades' });
    expect(journalPaginationText(2, 21)).toEqual({ pages: 'Page 2 of 2', showing: 'Showing 21 to 21 of 21 trades' });
  });
});
