import { isDayStart, isKnownTimeZone } from '@pipdesk/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DaySpec, dayOf, dayStartAfter, instantOfWall, offsetAt } from './day.js';

const H = 3_600_000;
const utc = (s: string) => Date.parse(s);
const hours = (day: { start: number; end: number }) => (day.end - day.start) / H;
const prague = (dayStart = '00:00'): DaySpec => ({ timeZone: 'Europe/Prague', dayStart });

describe('the evaluation day in Europe/Prague', () => {
  it('runs midnight to midnight local on an ordinary day', () => {
    const day = dayOf(utc('2026-01-14T12:00:00Z'), prague());
    expect(day).toEqual({ start: utc('2026-01-13T23:00:00Z'), end: utc('2026-01-14T23:00:00Z'), date: '2026-01-14' });
  });

  it('lasts 23 hours when the clocks go forward and 25 when they go back', () => {
    const spring = dayOf(utc('2026-03-29T12:00:00Z'), prague());
    expect(spring).toEqual({ start: utc('2026-03-28T23:00:00Z'), end: utc('2026-03-29T22:00:00Z'), date: '2026-03-29' });
    expect(hours(spring)).toBe(23);
    const autumn = dayOf(utc('2026-10-25T12:00:00Z'), prague());
    expect(autumn).toEqual({ start: utc('2026-10-24T22:00:00Z'), end: utc('2026-10-25T23:00:00Z'), date: '2026-10-25' });
    expect(hours(autumn)).toBe(25);
  });

  it('puts the boundary instant in the day it starts, and the millisecond before in the day before', () => {
    const boundary = utc('2026-03-29T22:00:00Z');
    expect(dayOf(boundary, prague()).date).toBe('2026-03-30');
    expect(dayOf(boundary - 1, prague()).date).toBe('2026-03-29');
  });

  it('starts a day whose start falls in the spring gap at the end of the gap (03:00 local)', () => {
    const spec = prague('02:30');
    const day = dayOf(utc('2026-03-29T12:00:00Z'), spec);
    expect(day.start).toBe(utc('2026-03-29T01:00:00Z'));
    expect(day.end).toBe(utc('2026-03-30T00:30:00Z'));
    expect(hours(day)).toBe(23.5);
    expect(hours(dayOf(utc('2026-03-28T12:00:00Z'), spec))).toBe(23.5);
  });

  it('starts a day whose start falls in the autumn overlap at the first of the two 02:30s', () => {
    const spec = prague('02:30');
    const day = dayOf(utc('2026-10-25T12:00:00Z'), spec);
    expect(day.start).toBe(utc('2026-10-25T00:30:00Z'));
    expect(hours(day)).toBe(25);
    // The second 02:30 (01:30 UTC) is inside that day, not the start of another.
    expect(dayOf(utc('2026-10-25T01:30:00Z'), spec).start).toBe(day.start);
  });

  it('counts days ahead across a switch: the 1st day start after is the next local day start', () => {
    expect(dayStartAfter(utc('2026-03-28T10:00:00Z'), prague(), 1)).toBe(utc('2026-03-28T23:00:00Z'));
    expect(dayStartAfter(utc('2026-03-28T10:00:00Z'), prague(), 2)).toBe(utc('2026-03-29T22:00:00Z'));
    expect(dayStartAfter(utc('2026-10-20T10:00:00Z'), prague('17:00'), 30)).toBe(utc('2026-11-18T16:00:00Z'));
  });
});

describe('the evaluation day in half-hour zones', () => {
  it('Australia/Adelaide (+9:30 / +10:30): a 23-hour day in October, a 25-hour day in April', () => {
    const spec: DaySpec = { timeZone: 'Australia/Adelaide', dayStart: '00:00' };
    const october = dayOf(utc('2026-10-04T06:00:00Z'), spec);
    expect(october).toEqual({ start: utc('2026-10-03T14:30:00Z'), end: utc('2026-10-04T13:30:00Z'), date: '2026-10-04' });
    const april = dayOf(utc('2026-04-05T06:00:00Z'), spec);
    expect(april).toEqual({ start: utc('2026-04-04T13:30:00Z'), end: utc('2026-04-05T14:30:00Z'), date: '2026-04-05' });
    expect([hours(october), hours(april)]).toEqual([23, 25]);
  });

  it('Asia/Kolkata (+5:30, no daylight saving): a day starting 09:15 local starts 03:45 UTC, every day 24 hours', () => {
    const spec: DaySpec = { timeZone: 'Asia/Kolkata', dayStart: '09:15' };
    expect(dayOf(utc('2026-06-01T03:44:59Z'), spec).start).toBe(utc('2026-05-31T03:45:00Z'));
    expect(dayOf(utc('2026-06-01T03:45:00Z'), spec)).toEqual({
      start: utc('2026-06-01T03:45:00Z'),
      end: utc('2026-06-02T03:45:00Z'),
      date: '2026-06-01',
    });
  });
});

describe('wall times and offsets', () => {
  it('finds the first instant of an overlap and the end of a gap', () => {
    expect(instantOfWall(utc('2026-10-25T02:30:00Z'), 'Europe/Prague')).toBe(utc('2026-10-25T00:30:00Z'));
    expect(instantOfWall(utc('2026-03-29T02:30:00Z'), 'Europe/Prague')).toBe(utc('2026-03-29T01:00:00Z'));
    expect(offsetAt(utc('2026-07-01T00:00:00Z'), 'Europe/Prague')).toBe(2 * H);
  });

  it('validates zones and day starts', () => {
    expect(isKnownTimeZone('Europe/Prague')).toBe(true);
    expect(isKnownTimeZone('Mars/Olympus')).toBe(false);
    expect(['00:00', '23:59', '09:30'].map(isDayStart)).toEqual([true, true, true]);
    expect(['24:00', '9:30', '12:60', '12:00:00', ''].map(isDayStart)).toEqual([false, false, false, false, false]);
  });
});

describe('every day, in any zone (property)', () => {
  const seed = Number(process.env.DAY_SEED ?? Date.now() % 1_000_000_000);
  console.log(`evaluation day property seed ${seed} (replay with DAY_SEED=${seed})`);
  const zones = ['Europe/Prague', 'Australia/Adelaide', 'Asia/Kolkata', 'America/New_York', 'Australia/Lord_Howe', 'UTC'];

  it('holds its instant, follows on from the day before, and lasts 23 to 25 hours', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: utc('2025-01-01T00:00:00Z'), max: utc('2028-01-01T00:00:00Z') }),
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(0, 15, 30, 45),
        (instant, timeZone, hh, mm) => {
          const spec = { timeZone, dayStart: `${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}` };
          const day = dayOf(instant, spec);
          expect(day.start).toBeLessThanOrEqual(instant);
          expect(day.end).toBeGreaterThan(instant);
          expect(dayOf(day.end, spec).start).toBe(day.end);
          expect(dayOf(day.start - 1, spec).end).toBe(day.start);
          expect(hours(day)).toBeGreaterThanOrEqual(23);
          expect(hours(day)).toBeLessThanOrEqual(25);
        },
      ),
      { seed, numRuns: 400 },
    );
  });
});
