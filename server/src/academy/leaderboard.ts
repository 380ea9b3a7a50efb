import type { LeaderboardDto } from '@pipdesk/contract';
import { twoDecimals } from './roster.js';
import type { Standing } from './standings.js';

/**
 * The leaderboard's order (docs/academy.md#the-leaderboard): return % high to low, exact (a
 * student without a return, i.e. no positive start, last); ties by the lower max drawdown, then
 * the earlier period start, then the user id so the order is stable.
 */
export function compareStandings(a: Standing, b: Standing): number {
  const ra = a.performance?.returnPct ?? null;
  const rb = b.performance?.returnPct ?? null;
  if (ra === null || rb === null) {
    if (ra !== rb) return ra === null ? 1 : -1;
  } else if (!ra.eq(rb)) return rb.cmp(ra);
  const da = a.performance?.maxDrawdownPct;
  const db = b.performance?.maxDrawdownPct;
  if (da && db && !da.eq(db)) return da.cmp(db);
  const sa = a.periodStart ?? Number.MAX_SAFE_INTEGER;
  const sb = b.periodStart ?? Number.MAX_SAFE_INTEGER;
  if (sa !== sb) return sa - sb;
  return a.user.id - b.user.id;
}

/**
 * GET cohorts/{id}/leaderboard/: members with a trading account, ranked 1, 2, 3… in
 * `compareStandings` order; the display name is the full name (no e-mail: classmates see it).
 */
export function leaderboard(standings: readonly Standing[]): LeaderboardDto {
  return standings
    .filter((s) => s.figures !== null && s.performance !== null)
    .sort(compareStandings)
    .map((s, i) => {
      const p = s.performance!;
      return {
        rank: i + 1,
        user: { id: s.user.id, display_name: s.user.full_name },
        return_pct: p.returnPct === null ? null : twoDecimals(p.returnPct),
        equity: twoDecimals(s.figures!.equity),
        max_drawdown_pct: twoDecimals(p.maxDrawdownPct),
        closed_trades: p.closedTrades,
        win_rate: p.winRatePct === null ? null : twoDecimals(p.winRatePct),
        profit_factor: p.profitFactor === null ? null : twoDecimals(p.profitFactor),
      };
    });
}
