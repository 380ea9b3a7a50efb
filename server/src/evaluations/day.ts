import { isDayStart } from '@pipdesk/contract';

/**
 * The evaluation day (docs/evaluations.md#the-day): from a program's `day_start` ("HH:MM") in its
 * IANA `time_zone` to the next, daylight saving included, so a day lasts 23, 24 or 25 hours (or
 * 23.5 / 24.5 where the clocks move half an hour). Pure functions of an instant, computed with the
 * platform's time-zone data (Intl): no clock, no database.
 *
 * Two wall times need a rule, since a day start may fall where the clocks jump:
 * - in a gap (spring forward: 02:30 does not exist in Prague on the last Sunday of March), the day
 *   starts at the first instant after the gap (03:00 local);
 * - in an overlap (fall back: 02:30 happens twice on the last Sunday of October), the day starts
 *   at the first of the two.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A program's day: where it starts, on the wall clock of which zone. */
export interface DaySpec {
  timeZone: string;
  /** "HH:MM", 24-hour. */
  dayStart: string;
}

/** One evaluation day: `[start, end)` in epoch ms, and its local date (the date of its start's wall time). */
export interface EvaluationDay {
  start: number;
  end: number;
  date: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock in the zone at an instant, as if it were UTC (ms), whole seconds. */
function wallAt(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** The zone's offset from UTC at an instant (ms; +1 h in Prague in winter). */
export function offsetAt(instant: number, timeZone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallAt(whole, timeZone) - whole;
}

/**
 * The instant a wall time (given as if UTC) happens in the zone: the first one in an overlap, the
 * end of the gap in a gap. Offsets are taken from a day either side, so every zone's transitions
 * (at most a few hours apart in offset) are covered.
 */
export function instantOfWall(wall: number, timeZone: string): number {
  const candidates = new Set([
    offsetAt(wall - 24 * HOUR, timeZone),
    offsetAt(wall, timeZone),
    offsetAt(wall + 24 * HOUR, timeZone),
  ]);
  const matches = [...candidates]
    .map((offset) => wall - offset)
    .filter((instant) => wallAt(instant, timeZone) === wall)
    .sort((a, b) => a - b);
  if (matches.length > 0) return matches[0]!;
  // A gap: the wall time never happens. The clocks jump at the instant where the offset changes,
  // between the two readings of that wall time with the offsets either side of it.
  const instants = [...candidates].map((offset) => wall - offset).sort((a, b) => a - b);
  let lo = instants[0]!;
  let hi = instants[instants.length - 1]!;
  const before = offsetAt(lo, timeZone);
  // Offsets change on a whole minute in every zone: a binary search to the minute finds the jump.
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
    if (offsetAt(mid, timeZone) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

function dayStartMinutes(dayStart: string): number {
  if (!isDayStart(dayStart)) throw new Error(`day start must be HH:MM, not ${dayStart}`);
  return Number(dayStart.slice(0, 2)) * 60 + Number(dayStart.slice(3, 5));
}

/** The start of the day whose local date is `date` (wall midnight of that date, as if UTC). */
function startOfLocalDate(dateWall: number, spec: DaySpec): number {
  return instantOfWall(dateWall + dayStartMinutes(spec.dayStart) * MINUTE, spec.timeZone);
}

const iso = (wall: number) => new Date(wall).toISOString().slice(0, 10);

/** The evaluation day an instant falls in. */
export function dayOf(instant: number, spec: DaySpec): EvaluationDay {
  const wall = wallAt(instant, spec.timeZone);
  let date = Math.floor(wall / (24 * HOUR)) * 24 * HOUR;
  let start = startOfLocalDate(date, spec);
  if (start > instant) {
    date -= 24 * HOUR;
    start = startOfLocalDate(date, spec);
  }
  const end = startOfLocalDate(date + 24 * HOUR, spec);
  return { start, end, date: iso(date) };
}

/** The start of the day `n` days after the day `instant` falls in (n = 1: the next day's start). */
export function dayStartAfter(instant: number, spec: DaySpec, n: number): number {
  const day = dayOf(instant, spec);
  const date = Date.parse(`${day.date}T00:00:00Z`);
  return startOfLocalDate(date + n * 24 * HOUR, spec);
}
