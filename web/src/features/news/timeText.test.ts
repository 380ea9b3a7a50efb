import { describe, expect, it } from 'vitest';
import { newsTimeText } from './timeText';

// Local-time constructors keep the calendar cases ("Yesterday") true in any time zone.
const now = new Date(2026, 2, 12, 15, 30, 0).getTime();
const minutesBefore = (m: number) => new Date(now - m * 60_000).toISOString();

describe('newsTimeText (docs/screens.md#news: minutes ago, hours ago, Yesterday, then a date)', () => {
  it.each([
    [0, '0 minutes ago'],
    [0.5, '0 minutes ago'],
    [1, '1 minute ago'],
    [5, '5 minutes ago'],
    [59, '59 minutes ago'],
    [59.99, '59 minutes ago'],
    [60, '1 hour ago'],
    [119, '1 hour ago'],
    [120, '2 hours ago'],
    [23 * 60, '23 hours ago'],
    [24 * 60 - 1, '23 hours ago'],
  ])('%s minutes old reads "%s"', (minutes, text) => {
    expect(newsTimeText(minutesBefore(minutes), now)).toBe(text);
  });

  it('says Yesterday for an article over a day old dated the previous day', () => {
    expect(newsTimeText(new Date(2026, 2, 11, 15, 0).toISOString(), now)).toBe('Yesterday');
    expect(newsTimeText(new Date(2026, 2, 11, 0, 5).toISOString(), now)).toBe('Yesterday');
  });

  it('gives the date for anything older than yesterday', () => {
    expect(newsTimeText(new Date(2026, 2, 10, 23, 59).toISOString(), now)).toBe('10 Mar 2026');
    expect(newsTimeText(new Date(2025, 11, 24, 9, 0).toISOString(), now)).toBe('24 Dec 2025');
  });

  it('goes by the calendar after a day: right after midnight, yesterday evening is hours ago and two days back is a date', () => {
    const justAfterMidnight = new Date(2026, 2, 12, 0, 10).getTime();
    expect(newsTimeText(new Date(2026, 2, 11, 22, 0).toISOString(), justAfterMidnight)).toBe('2 hours ago');
    expect(newsTimeText(new Date(2026, 2, 11, 0, 5).toISOString(), justAfterMidnight)).toBe('Yesterday');
    expect(newsTimeText(new Date(2026, 2, 10, 23, 0).toISOString(), justAfterMidnight)).toBe('10 Mar 2026');
  });

  it('reads a time slightly ahead of our clock as 0 minutes ago, and an unreadable one as nothing', () => {
    expect(newsTimeText(new Date(now + 90_000).toISOString(), now)).toBe('0 minutes ago');
    expect(newsTimeText('not a date', now)).toBe('');
  });
});
