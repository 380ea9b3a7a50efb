import type { Generated } from 'kysely';

/**
 * A trading account's period (docs/performance.md#the-period): it starts at the account's
 * creation or its last reset; exactly one per account is current (`ended_at` null). The row also
 * holds the period's running statistics (contract `PerformanceTally` and `DrawdownTally`),
 * updated in the transaction of every fill, so the performance call reads one row instead of
 * every trade. Money in cents, times in epoch ms.
 */
export interface PerformancePeriodsTable {
  id: Generated<number>;
  account_id: number;
  started_at: number;
  /** The balance when the period started (for the record; return % uses balance − net P&L). */
  start_balance_minor: number;
  /** Set by a reset when the next period starts; null for the current one. */
  ended_at: number | null;
  closed_trades: number;
  wins: number;
  losses: number;
  breakevens: number;
  gross_profit_minor: number;
  gross_loss_minor: number;
  largest_win_minor: number | null;
  largest_loss_minor: number | null;
  current_win_streak: number;
  current_loss_streak: number;
  longest_win_streak: number;
  longest_loss_streak: number;
  /** The highest equity point so far, in cents; null before the first point. */
  peak_equity_minor: number | null;
  /** The max drawdown % so far as exact decimal text. */
  max_drawdown_pct: string;
}

/** Per pair running statistics of a period. */
export interface PerformancePairStatsTable {
  period_id: number;
  symbol: string;
  trades: number;
  wins: number;
  losses: number;
  net_pnl_minor: number;
}

/** Tables of the performance statistics. */
export interface PerformanceTables {
  performance_periods: PerformancePeriodsTable;
  performance_pair_stats: PerformancePairStatsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../../db/schema.js' {
  interface Database extends PerformanceTables {}
}
