import { describe, expect, it } from 'vitest';
import { evaluationChange } from './notices';
import { countdown, objectiveRows, roomAbove } from './objectives';
import { meterFixture } from './testSupport';

const money = (v: number) => v.toFixed(2);

describe('objective rows', () => {
  it('lists each rule with its limit, where the account stands and the room left, from the live equity', () => {
    const rows = objectiveRows(meterFixture(), 9790, money);
    expect(rows.map((r) => [r.rule, r.limit, r.now, r.left, r.state])).toEqual([
      ['Profit target', '11000.00', '10200.00', '800.00', 'ok'],
      // 9,790.00 − 9,700.00 = 90.00 left of 500.00: under a fifth, close to the limit.
      ['Daily loss limit', 'Equity above 9700.00', '9790.00', '90.00', 'warn'],
      ['Maximum loss limit', 'Equity above 9000.00', '9790.00', '790.00', 'ok'],
      ['Trading days', 'At least 4', '2', '2 to go', 'ok'],
    ]);
  });

  it('never shows room below 0, marks the broken rule once failed, and leaves out rules the phase does not have', () => {
    const failed = meterFixture({
      status: 'failed',
      failure: { rule: 'daily_loss', at: '2026-11-02T15:00:00.000Z', equity: 9700, floor: 9700, balance: 10200 },
      daily_loss_floor: 9700,
      phase: { ...meterFixture().phase, min_trading_days: 0 },
    });
    const rows = objectiveRows(failed, 9650, money);
    expect(rows.find((r) => r.rule === 'Daily loss limit')).toMatchObject({ left: '0.00', state: 'broken' });
    expect(rows.map((r) => r.rule)).not.toContain('Trading days');
    expect(roomAbove(100.1, 100.11)).toBe(0);
    expect(roomAbove(95.01, 95)).toBe(0.01);
  });
});

describe('countdown', () => {
  it('counts down in the largest sensible unit', () => {
    const now = Date.UTC(2026, 10, 2, 12);
    expect(countdown(now + 45_000, now)).toBe('45 s');
    expect(countdown(now + 12 * 60_000 + 5_000, now)).toBe('12 min');
    expect(countdown(now + (3 * 60 + 5) * 60_000, now)).toBe('3 h 05 min');
    expect(countdown(now + 50 * 3_600_000, now)).toBe('2 days 2 h');
    expect(countdown(now - 1, now)).toBe('0 s');
  });
});

describe('evaluation notices', () => {
  it('tell of a failure, a pass and a new phase once each; fills and day starts say nothing', () => {
    const seen = new Map<number, string>();
    expect(evaluationChange(seen, meterFixture())).toBeNull();
    expect(evaluationChange(seen, meterFixture({ trading_days: 3 }))).toBeNull();
    const next = meterFixture({ phase: { ...meterFixture().phase, index: 1, name: 'Verification' } });
    expect(evaluationChange(seen, next)).toMatchObject({ tone: 'success', title: 'Phase 2 started' });
    const failed = meterFixture({
      phase: next.phase,
      status: 'failed',
      failure: { rule: 'max_loss', at: '2026-11-03T10:00:00.000Z', equity: 9000, floor: 9000, balance: 9400 },
    });
    expect(evaluationChange(seen, failed)).toEqual({
      tone: 'error',
      title: 'Evaluation failed',
      text: 'Verification: the maximum loss limit was reached. The account is now read-only.',
    });
    expect(evaluationChange(seen, failed)).toBeNull();
  });
});
