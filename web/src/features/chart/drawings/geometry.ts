// The pure part of the chart's drawings (docs/charting.md#on-the-chart): where a drawing lies in
// the chart's pixels, which one the pointer is near, the Fibonacci levels and how far a ray
// reaches. No chart and no canvas here, so the tests can hold every case.
import { type DrawingKind, type DrawingPoint, FIB_LEVELS } from '@pipdesk/contract';

/** A place in the price pane, in CSS pixels from its top left corner. */
export interface Px {
  x: number;
  y: number;
}

export interface Viewport {
  width: number;
  height: number;
}

/** What the trader calls each kind (toolbar, list, announcements). */
export const KIND_LABELS: Readonly<Record<DrawingKind, string>> = {
  hline: 'Horizontal line',
  trend: 'Trend line',
  ray: 'Ray',
  rect: 'Rectangle',
  fib: 'Fib retracement',
  text: 'Text note',
};

/** How near (CSS px) the pointer must come to a drawing to pick it up. */
export const HIT_TOLERANCE_PX = 6;

// ---------------------------------------------------------------------------------------------
// Time and the chart's bar index

/**
 * The chart's logical index (bar number, fractional between bars) of `time` (epoch ms), given the
 * open times of its bars (ascending). Between two bars it is interpolated, so a drawing made on
 * one timeframe lands where it belongs on another; before the first bar and after the last it is
 * extrapolated at the nearest bars' spacing (`interval` when there are fewer than two bars), so a
 * drawing may reach into the free space right of the last candle. Null with no bars.
 */
export function timeToLogical(barTimes: readonly number[], time: number, interval = 60_000): number | null {
  const n = barTimes.length;
  const first = barTimes[0];
  const last = barTimes[n - 1];
  if (first === undefined || last === undefined) return null;
  if (time <= first) return (time - first) / spacing(barTimes, 0, interval);
  if (time >= last) return n - 1 + (time - last) / spacing(barTimes, n - 2, interval);
  let lo = 0;
  let hi = n - 1;
  // Invariant: barTimes[lo] <= time < barTimes[hi].
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((barTimes[mid] as number) <= time) lo = mid;
    else hi = mid;
  }
  const from = barTimes[lo] as number;
  const to = barTimes[hi] as number;
  return lo + (time - from) / (to - from);
}

/** The time (epoch ms, whole seconds) at a logical index: the inverse of `timeToLogical`. */
export function logicalToTime(barTimes: readonly number[], logical: number, interval = 60_000): number | null {
  const n = barTimes.length;
  const first = barTimes[0];
  const last = barTimes[n - 1];
  if (first === undefined || last === undefined || !Number.isFinite(logical)) return null;
  let time: number;
  if (logical <= 0) time = first + logical * spacing(barTimes, 0, interval);
  else if (logical >= n - 1) time = last + (logical - (n - 1)) * spacing(barTimes, n - 2, interval);
  else {
    const lo = Math.floor(logical);
    const from = barTimes[lo] as number;
    const to = barTimes[lo + 1] as number;
    time = from + (logical - lo) * (to - from);
  }
  // The contract keeps whole milliseconds; a second is as fine as the pointer can place a time.
  return Math.max(0, Math.round(time / 1000) * 1000);
}

/** The spacing of bars `i` and `i + 1`, else `interval`. */
function spacing(barTimes: readonly number[], i: number, interval: number): number {
  const a = barTimes[i];
  const b = barTimes[i + 1];
  return a !== undefined && b !== undefined && b > a ? b - a : interval;
}

/** A price on the series' grid (its `minMove`), without binary-fraction tails. */
export function snapPrice(price: number, minMove: number): number {
  const decimals = Math.max(0, Math.min(10, Math.round(-Math.log10(minMove))));
  return Number((Math.round(price / minMove) * minMove).toFixed(decimals));
}

// ---------------------------------------------------------------------------------------------
// Levels and extents

export interface FibLevel {
  /** In per cent (FIB_LEVELS). */
  level: number;
  price: number;
}

