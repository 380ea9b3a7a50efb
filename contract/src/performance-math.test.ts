import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from './decimal.js';
import {
  EMPTY_PAIR_TALLY,
  EMPTY_PERFORMANCE_TALLY,
  maxDrawdownPct,
  type PerformanceTally,
  performanceFigures,
  tallyClosedTrade,
  tallyPairTrade,
} from './performance-math.js';

const usd = (v: string | number) => Dec.from(v);
const fold = (pnls: readonly (string | number)[]): PerformanceTally =>
  pnls.reduce<PerformanceTally>((t, p) => tallyClosedTrade(t, usd(p)), EMPTY_PERFORMANCE_TALLY);
const figures = (pnls: readonly (string | number)[], startBalance = '10000', equity?: string) => {
  const tally = fold(pnls);
  const net = tally.grossProfit.plus(tally.grossLoss);
  return performanceFigures({
    tally,
    drawdown: { peak: null, maxDrawdownPct: Dec.ZERO },
    startBalance: usd(startBalance),
    equity: equity === undefined ? usd(startBalance).plus(net) : usd(equity),
  });
};
const text = (d: Dec | null) => (d === null ? null : d.toFixed(2));

describe('performance figures, hand-computed', () => {
  it('wins, losses and a breakeven', () => {
    // +120.50, −40.25, 0, +30.00, −10.25: net 100.00 over 5 trades.
    const f = figures(['120.50', '-40.25', '0', '30', '-10.25']);
    expect(f.closedTrades).toBe(5);
    expect([f.wins, f.losses, f.breakevens]).toEqual([2, 2, 1]);
    expect(text(f.netPnl)).toBe('100.00');
    expect(text(f.winRatePct)).toBe('50.00'); // 2 ÷ (2 + 2); the breakeven does not count
    expect(text(f.profitFactor)).toBe('2.98'); // 150.50 ÷ 50.50 = 2.9801…
    expect(f.profitFactor!.toFixed(4)).toBe('2.9802');
    expect(text(f.expectancy)).toBe('20.00');
    expect(text(f.averageWin)).toBe('75.25');
    expect(text(f.averageLoss)).toBe('-25.25');
    expect(text(f.largestWin)).toBe('120.50');
    expect(text(f.largestLoss)).toBe('-40.25');
    expect(text(f.returnPct)).toBe('1.00'); // 100 ÷ 10,000
    expect(f.longestWinStreak).toBe(1);
    expect(f.longestLossStreak).toBe(1);
  });

  it('streaks skip breakevens and reset on the other side', () => {
    const f = figures([10, 0, 20, 30, -5, -5, 0, -5, 40]);
    expect(f.longestWinStreak).toBe(3);
    expect(f.longestLossStreak).toBe(3);
  });

  it('profit factor is null with no loss, win rate null with no wins and no losses', () => {
    const onlyWins = figures([10, 20]);
    expect(onlyWins.profitFactor).toBeNull();
    expect(text(onlyWins.winRatePct)).toBe('100.00');
    expect(onlyWins.averageLoss).toBeNull();
    expect(onlyWins.largestLoss).toBeNull();

    const onlyBreakevens = figures([0, 0]);
    expect(onlyBreakevens.winRatePct).toBeNull();
    expect(onlyBreakevens.profitFactor).toBeNull();
    expect(text(onlyBreakevens.expectancy)).toBe('0.00');

    const none = figures([]);
    expect(none.winRatePct).toBeNull();
    expect(none.expectancy).toBeNull();
    expect(none.averageWin).toBeNull();
    expect(text(none.returnPct)).toBe('0.00');

    const onlyLosses = figures([-10, '-2.5']);
    expect(text(onlyLosses.profitFactor)).toBe('0.00');
    expect(text(onlyLosses.winRatePct)).toBe('0.00');
  });

  it('return % uses equity (open positions included) against the start', () => {
    const f = figures(['50'], '2000', '1900');
    expect(text(f.returnPct)).toBe('-5.00');
    expect(figures([], '0', '0').returnPct).toBeNull();
  });

  it('per pair: trades, wins, losses and net', () => {
    let t = EMPTY_PAIR_TALLY;
    for (const p of ['12.34', '-2.34', '0']) t = tallyPairTrade(t, usd(p));
    expect(t.trades).toBe(3);
    expect([t.wins, t.losses]).toEqual([1, 1]);
    expect(t.netPnl.toFixed(2)).toBe('10.00');
  });
});

