import type { AppContext } from '../core/context.js';
import type { AttemptRow } from './attempts.js';
import { type DaySpec, dayOf, dayStartAfter } from './day.js';
import type { ProgramRow } from './programs.js';
import type { PhaseRules } from './rules.js';

// What the book, the engine and the meter work out of an attempt's phase (docs/evaluations.md).

export interface PhaseDays {
  tradingDays: number;
  dayPnlsMinor: number[];
}

interface PhaseOf {
  program: ProgramRow;
  attempt: AttemptRow;
  rules: PhaseRules;
}

export const specOf = (entry: Pick<PhaseOf, 'program'>): DaySpec => ({
  timeZone: entry.program.time_zone,
  dayStart: entry.program.day_start,
});

/** When a phase with `max_days` ends: the start of the day `max_days` days after the day it started in. */
export function phaseEndsAt(entry: PhaseOf): number | null {
  if (entry.rules.maxDays === null) return null;
  return dayStartAfter(Number(entry.attempt.phase_started_at), specOf(entry), entry.rules.maxDays);
}

/** Trading days and closed P&L per day of a phase, from its account's fills (docs/evaluations.md#passing-a-phase). */
export async function phaseDays(deps: Pick<AppContext, 'db'>, entry: Pick<PhaseOf, 'program' | 'attempt'>): Promise<PhaseDays> {
  const rows = await deps.db.kysely
    .selectFrom('trades')
    .innerJoin('orders', 'orders.id', 'trades.order_id')
    .select(['trades.executed_at', 'trades.realized_pnl_minor', 'orders.reason'])
    .where('trades.account_id', '=', Number(entry.attempt.account_id))
    // Phase 1's account is new: every fill on it counts. A later phase counts the fills after it
    // began, since the fills that passed the phase before are at or before that instant.
    .where('trades.executed_at', Number(entry.attempt.phase_index) === 0 ? '>=' : '>', Number(entry.attempt.phase_started_at))
    .execute();
  const spec = specOf(entry);
  const traded = new Set<string>();
  const pnl = new Map<string, number>();
  for (const row of rows) {
    const date = dayOf(Number(row.executed_at), spec).date;
    // A day counts when the trader caused a fill: their order, or a pending order of theirs filling.
    if (row.reason === 'client') traded.add(date);
    pnl.set(date, (pnl.get(date) ?? 0) + Number(row.realized_pnl_minor));
  }
  return { tradingDays: traded.size, dayPnlsMinor: [...pnl.values()] };
}

/** `phaseDays` of an active attempt, kept on its book entry until the next fill (book.ts `days`). */
export async function daysOf(
  deps: Pick<AppContext, 'db'>,
  entry: PhaseOf & { days: PhaseDays | undefined; daysVersion: number },
): Promise<PhaseDays> {
  if (entry.days) return entry.days;
  const version = entry.daysVersion;
  const days = await phaseDays(deps, entry);
  if (entry.daysVersion === version) entry.days = days;
  return days;
}