/**
 * The retracement levels between the two anchors, as MetaTrader and TradingView draw them: 0 % at
 * the second point (where the move ended) and 100 % at the first (where it started), so 61.8 %
 * is how far the price would have given back of the move.
 */
export function fibLevels(first: number, second: number): FibLevel[] {
  return FIB_LEVELS.map((level) => ({ level, price: second + ((first - second) * level) / 100 }));
}

/**
 * Where a ray from `a` through `b` leaves the pane: the farthest point of the half-line that is
 * still inside it (never short of `b`). A ray whose two points coincide ends at them.
 */
export function rayEnd(a: Px, b: Px, view: Viewport): Px {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  if (dx === 0 && dy === 0) return b;
  const exit = (from: number, d: number, size: number) =>
    d > 0 ? (size - from) / d : d < 0 ? (0 - from) / d : Number.POSITIVE_INFINITY;
  const t = Math.max(1, Math.min(exit(a.x, dx, view.width), exit(a.y, dy, view.height)));
  return { x: a.x + dx * t, y: a.y + dy * t };
}

// ---------------------------------------------------------------------------------------------
// Shapes in pixels

/** A drawing as the pane shows it, in pixels: what the renderer draws and the hit test reads. */
export type Shape =
  | { kind: 'hline'; y: number }
  | { kind: 'trend' | 'rect'; a: Px; b: Px }
  | { kind: 'ray'; a: Px; b: Px; end: Px }
  | { kind: 'fib'; a: Px; b: Px; levels: Array<FibLevel & { y: number }> }
  | { kind: 'text'; a: Px; text: string };

/** What a shape needs of the chart: a point's place and a price's height (null when off the scale). */
export interface Projector {
  toPx(point: DrawingPoint): Px | null;
  priceToY(price: number): number | null;
}

/** The pixels of a drawing (or a draft while it is placed), or null when it cannot be placed on this chart. */
export function shapeOf(
  drawing: { kind: DrawingKind; points: readonly DrawingPoint[]; text?: string | null },
  project: Projector,
  view: Viewport,
): Shape | null {
  const [p0, p1] = drawing.points;
  if (!p0) return null;
  if (drawing.kind === 'hline') {
    const y = project.priceToY(p0.price);
    return y === null ? null : { kind: 'hline', y };
  }
  const a = project.toPx(p0);
  if (!a) return null;
  if (drawing.kind === 'text') return { kind: 'text', a, text: drawing.text ?? '' };
  const b = p1 ? project.toPx(p1) : null;
  if (!p1 || !b) return null;
  switch (drawing.kind) {
    case 'ray':
      return { kind: 'ray', a, b, end: rayEnd(a, b, view) };
    case 'fib': {
      const levels: Array<FibLevel & { y: number }> = [];
      for (const l of fibLevels(p0.price, p1.price)) {
        const y = project.priceToY(l.price);
        if (y !== null) levels.push({ ...l, y });
      }
      return { kind: 'fib', a, b, levels };
    }
    default:
      return { kind: drawing.kind, a, b };
  }
}

/** The box a text note takes: its text is written right of its point, above it (a fair estimate of the canvas font). */
export function textBox(a: Px, text: string): { left: number; top: number; width: number; height: number } {
  const width = Math.max(12, text.length * 7) + 8;
  const height = 18;
  return { left: a.x, top: a.y - height, width, height };
}

/** The distance from `p` to the segment `a`–`b`. */
export function distanceToSegment(p: Px, a: Px, b: Px): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** Which part of a drawing the pointer is on: a handle moves that point alone, the body moves all. */
export type Part = 'body' | 0 | 1;

