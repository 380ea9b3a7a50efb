import type { MeterDto } from '@pipdesk/contract';

// What the Objectives panel shows of a challenge account's meter (docs/screens.md#objectives-panel),
// as plain figures: the screen formats them. Between two meters the equity moves with every
// account_update; the room left above each floor follows from it here, exactly as the server
// computes it (equity less the floor, never below 0).

/** The rule a failure names, in the trader's words. */
export const FAILURE_RULE_LABELS: Record<NonNullable<MeterDto['failure']>['rule'], string> = {
  daily_loss: 'Daily loss limit',
  max_loss: 'Maximum loss limit',
  time_limit: 'Time limit',
};

export interface ObjectiveRow {
  rule: string;
  /** The limit or target, as text for the screen (money, days). */
  limit: string;
  /** Where the account stands. */
  now: string;
  /** The room left (money or days), or the state; null when the rule has nothing to count. */
  left: string | null;
  /** `ok` when met or with room, `warn` under a fifth of the room left, `done` met, `broken` failed. */
  state: 'ok' | 'warn' | 'done' | 'broken';
}

/** Cents-exact room above a floor: equity less the floor, never below 0 (2 decimals). */
export function roomAbove(equity: number, floor: number): number {
  return Math.max(0, Math.round((equity - floor) * 100) / 100);
}

/** "3 h 05 min" / "12 min" / "45 s": the time until `until` from `now` (ms). */
export function countdown(until: number, now: number): string {
  const seconds = Math.max(0, Math.floor((until - now) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} days ${hours % 24} h`;
}

/**
 * The panel's rows for a meter, with the live equity (the account's latest figures) when one is
 * known. `money` formats USD as the dashboard does.
 */
export function objectiveRows(meter: MeterDto, liveEquity: number | undefined, money: (v: number) => string): ObjectiveRow[] {
  const equity = liveEquity ?? meter.equity;
  const failedRule = meter.failure?.rule;
  const rows: ObjectiveRow[] = [];
  const passed = meter.status === 'passed';
  rows.push({
    rule: 'Profit target',
    limit: money(meter.profit_target_balance),
    now: money(meter.balance),
    left: passed ? 'Reached' : money(Math.max(0, meter.profit_target_balance - meter.balance)),
    state: passed || meter.balance >= meter.profit_target_balance ? 'done' : 'ok',
  });
  if (meter.daily_loss_floor !== null) {
    const left = roomAbove(equity, meter.daily_loss_floor);
    const allowed = meter.day_basis - meter.daily_loss_floor;
    rows.push({
      rule: 'Daily loss limit',
      limit: `Equity above ${money(meter.daily_loss_floor)}`,
      now: money(equity),
      left: money(left),
      state: failedRule === 'daily_loss' ? 'broken' : left < allowed / 5 ? 'warn' : 'ok',
    });
  }
  const maxLeft = roomAbove(equity, meter.max_loss_floor);
  const maxAllowed = meter.initial_balance - meter.max_loss_floor;
  rows.push({
    rule: 'Maximum loss limit',
    limit: `Equity above ${money(meter.max_loss_floor)}`,
    now: money(equity),
    left: money(maxLeft),
    state: failedRule === 'max_loss' ? 'broken' : maxLeft < maxAllowed / 5 ? 'warn' : 'ok',
  });
  if (meter.phase.min_trading_days > 0) {
    const left = Math.max(0, meter.phase.min_trading_days - meter.trading_days);
    rows.push({
      rule: 'Trading days',
      limit: `At least ${meter.phase.min_trading_days}`,
      now: String(meter.trading_days),
      left: left === 0 ? 'Reached' : `${left} to go`,
      state: left === 0 ? 'done' : 'ok',
    });
  }
  if (meter.phase.best_day_pct !== null) {
    rows.push({
      rule: 'Best day',
      limit: `At most ${meter.phase.best_day_pct}% of the profit`,
      now: money(meter.best_day_pnl),
      left: meter.best_day_ok ? 'Within' : 'Too large',
      state: meter.best_day_ok ? 'ok' : 'warn',
    });
  }
  return rows;
}
