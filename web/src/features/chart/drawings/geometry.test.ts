import { FIB_LEVELS } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import {
  distanceToSegment,
  dragPoints,
  fibLevels,
  hitShape,
  hitTest,
  logicalToTime,
  nudgePoints,
  type Projector,
  type Px,
  rayEnd,
  type Shape,
  shapeOf,
  snapPrice,
  timeToLogical,
} from './geometry';

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);
/** Hourly bars with a weekend-like gap between the third and the fourth. */
const BARS = [T0, T0 + H, T0 + 2 * H, T0 + 50 * H, T0 + 51 * H];
const VIEW = { width: 800, height: 400 };

describe('time and the bar index', () => {
  it('puts a bar time on its index and a time between bars between them', () => {
    expect(timeToLogical(BARS, T0 + H)).toBe(1);
    expect(timeToLogical(BARS, T0 + H + H / 2)).toBe(1.5);
    // Inside the gap: proportionally between the bars either side.
    expect(timeToLogical(BARS, T0 + 26 * H)).toBe(2.5);
  });

  it('extrapolates past either end at the nearest bars’ spacing', () => {
    expect(timeToLogical(BARS, T0 - 2 * H)).toBe(-2);
    expect(timeToLogical(BARS, T0 + 54 * H)).toBe(7);
    expect(timeToLogical([T0], T0 + 10 * 60_000)).toBe(10);
    expect(timeToLogical([T0], T0 + 2 * H, H)).toBe(2);
    expect(timeToLogical([], T0)).toBeNull();
  });

  it('turns an index back into the same time, in whole seconds', () => {
    for (const t of [T0 - 3 * H, T0, T0 + 90 * 60_000, T0 + 26 * H, T0 + 51 * H, T0 + 60 * H]) {
      const logical = timeToLogical(BARS, t) as number;
      expect(logicalToTime(BARS, logical)).toBe(t);
    }
    expect(logicalToTime(BARS, 1.2345)).toBe(T0 + H + 844_000);
    expect(logicalToTime([], 1)).toBeNull();
    expect(logicalToTime(BARS, Number.NaN)).toBeNull();
  });

  it('keeps prices on the series’ grid', () => {
    expect(snapPrice(1.234567, 0.00001)).toBe(1.23457);
    expect(snapPrice(151.23456, 0.001)).toBe(151.235);
    expect(snapPrice(0.1 + 0.2, 0.1)).toBe(0.3);
  });
});

describe('Fibonacci retracement', () => {
  it('has the seven levels, 0 % at the second point and 100 % at the first', () => {
    const levels = fibLevels(1.1, 1.2);
    expect(levels.map((l) => l.level)).toEqual([...FIB_LEVELS]);
    expect(levels[0]?.price).toBeCloseTo(1.2, 10);
    expect(levels[6]?.price).toBeCloseTo(1.1, 10);
    expect(levels.find((l) => l.level === 50)?.price).toBeCloseTo(1.15, 10);
    expect(levels.find((l) => l.level === 61.8)?.price).toBeCloseTo(1.1382, 10);
  });

  it('measures a fall the same way (levels above the low)', () => {
    const levels = fibLevels(1.2, 1.1);
    expect(levels.find((l) => l.level === 23.6)?.price).toBeCloseTo(1.1236, 10);
  });
});

describe('ray', () => {
  it('reaches the edge of the pane past its second point', () => {
    expect(rayEnd({ x: 100, y: 200 }, { x: 200, y: 200 }, VIEW)).toEqual({ x: 800, y: 200 });
    expect(rayEnd({ x: 100, y: 300 }, { x: 200, y: 200 }, VIEW)).toEqual({ x: 400, y: 0 });
    expect(rayEnd({ x: 400, y: 100 }, { x: 300, y: 150 }, VIEW)).toEqual({ x: 0, y: 300 });
    expect(rayEnd({ x: 100, y: 100 }, { x: 100, y: 300 }, VIEW)).toEqual({ x: 100, y: 400 });
  });

  it('never ends short of its second point, and a ray of one point stays there', () => {
    expect(rayEnd({ x: 100, y: 100 }, { x: 900, y: 100 }, VIEW)).toEqual({ x: 900, y: 100 });
    expect(rayEnd({ x: 5, y: 5 }, { x: 5, y: 5 }, VIEW)).toEqual({ x: 5, y: 5 });
  });
});

/** A chart where a time's x is its hours after T0 × 10 and a price's y is (2 − price) × 1000. */
const y = (price: number) => Math.round((2 - price) * 1000 * 1e6) / 1e6;
const project: Projector & { fromPx: (p: Px) => { time: number; price: number } | null } = {
  toPx: (p) => ({ x: ((p.time - T0) / H) * 10, y: y(p.price) }),
  priceToY: y,
  fromPx: (p) => (p.y >= 2000 ? null : { time: T0 + (p.x / 10) * H, price: Number((2 - p.y / 1000).toFixed(5)) }),
};
const at = (hours: number, price: number) => ({ time: T0 + hours * H, price });