/** How near `p` is to a shape's body (0 inside a rectangle or a note's box), and which anchor it is on. */
export function hitShape(shape: Shape, p: Px, tolerance = HIT_TOLERANCE_PX): Part | null {
  const near = (q: Px) => Math.hypot(p.x - q.x, p.y - q.y) <= tolerance;
  switch (shape.kind) {
    case 'hline':
      return Math.abs(p.y - shape.y) <= tolerance ? 'body' : null;
    case 'text': {
      const box = textBox(shape.a, shape.text);
      const inside =
        p.x >= box.left - tolerance &&
        p.x <= box.left + box.width + tolerance &&
        p.y >= box.top - tolerance &&
        p.y <= box.top + box.height + tolerance;
      return inside ? 'body' : null;
    }
    default:
      break;
  }
  if (near(shape.a)) return 0;
  if (near(shape.b)) return 1;
  switch (shape.kind) {
    case 'trend':
      return distanceToSegment(p, shape.a, shape.b) <= tolerance ? 'body' : null;
    case 'ray':
      return distanceToSegment(p, shape.a, shape.end) <= tolerance ? 'body' : null;
    case 'rect': {
      const left = Math.min(shape.a.x, shape.b.x) - tolerance;
      const right = Math.max(shape.a.x, shape.b.x) + tolerance;
      const top = Math.min(shape.a.y, shape.b.y) - tolerance;
      const bottom = Math.max(shape.a.y, shape.b.y) + tolerance;
      return p.x >= left && p.x <= right && p.y >= top && p.y <= bottom ? 'body' : null;
    }
    case 'fib': {
      const left = Math.min(shape.a.x, shape.b.x) - tolerance;
      const right = Math.max(shape.a.x, shape.b.x) + tolerance;
      if (p.x < left || p.x > right) return null;
      return shape.levels.some((l) => Math.abs(p.y - l.y) <= tolerance) ? 'body' : null;
    }
  }
}

/** The drawing under the pointer: the last drawn (topmost) first, so what is seen on top is what is picked. */
export function hitTest(shapes: ReadonlyArray<{ id: number; shape: Shape }>, p: Px, tolerance = HIT_TOLERANCE_PX) {
  for (let i = shapes.length - 1; i >= 0; i--) {
    const item = shapes[i] as { id: number; shape: Shape };
    const part = hitShape(item.shape, p, tolerance);
    if (part !== null) return { id: item.id, part };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Moving

/**
 * The points after a drag by (`dx`, `dy`) pixels: a handle moves its own point, the body all of
 * them. A horizontal line moves only in price (its time means nothing on the chart). Null when a
 * point would leave the chart (no time or no positive price there).
 */
export function dragPoints(
  kind: DrawingKind,
  points: readonly DrawingPoint[],
  part: Part,
  dx: number,
  dy: number,
  toPx: (p: DrawingPoint) => Px | null,
  fromPx: (p: Px) => DrawingPoint | null,
): DrawingPoint[] | null {
  const moved: DrawingPoint[] = [];
  for (const [i, point] of points.entries()) {
    if (part !== 'body' && part !== i) {
      moved.push(point);
      continue;
    }
    const at = toPx(point);
    const to = at && fromPx({ x: at.x + (kind === 'hline' ? 0 : dx), y: at.y + dy });
    if (!to) return null;
    moved.push(kind === 'hline' ? { time: point.time, price: to.price } : to);
  }
  return moved;
}

/** Arrow keys move a drawing by a step: up and down by `steps.price`, left and right by `steps.time` (ms). */
export type Nudge = 'up' | 'down' | 'left' | 'right';

export interface NudgeSteps {
  /** A pip: ten of the series' `minMove`. */
  price: number;
  /** One bar of the chart's timeframe, in ms. */
  time: number;
  /** The price grid (the series' `minMove`). */
  minMove: number;
}

/** The points of a drawing nudged one step (prices kept on the grid and above zero). */
export function nudgePoints(kind: DrawingKind, points: readonly DrawingPoint[], nudge: Nudge, steps: NudgeSteps): DrawingPoint[] {
  const dPrice = nudge === 'up' ? steps.price : nudge === 'down' ? -steps.price : 0;
  // A horizontal line has no place in time to move to.
  const dTime = kind === 'hline' ? 0 : nudge === 'right' ? steps.time : nudge === 'left' ? -steps.time : 0;
  return points.map((p) => ({
    time: Math.max(0, p.time + dTime),
    price: Math.max(steps.minMove, snapPrice(p.price + dPrice, steps.minMove)),
  }));
}
