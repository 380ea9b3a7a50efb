import { Dec } from './decimal.js';

/**
 * The statistics of docs/performance.md as pure functions over the exact decimal type: the one
 * implementation the performance call, the academy's roster and its leaderboard share.
 *
 * Everything is a fold: a tally is updated by one closed trade (or one equity point) at a time,
 * so the server keeps the tallies in the database, updates them in the fill's transaction and
 * answers without reading the trades again; a test folds a whole list the same way.
 */

/** The running statistics of a period's closed trades. */
export interface PerformanceTally {
  closedTrades: number;
  wins: number;
  losses: number;
  breakevens: number;
  /** Σ realized P&L of the wins (≥ 0). */
  grossProfit: Dec;
  /** Σ realized P&L of the losses (≤ 0). */
  grossLoss: Dec;
  /** Null until the first win. */
  largestWin: Dec | null;
  /** The most negative loss; null until the first loss. */
  largestLoss: Dec | null;
  /** The streak the last win or loss belongs to (breakevens are skipped). */
  currentWinStreak: number;
  currentLossStreak: number;
  longestWinStreak: number;
  longestLossStreak: number;
}

export const EMPTY_PERFORMANCE_TALLY: PerformanceTally = Object.freeze({
  closedTrades: 0,
  wins: 0,
  losses: 0,
  breakevens: 0,
  grossProfit: Dec.ZERO,
  grossLoss: Dec.ZERO,
  largestWin: null,
  largestLoss: null,
  currentWinStreak: 0,
  currentLossStreak: 0,
  longestWinStreak: 0,
  longestLossStreak: 0,
});

/** Adds one closed trade (its realized P&L in USD). A breakeven (exactly 0) ends neither streak. */
export function tallyClosedTrade(tally: PerformanceTally, realizedPnl: Dec): PerformanceTally {
  const sign = realizedPnl.sign();
  const next: PerformanceTally = { ...tally, closedTrades: tally.closedTrades + 1 };
  if (sign === 0) {
    next.breakevens += 1;
    return next;
  }
  if (sign > 0) {
    next.wins += 1;
    next.grossProfit = tally.grossProfit.plus(realizedPnl);
    next.largestWin = tally.largestWin === null ? realizedPnl : Dec.max(tally.largestWin, realizedPnl);
    next.currentWinStreak = tally.currentWinStreak + 1;
    next.currentLossStreak = 0;
    next.longestWinStreak = Math.max(tally.longestWinStreak, next.currentWinStreak);
    return next;
  }
  next.losses += 1;
  next.grossLoss = tally.grossLoss.plus(realizedPnl);
  next.largestLoss = tally.largestLoss === null ? realizedPnl : Dec.min(tally.largestLoss, realizedPnl);
  next.currentLossStreak = tally.currentLossStreak + 1;
  next.currentWinStreak = 0;
  next.longestLossStreak = Math.max(tally.longestLossStreak, next.currentLossStreak);
  return next;
}

/** The running statistics of one pair's closed trades in a period. */
export interface PairTally {
  trades: number;
  wins: number;
  losses: number;
  netPnl: Dec;
}

export const EMPTY_PAIR_TALLY: PairTally = Object.freeze({ trades: 0, wins: 0, losses: 0, netPnl: Dec.ZERO });

export function tallyPairTrade(tally: PairTally, realizedPnl: Dec): PairTally {
  const sign = realizedPnl.sign();
  return {
    trades: tally.trades + 1,
    wins: tally.wins + (sign > 0 ? 1 : 0),
    losses: tally.losses + (sign < 0 ? 1 : 0),
    netPnl: tally.netPnl.plus(realizedPnl),
  };
}

/** The running maximum drawdown over an equity curve, point by point in time order. */
export interface DrawdownTally {
  /** The highest equity so far; null before the first point. */
  peak: Dec | null;
  /** The largest (peak − later trough) ÷ peak × 100 so far (0 with none). */
  maxDrawdownPct: Dec;
}

export const EMPTY_DRAWDOWN_TALLY: DrawdownTally = Object.freeze({ peak: null, maxDrawdownPct: Dec.ZERO });

/**
 * Adds one equity point. A peak at or below zero measures no drawdown (the percentage of
 * nothing is undefined); a later, higher peak does.
 */
export function tallyEquityPoint(tally: DrawdownTally, equity: Dec): DrawdownTally {
  if (tally.peak === null || equity.gt(tally.peak)) return { peak: equity, maxDrawdownPct: tally.maxDrawdownPct };
  if (!tally.peak.gt(Dec.ZERO)) return tally;
  const pct = tally.peak.minus(equity).times(100).div(tally.peak);
  return pct.gt(tally.maxDrawdownPct) ? { peak: tally.peak, maxDrawdownPct: pct } : tally;
}

/** Max drawdown % of a whole series (oldest first). */
export function maxDrawdownPct(equities: Iterable<Dec>): Dec {
  let tally = EMPTY_DRAWDOWN_TALLY;
  for (const equity of equities) tally = tallyEquityPoint(tally, equity);
  return tally.maxDrawdownPct;
}

/** Win rate in percent of wins and losses (breakevens excluded); null with neither. */
export function winRatePct(wins: number, losses: number): Dec | null {
  const decided = wins + losses;
  return decided === 0 ? null : Dec.from(wins).times(100).div(decided);
}

/** The figures of docs/performance.md, exact (round them only to answer). */
export interface PerformanceFigures {
  startBalance: Dec;
  equity: Dec;
  netPnl: Dec;
  returnPct: Dec | null;
  closedTrades: number;
  wins: number;
  losses: number;
  breakevens: number;
  winRatePct: Dec | null;
  profitFactor: Dec | null;
  expectancy: Dec | null;
  averageWin: Dec | null;
  averageLoss: Dec | null;
  largestWin: Dec | null;
  largestLoss: Dec | null;
  longestWinStreak: number;
  longestLossStreak: number;
  maxDrawdownPct: Dec;
}

/**
 * The period's figures from its tallies. `startBalance` is the balance at the period start plus
 * the deposits and adjustments since (docs/performance.md#definitions), `equity` the account's
 * equity now.
 */
export function performanceFigures(input: {
  tally: PerformanceTally;
  drawdown: DrawdownTally;
  startBalance: Dec;
  equity: Dec;
}): PerformanceFigures {
  const { tally, startBalance, equity } = input;
  const netPnl = tally.grossProfit.plus(tally.grossLoss);
  return {
    startBalance,
    equity,
    netPnl,
    returnPct: startBalance.gt(Dec.ZERO) ? equity.minus(startBalance).times(100).div(startBalance) : null,
    closedTrades: tally.closedTrades,
    wins: tally.wins,
    losses: tally.losses,
    breakevens: tally.breakevens,
    winRatePct: winRatePct(tally.wins, tally.losses),
    profitFactor: tally.losses === 0 ? null : tally.grossProfit.div(tally.grossLoss.abs()),
    expectancy: tally.closedTrades === 0 ? null : netPnl.div(tally.closedTrades),
    averageWin: tally.wins === 0 ? null : tally.grossProfit.div(tally.wins),
    averageLoss: tally.losses === 0 ? null : tally.grossLoss.div(tally.losses),
    largestWin: tally.largestWin,
    largestLoss: tally.largestLoss,
    longestWinStreak: tally.longestWinStreak,
    longestLossStreak: tally.longestLossStreak,
    maxDrawdownPct: input.drawdown.maxDrawdownPct,
  };
}
