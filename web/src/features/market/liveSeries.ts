// A series drawn as two so that a live tick stays cheap (issue 34). lightweight-charts 5 rebuilds a
// series' whole list of drawn points (a style lookup per point) after any change to its data,
// `update` of the newest point included: with 5,000 candles and about ten series (candles, volume,
// the indicators' lines) that was nearly all of a tick's 15-20 ms. So the history (every point but
// the newest) sits in one series a tick never touches, and the newest point in a small "tail"
// series of its own: a tick rebuilds one or two points. A new candle moves the old newest point
// into the history (a rebuild of it; lightweight-charts rebuilds every series anyway when a time
// is added to the time scale).
import type {
  IChartApi,
  ISeriesApi,
  SeriesDataItemTypeMap,
  SeriesDefinition,
  SeriesPartialOptionsMap,
  SeriesType,
} from 'lightweight-charts';

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
  /** Every point but the newest: what the crosshair, primitives and price lines work with. */
  readonly history: ISeriesApi<T>;
  /** The newest point (and, joined, the one before): the only series a live tick changes. */
  readonly tail: ISeriesApi<T>;
  private readonly join: boolean;
  private points: Array<SeriesDataItemTypeMap[T]> = [];

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
    this.points = points.slice(this.join ? -2 : -1);
    this.history.setData(points.slice(0, -1));
    this.tail.setData(this.points);
  }

  /** The newest point changed (same time) or a newer one came: only the tail is redrawn for the former. */
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
    this.history.update(newest);
    this.points = this.join ? [newest, point] : [point];
    this.tail.setData(this.points);
  }

  /** The newest point handed over, if any. */
  newest(): SeriesDataItemTypeMap[T] | undefined {
    return this.points.at(-1);
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
