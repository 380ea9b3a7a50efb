import type { Dec, RosterDto, RosterFlag, RosterRowDto } from '@pipdesk/contract';
import type { Standing } from './standings.js';

/** The roster's thresholds (docs/academy.md#the-roster). */
export interface RosterRules {
  /** Margin level (%) at or below which a student is in margin call (the risk engine's level). */
  marginCallLevel: number;
  now: number;
}

/** `high_exposure`: margin level below this percent. */
export const HIGH_EXPOSURE_LEVEL = 200;
/** `inactive_7d`: no trade (nor a period start) within this long. */
export const INACTIVE_AFTER_MS = 7 * 86_400_000;

/**
 * Rounded to 2 decimals for JSON (half away from zero, as `Dec.toNumber(2)`): the cents as a
 * bigint, then one division, which IEEE rounds to the same nearest number as parsing the text
 * would, without the text (a roster answers a thousand rows of these).
 */
export const twoDecimals = (amount: Dec) => Number(amount.toScaled(2)) / 100;
const money = twoDecimals;
const percent = (amount: Dec | null) => (amount === null ? null : twoDecimals(amount));
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The flags of one student (docs/academy.md#the-roster), in the contract's order. */
export function rosterFlags(standing: Standing, rules: RosterRules): RosterFlag[] {
  const flags: RosterFlag[] = [];
  const level = standing.figures?.marginLevel ?? null;
  if (level?.lte(rules.marginCallLevel)) flags.push('margin_call');
  if (standing.positions.some((p) => (p.stopLoss ?? null) === null)) flags.push('no_stop_loss');
  if (level?.lt(HIGH_EXPOSURE_LEVEL)) flags.push('high_exposure');
  if (standing.figures !== null) {
    const lastActivity = Math.max(standing.lastTradeAt ?? 0, standing.periodStart ?? 0);
    if (rules.now - lastActivity > INACTIVE_AFTER_MS) flags.push('inactive_7d');
  }
  return flags;
}

/** One roster row: live figures from the book, statistics from the period (docs/academy.md#the-roster). */
export function rosterRow(standing: Standing, rules: RosterRules): RosterRowDto {
  const { figures, performance } = standing;
  return {
    user: standing.user,
    account: figures && {
      balance: money(figures.balance),
      equity: money(figures.equity),
      margin_used: money(figures.marginUsed),
      free_margin: money(figures.freeMargin),
      margin_level: percent(figures.marginLevel),
    },
    open_positions: standing.positions.length,
    pending_orders: standing.pendingOrders,
    unprotected_positions: standing.positions.filter((p) => (p.stopLoss ?? null) === null).length,
    today_pnl: figures && standing.dayStartEquity ? money(figures.equity.minus(standing.dayStartEquity)) : 0,
    return_pct: percent(performance?.returnPct ?? null),
    max_drawdown_pct: performance ? money(performance.maxDrawdownPct) : 0,
    closed_trades: performance?.closedTrades ?? 0,
    win_rate: percent(performance?.winRatePct ?? null),
    last_trade_at: iso(standing.lastTradeAt),
    flags: rosterFlags(standing, rules),
    // Filled by the roster call from the cohort's evaluation attempts (students.ts).
    attempt: null,
  };
}

/** GET cohorts/{id}/roster/: one row per member, by user id. */
export function roster(standings: readonly Standing[], rules: RosterRules): RosterDto {
  return standings.map((s) => rosterRow(s, rules));
}
