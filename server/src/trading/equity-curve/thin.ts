import { Dec } from '@pipdesk/contract';

/** A stored point as the thinning sees it. */
export interface ThinPoint {
  id: number;
  time: number;
  equity: Dec;
}

/**
 * The points to keep when a stretch of the curve is thinned to `bucketMs` buckets
 * (docs/performance.md#the-equity-curve): per bucket its first and last point, its highest and
 * lowest, and the peak and trough of its own largest drawdown. The max drawdown of the whole
 * curve survives: its peak is the highest point of its bucket when the trough lies in a later
 * bucket, its trough the lowest of its bucket, and a drawdown inside one bucket keeps both ends.
 * Points must be oldest first; the answer is the kept ids.
 */
export function pointsToKeep(points: readonly ThinPoint[], bucketMs: number): Set<number> {
  const keep = new Set<number>();
  let start = 0;
  while (start < points.length) {
    const bucket = Math.floor(points[start]!.time / bucketMs);
    let end = start;
    while (end < points.length && Math.floor(points[end]!.time / bucketMs) === bucket) end++;
    keepOfBucket(points, start, end, keep);
    start = end;
  }
  return keep;
}

function keepOfBucket(points: readonly ThinPoint[], start: number, end: number, keep: Set<number>): void {
  let high = points[start]!;
  let low = points[start]!;
  // The running peak and the bucket's own largest drawdown (peak − trough) ÷ peak, compared exactly.
  let peak = points[start]!;
  let ddPeak: ThinPoint | undefined;
  let ddTrough: ThinPoint | undefined;
  let ddPct = Dec.ZERO;
  for (let i = start; i < end; i++) {
    const p = points[i]!;
    if (p.equity.gt(high.equity)) high = p;
    if (p.equity.lt(low.equity)) low = p;
    if (p.equity.gt(peak.equity)) peak = p;
    else if (peak.equity.gt(Dec.ZERO)) {
      const pct = peak.equity.minus(p.equity).times(100).div(peak.equity);
      if (pct.gt(ddPct)) {
        ddPct = pct;
        ddPeak = peak;
        ddTrough = p;
      }
    }
  }
  keep.add(points[start]!.id);
  keep.add(points[end - 1]!.id);
  keep.add(high.id);
  keep.add(low.id);
  if (ddPeak && ddTrough) {
    keep.add(ddPeak.id);
    keep.add(ddTrough.id);
  }
}
