import { Dec } from '@pipdesk/contract';

/**
 * The objective rules of an evaluation phase (docs/evaluations.md#the-rules), as pure functions of
 * money in exact cents. Percentages are kept in hundredths of a percent (10.00 % is 1000), so a
 * limit of a balance is an integer product rounded once, to the cent, half away from zero, as
 * every amount of the platform is.
 */

/** Hundredths of a percent: 5.25 % is 525. */
export type PctHundredths = number;

export type DailyLossBasis = 'balance' | 'max_balance_equity';
export type MaxLossMode = 'static' | 'trailing_eod';
export type BreachRule = 'daily_loss' | 'max_loss';

/** One phase's rules (a program has 1 to 3). */
export interface PhaseRules {
  profitTargetPct: PctHundredths;
  maxDailyLossPct: PctHundredths | null;
  dailyLossBasis: DailyLossBasis;
  maxLossPct: PctHundredths;
  maxLossMode: MaxLossMode;
  minTradingDays: number;
  maxDays: number | null;
  bestDayPct: PctHundredths | null;
  requireStopLoss: boolean;
  /** In centilots (1.00 lot is 100); null: no limit. */
  maxLotsCentilots: number | null;
}

/** `pct` of `minor` cents, rounded to the cent half away from zero. */
export function percentOf(minor: number, pct: PctHundredths): number {
  const product = BigInt(minor) * BigInt(pct);
  const q = product / 10_000n;
  const r = product % 10_000n;
  const twice = (r < 0n ? -r : r) * 2n;
  const rounded = twice >= 10_000n ? q + (product < 0n ? -1n : 1n) : q;
  return Number(rounded);
}

/** The daily loss floor: the day basis less the rule's share of the initial balance; null without the rule. */
export function dailyLossFloor(rules: PhaseRules, initialMinor: number, dayBasisMinor: number): number | null {
  if (rules.maxDailyLossPct === null) return null;
  return dayBasisMinor - percentOf(initialMinor, rules.maxDailyLossPct);
}

/**
 * The max loss floor. Static: the initial balance less the rule's share of it. Trailing at the end
 * of day: the highest of the initial balance and every balance at a day end so far, less the same
 * amount; it is recomputed only at day ends, and never falls since that highest never does.
 */
export function maxLossFloor(rules: PhaseRules, initialMinor: number, highestDayEndBalanceMinor: number): number {
  const allowed = percentOf(initialMinor, rules.maxLossPct);
  if (rules.maxLossMode === 'static') return initialMinor - allowed;
  return Math.max(initialMinor, highestDayEndBalanceMinor) - allowed;
}

/** The day basis recorded at a day start: the balance, or the larger of balance and equity (equity to the cent, half up). */
export function dayBasis(basis: DailyLossBasis, balanceMinor: number, equity: Dec): number {
  if (basis === 'balance') return balanceMinor;
  return Math.max(balanceMinor, equity.toScaledNumber(2));
}

/**
 * The rule an equity breaches, if any: at or below a floor. When one tick takes equity through
 * both, the higher floor is the one it crossed first (on equal floors, the daily loss).
 */
export function breachOf(
  equity: Dec,
  floors: { daily: number | null; maxLoss: number },
): { rule: BreachRule; floor: number } | null {
  const hits: Array<{ rule: BreachRule; floor: number }> = [];
  if (floors.daily !== null && equity.lte(Dec.scaled(floors.daily, 2))) hits.push({ rule: 'daily_loss', floor: floors.daily });
  if (equity.lte(Dec.scaled(floors.maxLoss, 2))) hits.push({ rule: 'max_loss', floor: floors.maxLoss });
  if (hits.length === 0) return null;
  return hits.reduce((a, b) => (b.floor > a.floor ? b : a));
}

/** The balance a phase passes at: the initial balance plus the target's share of it. */
export function profitTargetBalance(rules: PhaseRules, initialMinor: number): number {
  return initialMinor + percentOf(initialMinor, rules.profitTargetPct);
}

/** What the passing check reads of the account and the phase. */
export interface PassingState {
  initialMinor: number;
  balanceMinor: number;
  openPositions: number;
  /** Days with at least one fill the trader caused. */
  tradingDays: number;
  /** Closed P&L per evaluation day of the phase, in cents. */
  dayPnlsMinor: readonly number[];
}

/** Where a phase stands on passing (docs/evaluations.md#passing-a-phase). */
export interface PassingCheck {
  passed: boolean;
  targetBalanceMinor: number;
  targetReached: boolean;
  flat: boolean;
  tradingDaysOk: boolean;
  /** The best day's closed P&L, in cents (0 without a day). */
  bestDayMinor: number;
  /** True without the rule; with it, the best day is at most its share of the phase's total closed P&L. */
  bestDayOk: boolean;
}

/**
 * The passing check, run after every fill: the target balance reached, no open position, enough
 * trading days and, with the best-day rule, no single day making more than its share of the
 * phase's closed P&L. Not a breach: a phase that fails the best-day rule waits until it holds.
 */
export function passingCheck(rules: PhaseRules, state: PassingState): PassingCheck {
  const targetBalanceMinor = profitTargetBalance(rules, state.initialMinor);
  const targetReached = state.balanceMinor >= targetBalanceMinor;
  const flat = state.openPositions === 0;
  const tradingDaysOk = state.tradingDays >= rules.minTradingDays;
  const bestDayMinor = state.dayPnlsMinor.length === 0 ? 0 : Math.max(...state.dayPnlsMinor);
  const totalMinor = state.dayPnlsMinor.reduce((sum, pnl) => sum + pnl, 0);
  // best ≤ pct × total, compared exactly: best × 10,000 ≤ pct × total.
  const bestDayOk = rules.bestDayPct === null || BigInt(bestDayMinor) * 10_000n <= BigInt(rules.bestDayPct) * BigInt(totalMinor);
  return {
    passed: targetReached && flat && tradingDaysOk && bestDayOk,
    targetBalanceMinor,
    targetReached,
    flat,
    tradingDaysOk,
    bestDayMinor,
    bestDayOk,
  };
}

/** Why an order is refused on an evaluation account before anything is stored (400). */
export type OrderRuleRefusal = 'STOP_LOSS_REQUIRED' | 'MAX_LOTS_EXCEEDED';

/**
 * The order-time rules: above `max_lots` is refused; with `require_stop_loss`, an order that would
 * leave a position without a stop loss (a market or pending order without one, or a change that
 * clears one) is refused. Nothing is stored either way.
 */
export function orderRefusal(
  rules: Pick<PhaseRules, 'requireStopLoss' | 'maxLotsCentilots'>,
  order: { quantityCentilots: number; leavesStopLoss: boolean },
): OrderRuleRefusal | null {
  if (rules.maxLotsCentilots !== null && order.quantityCentilots > rules.maxLotsCentilots) return 'MAX_LOTS_EXCEEDED';
  if (rules.requireStopLoss && !order.leavesStopLoss) return 'STOP_LOSS_REQUIRED';
  return null;
}
