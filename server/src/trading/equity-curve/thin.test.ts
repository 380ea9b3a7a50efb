import { Dec, maxDrawdownPct } from '@pipdesk/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pointsToKeep, type ThinPoint } from './thin.js';

const HOUR = 60 * 60 * 1000;
const series = (values: number[], stepMs: number): ThinPoint[] =>
  values.map((v, i) => ({ id: i + 1, time: i * stepMs, equity: Dec.from(v) }));
const drawdownOf = (points: readonly ThinPoint[]) => maxDrawdownPct(points.map((p) => p.equity));

describe('thinning the equity curve', () => {
  it('keeps the peak and trough of the max drawdown across buckets', () => {
    // 15-minute points over three hours: the peak 12,000 is in the first hour, the trough 9,000 in the third.
    const values = [10000, 10500, 12000, 11800, 11900, 11000, 11200, 10900, 9500, 9000, 9400, 9800];
    const points = series(values, HOUR / 4);
    const keep = pointsToKeep(points, HOUR);
    const kept = points.filter((p) => keep.has(p.id));
    expect(kept.length).toBeLessThan(points.length);
    expect(kept.map((p) => p.equity.toNumber())).toContain(12000);
    expect(kept.map((p) => p.equity.toNumber())).toContain(9000);
    expect(drawdownOf(kept).toFixed(4)).toBe('25.0000');
    expect(drawdownOf(kept).eq(drawdownOf(points))).toBe(true);
  });

  it('keeps a drawdown inside one bucket', () => {
    // One hour: up to 100, down to 80, then a new high of 120 (the bucket's max comes after its min).
    const points = series([90, 100, 95, 80, 85, 120, 110], 5 * 60 * 1000);
    const kept = points.filter((p) => pointsToKeep(points, HOUR).has(p.id));
    expect(drawdownOf(kept).toFixed(2)).toBe('20.00');
  });

  it('never changes the max drawdown of a non-negative curve (property)', () => {
    const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31;
    console.log(`thinning property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 2 * HOUR }), cents: fc.integer({ min: 0, max: 5_000_000 }) }), {
          maxLength: 120,
        }),
        (raw) => {
          let time = 0;
          const points = raw.map((r, i) => {
            time += r.gap;
            return { id: i + 1, time, equity: Dec.scaled(r.cents, 2) };
          });
          const keep = pointsToKeep(points, HOUR);
          const kept = points.filter((p) => keep.has(p.id));
          expect(drawdownOf(kept).eq(drawdownOf(points))).toBe(true);
          // At most six points per hour survive, and thinning twice changes nothing.
          expect(kept.length).toBeLessThanOrEqual(6 * new Set(points.map((p) => Math.floor(p.time / HOUR))).size);
          expect(pointsToKeep(kept, HOUR).size).toBe(kept.length);
        },
      ),
      { seed, numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });
});
