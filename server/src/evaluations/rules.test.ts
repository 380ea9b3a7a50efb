import { Dec } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import {
  breachOf,
  dailyLossFloor,
  dayBasis,
  maxLossFloor,
  orderRefusal,
  type PhaseRules,
  passingCheck,
  percentOf,
  profitTargetBalance,
} from './rules.js';

/** The usual two-phase challenge's first phase: 10 % target, 5 % daily, 10 % max loss, 4 days. */
const phase = (over: Partial<PhaseRules> = {}): PhaseRules => ({
  profitTargetPct: 1000,
  maxDailyLossPct: 500,
  dailyLossBasis: 'balance',
  maxLossPct: 1000,
  maxLossMode: 'static',
  minTradingDays: 4,
  maxDays: 30,
  bestDayPct: null,
  requireStopLoss: false,
  maxLotsCentilots: null,
  ...over,
});
const cents = (minor: number) => Dec.scaled(minor, 2);
const INITIAL = 10_000_000; // 100,000.00

describe('percentOf', () => {
  it('is exact to the cent, half away from zero', () => {
    expect(percentOf(10_000_000, 500)).toBe(500_000);
    // 12,345.67 × 4.50 % = 555.55515 → 555.56
    expect(percentOf(1_234_567, 450)).toBe(55_556);
    // 0.50 × 1.00 % = 0.005 → 0.01 (half up), and −0.005 → −0.01
    expect(percentOf(50, 100)).toBe(1);
    expect(percentOf(-50, 100)).toBe(-1);
    expect(percentOf(49, 100)).toBe(0);
    // No float drift on large balances: 90,071,992,547,409.91 × 33.33 %.
    expect(percentOf(9_007_199_254_740_991, 3333)).toBe(3_002_099_511_605_172);
  });
});

describe('the daily loss floor and its breach, for both bases', () => {
  it('is the day basis less the share of the initial balance; a breach is at or below it, a cent inside is not', () => {
    const floor = dailyLossFloor(phase(), INITIAL, 10_250_000)!;
    expect(floor).toBe(9_750_000); // 102,500.00 − 5,000.00
    const maxLoss = maxLossFloor(phase(), INITIAL, INITIAL);
    expect(breachOf(cents(floor + 1), { daily: floor, maxLoss })).toBeNull();
    expect(breachOf(cents(floor), { daily: floor, maxLoss })).toEqual({ rule: 'daily_loss', floor });
    expect(breachOf(cents(floor - 1), { daily: floor, maxLoss })).toEqual({ rule: 'daily_loss', floor });
    // Sub-cent equity: 0.001 above the floor is inside.
    expect(breachOf(cents(floor).plus('0.001'), { daily: floor, maxLoss })).toBeNull();
  });

  it('takes the balance, or the larger of balance and equity, as the day basis', () => {
    expect(dayBasis('balance', 10_000_000, Dec.from('100300.004'))).toBe(10_000_000);
    expect(dayBasis('max_balance_equity', 10_000_000, Dec.from('100300.004'))).toBe(10_030_000);
    expect(dayBasis('max_balance_equity', 10_000_000, Dec.from('100300.005'))).toBe(10_030_001);
    expect(dayBasis('max_balance_equity', 10_000_000, Dec.from('99000'))).toBe(10_000_000);
  });

  it('is none without the rule', () => {
    expect(dailyLossFloor(phase({ maxDailyLossPct: null }), INITIAL, INITIAL)).toBeNull();
    expect(breachOf(cents(9_500_000), { daily: null, maxLoss: 9_000_000 })).toBeNull();
  });
});

describe('the max loss floor', () => {
  it('static: the initial balance less its share, whatever the balance did', () => {
    expect(maxLossFloor(phase(), INITIAL, 12_000_000)).toBe(9_000_000);
    expect(breachOf(cents(9_000_001), { daily: null, maxLoss: 9_000_000 })).toBeNull();
    expect(breachOf(cents(9_000_000), { daily: null, maxLoss: 9_000_000 })).toEqual({ rule: 'max_loss', floor: 9_000_000 });
    expect(breachOf(cents(8_999_999), { daily: null, maxLoss: 9_000_000 })).toEqual({ rule: 'max_loss', floor: 9_000_000 });
  });

  it('trailing at the end of day: follows the highest day-end balance up, never below the initial one', () => {
    const rules = phase({ maxLossMode: 'trailing_eod' });
    expect(maxLossFloor(rules, INITIAL, 9_500_000)).toBe(9_000_000);
    expect(maxLossFloor(rules, INITIAL, 10_400_000)).toBe(9_400_000);
    expect(maxLossFloor(rules, INITIAL, 10_400_001)).toBe(9_400_001);
  });

  it('reports the higher floor when one tick crosses both (it was crossed first)', () => {
    expect(breachOf(cents(8_000_000), { daily: 9_500_000, maxLoss: 9_000_000 })).toEqual({
      rule: 'daily_loss',
      floor: 9_500_000,
    });
    expect(breachOf(cents(8_000_000), { daily: 8_500_000, maxLoss: 9_000_000 })).toEqual({ rule: 'max_loss', floor: 9_000_000 });
  });
});

describe('passing a phase', () => {
  const state = {
    initialMinor: INITIAL,
    balanceMinor: 11_000_000,
    openPositions: 0,
    tradingDays: 4,
    dayPnlsMinor: [400_000, 600_000],
  };

  it('passes at the target balance exactly, flat, with enough trading days; a cent short does not', () => {
    expect(profitTargetBalance(phase(), INITIAL)).toBe(11_000_000);
    expect(passingCheck(phase(), state).passed).toBe(true);
    expect(passingCheck(phase(), { ...state, balanceMinor: 10_999_999 })).toMatchObject({ passed: false, targetReached: false });
    expect(passingCheck(phase(), { ...state, openPositions: 1 })).toMatchObject({ passed: false, flat: false });
    expect(passingCheck(phase(), { ...state, tradingDays: 3 })).toMatchObject({ passed: false, tradingDaysOk: false });
  });

  it('with the best-day rule, waits while one day makes more than its share of the total', () => {
    const rules = phase({ bestDayPct: 6000 });
    // Best 600,000 of 1,000,000: 60 % exactly holds.
    expect(passingCheck(rules, state)).toMatchObject({ passed: true, bestDayMinor: 600_000, bestDayOk: true });
    // A cent more on the best day: 600,001 of 1,000,001 is above 60 %.
    expect(passingCheck(rules, { ...state, dayPnlsMinor: [400_000, 600_001] })).toMatchObject({
      passed: false,
      bestDayOk: false,
    });
    // A losing day counts in the total.
    expect(passingCheck(rules, { ...state, dayPnlsMinor: [700_000, 400_000, -100_000] })).toMatchObject({ bestDayOk: false });
  });
});

describe('order rules', () => {
  it('refuses above max lots, and without a stop loss when one is required; at the limit is fine', () => {
    const rules = { requireStopLoss: true, maxLotsCentilots: 500 };
    expect(orderRefusal(rules, { quantityCentilots: 500, leavesStopLoss: true })).toBeNull();
    expect(orderRefusal(rules, { quantityCentilots: 501, leavesStopLoss: true })).toBe('MAX_LOTS_EXCEEDED');
    expect(orderRefusal(rules, { quantityCentilots: 100, leavesStopLoss: false })).toBe('STOP_LOSS_REQUIRED');
    expect(
      orderRefusal({ requireStopLoss: false, maxLotsCentilots: null }, { quantityCentilots: 10_000, leavesStopLoss: false }),
    ).toBeNull();
  });
});
