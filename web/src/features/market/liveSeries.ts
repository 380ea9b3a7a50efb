// A series drawn as two so that a live tick stays cheap (issue 34). lightweight-charts 5 rebuilds a
// series' whole list of drawn points (a style lookup per point) after any change to its data,
// `update` of the newest point included: with 5,000 candles and about ten series (candles, volume,
// the indicators' lines) that was nearly all of a tick's 15-20 ms. So the history (every point but
// the newest) sits in one series a tick never touches, and the newest point in a small "tail"
// series of its own: a tick rebuilds one or two points.
//
// A new candle (a new time) appends to the tail too, and the history is left alone until the tail
// holds MAX_PENDING points (moving a point into the history rebuilds all of it). That alone would
// not help: lightweight-charts hands every series its whole data again when a time is added to the
// time scale (DataLayer.updateSeriesData: only an `update` at a time already in the scale is
// incremental). So a hidden series of whitespace (`{ time }` only) keeps the next bar times in the
// scale before their candles come (FutureBars, below): the new candle's `update` finds its time
// there. The whitespace is seeded again, in one setData, only when it runs out (every FUTURE_BARS
// candles) or the candles leave its grid (a weekend, a gap).
import {
  type IChartApi,
  type ISeriesApi,
  LineSeries,
  type SeriesDataItemTypeMap,
  type SeriesDefinition,
  type SeriesPartialOptionsMap,
  type SeriesType,
  type UTCTimestamp,
} from 'lightweight-charts';

/** New candles the tail takes before they go into the history (a rebuild of it): the tail's own rebuild is per point, so cheap at this size. */
export const MAX_PENDING = 240;
/** Empty bar times kept in the time scale after the newest candle. */
export const FUTURE_BARS = 120;

export interface LiveSeriesOptions<T extends SeriesType> {
  /** The pane both go in (0, the price pane, when absent). */
  pane?: number;
  /**
   * A line: the tail also keeps the point before the newest, so the line runs on unbroken from the
   * history into the tail. Candles and columns stand alone and need no such overlap.
   */
  join?: boolean;
  /** Options for the tail only (e.g. the last price's line, which belongs to the newest point). */
  tail?: SeriesPartialOptionsMap[T];
}

export class LiveSeries<T extends SeriesType> {
  /** Every point but the newest few: what the crosshair, primitives and price lines work with. */
  readonly history: ISeriesApi<T>;
  /** The newest points (and, joined, the history's last): the only series a live tick changes. */
  readonly tail: ISeriesApi<T>;
  private readonly join: boolean;
  /** What the tail holds: `shared` points that are the history's last too, then the ones not in it. */
  private points: Array<SeriesDataItemTypeMap[T]> = [];
  private shared = 0;
  /** What the history holds (handed over again in one setData when the tail's points go into it). */
  private past: Array<SeriesDataItemTypeMap[T]> = [];

  constructor(
    chart: IChartApi,
    definition: SeriesDefinition<T>,
    options: SeriesPartialOptionsMap[T],
    live: LiveSeriesOptions<T> = {},
  ) {
    this.join = live.join ?? false;
    this.history = chart.addSeries(definition, options, live.pane ?? 0);
    this.tail = chart.addSeries(definition, { ...options, ...live.tail }, live.pane ?? 0);
  }

  /** Hands the whole list over again (oldest first). */
  setData(points: ReadonlyArray<SeriesDataItemTypeMap[T]>): void {
    this.shared = this.join && points.length >= 2 ? 1 : 0;
    this.points = points.slice(-1 - this.shared);
    this.past = points.slice(0, -1);
    this.history.setData(this.past);
    this.tail.setData(this.points);
  }

  /**
   * The newest point changed (same time) or a newer one came. Either way only the tail changes,
   * until it holds MAX_PENDING new points: then they go into the history (one setData and rebuild of it).
   */
  update(point: SeriesDataItemTypeMap[T]): void {
    const newest = this.points.at(-1);
    if (newest === undefined) {
      this.setData([point]);
      return;
    }
    if (newest.time === point.time) {
      this.points[this.points.length - 1] = point;
      this.tail.update(point);
      return;
    }
    if (this.points.length - this.shared < MAX_PENDING) {
      this.points.push(point);
      this.tail.update(point);
      return;
    }
    // One setData, not an update a point: each update has the chart recalculate all its panes.
    this.past.push(...this.points.slice(this.shared));
    this.history.setData(this.past);
    this.shared = this.join ? 1 : 0;
    this.points = this.join ? [newest, point] : [point];
    this.tail.setData(this.points);
  }

  /** The newest point handed over, if any. */
  newest(): SeriesDataItemTypeMap[T] | undefined {
    return this.points.at(-1);
  }

  /** The points the tail holds and the history does not (the newest last). */
  recent(): Array<SeriesDataItemTypeMap[T]> {
    return this.points.slice(this.shared);
  }

  applyOptions(options: SeriesPartialOptionsMap[T]): void {
    this.history.applyOptions(options);
    this.tail.applyOptions(options);
  }

  remove(chart: IChartApi): void {
    chart.removeSeries(this.history);
    chart.removeSeries(this.tail);
  }
}

/**
 * The next FUTURE_BARS bar times after the newest candle, kept in the time scale as the whitespace
 * of a hidden series (no values: nothing drawn, no price scale range, no last price, no data() for
 * the chart tools), so that a new candle's time is already there. The bar size is the smallest
 * step between the last candles. Times in UTC seconds, as the chart's.
 */
export class FutureBars {
  private readonly series: ISeriesApi<'Line'>;
  private times: number[] = [];
  /** Index in `times` of the next bar time to come. */
  private next = 0;
  private step = 0;

  constructor(chart: IChartApi) {
    this.series = chart.addSeries(LineSeries, {
      visible: false,
      lastValueVisible: false,
      priceLineVisible: false,
      crosshairMarkerVisible: false,
    });
  }

  /** The candles' times (oldest first) were handed over whole. */
  reset(times: readonly number[]): void {
    let step = 0;
    for (let i = Math.max(1, times.length - 20); i < times.length; i++) {
      const d = (times[i] as number) - (times[i - 1] as number);
      if (d > 0 && (step === 0 || d < step)) step = d;
    }
    this.step = step;
    this.seed(times.at(-1));
  }

  /**
   * A candle at a new time `time` is about to be handed over (before its update, so that a seeding
   * is the only change to the time scale). Nothing to do when it is the next bar time kept; else
   * (the last one kept used up, a bar time skipped) the times from it on are seeded again.
   */
  advance(time: number): void {
    if (this.times[this.next] === time) {
      this.next++;
      if (this.next < this.times.length) return;
    } else if (this.next > 0 && this.times[this.next - 1] === time) return;
    this.seed(time);
  }

  /** The newest time itself is kept too: seeded before its candle comes, it is in the scale for the candle's update. */
  private seed(newest: number | undefined): void {
    this.next = 1;
    this.times = [];
    if (newest !== undefined && this.step > 0) for (let i = 0; i <= FUTURE_BARS; i++) this.times.push(newest + i * this.step);
    this.series.setData(this.times.map((time) => ({ time: time as UTCTimestamp })));
  }
}