describe('shapes and hit testing', () => {
  it('places each kind in pixels', () => {
    expect(shapeOf({ kind: 'hline', points: [at(0, 1.9)] }, project, VIEW)).toEqual({ kind: 'hline', y: 100 });
    expect(shapeOf({ kind: 'trend', points: [at(1, 1.9), at(5, 1.8)] }, project, VIEW)).toEqual({
      kind: 'trend',
      a: { x: 10, y: 100 },
      b: { x: 50, y: 200 },
    });
    const ray = shapeOf({ kind: 'ray', points: [at(0, 1.9), at(10, 1.9)] }, project, VIEW);
    expect(ray).toEqual({ kind: 'ray', a: { x: 0, y: 100 }, b: { x: 100, y: 100 }, end: { x: 800, y: 100 } });
    const fib = shapeOf({ kind: 'fib', points: [at(0, 1.7), at(10, 1.9)] }, project, VIEW) as Extract<Shape, { kind: 'fib' }>;
    expect(fib.levels.map((l) => Math.round(l.y))).toEqual([100, 147, 176, 200, 224, 257, 300]);
    expect(shapeOf({ kind: 'text', points: [at(2, 1.5)], text: 'Support' }, project, VIEW)).toEqual({
      kind: 'text',
      a: { x: 20, y: 500 },
      text: 'Support',
    });
  });

  it('cannot place a two-point kind with one point', () => {
    expect(shapeOf({ kind: 'rect', points: [at(0, 1.9)] }, project, VIEW)).toBeNull();
  });

  it('finds the segment near the pointer, not past its ends', () => {
    expect(distanceToSegment({ x: 50, y: 4 }, { x: 0, y: 0 }, { x: 100, y: 0 })).toBe(4);
    expect(distanceToSegment({ x: 110, y: 0 }, { x: 0, y: 0 }, { x: 100, y: 0 })).toBe(10);
    const trend: Shape = { kind: 'trend', a: { x: 0, y: 0 }, b: { x: 100, y: 100 } };
    expect(hitShape(trend, { x: 52, y: 48 })).toBe('body');
    expect(hitShape(trend, { x: 80, y: 20 })).toBeNull();
    expect(hitShape(trend, { x: 130, y: 130 })).toBeNull();
  });

  it('picks up an anchor as a handle, a body as the whole', () => {
    const trend: Shape = { kind: 'trend', a: { x: 0, y: 0 }, b: { x: 100, y: 100 } };
    expect(hitShape(trend, { x: 2, y: 1 })).toBe(0);
    expect(hitShape(trend, { x: 99, y: 103 })).toBe(1);
  });

  it('hits a ray all the way to the edge, a horizontal line anywhere across', () => {
    const ray: Shape = { kind: 'ray', a: { x: 0, y: 100 }, b: { x: 100, y: 100 }, end: { x: 800, y: 100 } };
    expect(hitShape(ray, { x: 700, y: 104 })).toBe('body');
    expect(hitShape({ kind: 'hline', y: 100 }, { x: 790, y: 95 })).toBe('body');
    expect(hitShape({ kind: 'hline', y: 100 }, { x: 790, y: 90 })).toBeNull();
  });

  it('hits a rectangle inside, a fib only on its levels, a note in its box', () => {
    const rect: Shape = { kind: 'rect', a: { x: 100, y: 100 }, b: { x: 200, y: 200 } };
    expect(hitShape(rect, { x: 150, y: 150 })).toBe('body');
    expect(hitShape(rect, { x: 250, y: 150 })).toBeNull();
    const fib = shapeOf({ kind: 'fib', points: [at(0, 1.7), at(10, 1.9)] }, project, VIEW) as Shape;
    expect(hitShape(fib, { x: 50, y: 201 })).toBe('body');
    expect(hitShape(fib, { x: 50, y: 188 })).toBeNull();
    expect(hitShape(fib, { x: 150, y: 200 })).toBeNull();
    const note: Shape = { kind: 'text', a: { x: 100, y: 100 }, text: 'Hello' };
    expect(hitShape(note, { x: 120, y: 92 })).toBe('body');
    expect(hitShape(note, { x: 120, y: 130 })).toBeNull();
  });

  it('picks the topmost of two drawings under the pointer', () => {
    const shapes = [
      { id: 1, shape: { kind: 'hline', y: 100 } as Shape },
      { id: 2, shape: { kind: 'hline', y: 102 } as Shape },
    ];
    expect(hitTest(shapes, { x: 10, y: 101 })).toEqual({ id: 2, part: 'body' });
    expect(hitTest(shapes, { x: 10, y: 300 })).toBeNull();
  });
});

describe('moving', () => {
  const trend = [at(1, 1.9), at(5, 1.8)];

  it('drags the whole drawing by its body, one point by its handle', () => {
    expect(dragPoints('trend', trend, 'body', 20, 100, project.toPx, project.fromPx)).toEqual([at(3, 1.8), at(7, 1.7)]);
    expect(dragPoints('trend', trend, 1, 20, 100, project.toPx, project.fromPx)).toEqual([at(1, 1.9), at(7, 1.7)]);
  });

  it('moves a horizontal line in price only', () => {
    expect(dragPoints('hline', [at(1, 1.9)], 'body', 50, -100, project.toPx, project.fromPx)).toEqual([at(1, 2)]);
  });

  it('refuses a drag that leaves the chart', () => {
    expect(dragPoints('trend', trend, 'body', 0, 1900, project.toPx, project.fromPx)).toBeNull();
  });

  it('nudges by a pip up and down and a bar left and right, on the price grid', () => {
    const steps = { price: 0.0001, time: H, minMove: 0.00001 };
    expect(nudgePoints('trend', [at(1, 1.1)], 'up', steps)).toEqual([at(1, 1.1001)]);
    expect(nudgePoints('trend', [at(1, 1.1)], 'down', steps)).toEqual([at(1, 1.0999)]);
    expect(nudgePoints('rect', [at(1, 1.1), at(2, 1.2)], 'right', steps)).toEqual([at(2, 1.1), at(3, 1.2)]);
    expect(nudgePoints('hline', [at(1, 1.1)], 'left', steps)).toEqual([at(1, 1.1)]);
    expect(nudgePoints('hline', [at(1, 0.00005)], 'down', steps)).toEqual([at(1, 0.00001)]);
  });
});