describe('max drawdown', () => {
  it('over a known series: the largest fall from a peak, not the deepest point', () => {
    // Peak 10,000 → 9,000 (10 %), new peak 12,000 → 10,200 (15 %), then 9,500 (20.83 %).
    const series = [10000, 9000, 11000, 12000, 10200, 11500, 9500, 9800].map((v) => usd(v));
    expect(maxDrawdownPct(series).toFixed(4)).toBe('20.8333');
    expect(maxDrawdownPct([usd(100), usd(110), usd(120)]).isZero()).toBe(true);
    expect(maxDrawdownPct([]).isZero()).toBe(true);
  });
});

// ------------------------------------------------------------------ property tests

/** The reference model: every figure straight from the list, no fold. */
function reference(cents: readonly bigint[]) {
  const wins = cents.filter((c) => c > 0n);
  const losses = cents.filter((c) => c < 0n);
  const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
  const decided = cents.filter((c) => c !== 0n).map((c) => (c > 0n ? 1 : -1));
  let longestWin = 0;
  let longestLoss = 0;
  let run = 0;
  decided.forEach((s, i) => {
    run = i > 0 && decided[i - 1] === s ? run + 1 : 1;
    if (s > 0) longestWin = Math.max(longestWin, run);
    else longestLoss = Math.max(longestLoss, run);
  });
  return {
    wins: wins.length,
    losses: losses.length,
    breakevens: cents.length - wins.length - losses.length,
    grossProfit: sum(wins),
    grossLoss: sum(losses),
    largestWin: wins.length ? wins.reduce((a, b) => (b > a ? b : a)) : null,
    largestLoss: losses.length ? losses.reduce((a, b) => (b < a ? b : a)) : null,
    longestWin,
    longestLoss,
  };
}

/**
 * The definition, naively: for every point, the highest equity before it is its peak, and the
 * drawdown is (peak − point) ÷ peak; the largest one wins (peaks at or below zero measure none).
 */
function referenceDrawdown(cents: readonly bigint[]): Dec {
  let best = Dec.ZERO;
  for (let j = 1; j < cents.length; j++) {
    const peak = cents.slice(0, j).reduce((a, b) => (b > a ? b : a));
    if (peak <= 0n) continue;
    const pct = Dec.scaled(peak - cents[j]!, 2)
      .times(100)
      .div(Dec.scaled(peak, 2));
    if (pct.gt(best)) best = pct;
  }
  return best;
}

describe('performance properties', () => {
  const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31;
  console.log(`performance property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
  const pnlCents = fc.oneof(fc.constant(0n), fc.bigInt({ min: -5_000_000n, max: 5_000_000n }));

  it('the fold agrees with the reference model', () => {
    fc.assert(
      fc.property(fc.array(pnlCents, { maxLength: 80 }), (cents) => {
        const tally = cents.reduce<PerformanceTally>((t, c) => tallyClosedTrade(t, Dec.scaled(c, 2)), EMPTY_PERFORMANCE_TALLY);
        const ref = reference(cents);
        expect(tally.closedTrades).toBe(cents.length);
        expect([tally.wins, tally.losses, tally.breakevens]).toEqual([ref.wins, ref.losses, ref.breakevens]);
        expect(tally.grossProfit.toScaled(2)).toBe(ref.grossProfit);
        expect(tally.grossLoss.toScaled(2)).toBe(ref.grossLoss);
        expect(tally.largestWin?.toScaled(2) ?? null).toBe(ref.largestWin);
        expect(tally.largestLoss?.toScaled(2) ?? null).toBe(ref.largestLoss);
        expect([tally.longestWinStreak, tally.longestLossStreak]).toEqual([ref.longestWin, ref.longestLoss]);
        const f = performanceFigures({
          tally,
          drawdown: { peak: null, maxDrawdownPct: Dec.ZERO },
          startBalance: Dec.from(10000),
          equity: Dec.from(10000),
        });
        // Exact to the cent: net P&L is the sum of the trades, and the averages multiply back.
        expect(f.netPnl.toScaled(2)).toBe(ref.grossProfit + ref.grossLoss);
        expect(f.profitFactor === null).toBe(ref.losses === 0);
        expect(f.winRatePct === null).toBe(ref.wins + ref.losses === 0);
        if (f.averageWin) expect(f.averageWin.times(ref.wins).toScaled(2)).toBe(ref.grossProfit);
        if (f.expectancy) expect(f.expectancy.times(cents.length).toScaled(2)).toBe(ref.grossProfit + ref.grossLoss);
      }),
      { seed, numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });

  it('the running max drawdown agrees with the O(n²) definition', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -100_000n, max: 2_000_000n }), { maxLength: 60 }), (cents) => {
        expect(maxDrawdownPct(cents.map((c) => Dec.scaled(c, 2))).eq(referenceDrawdown(cents))).toBe(true);
      }),
      { seed, numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });
});
