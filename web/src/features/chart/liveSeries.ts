// A series drawn as two, and the bar times kept ahead of the newest candle, so that a live tick
// stays cheap (issue 34, bench/README.md#the-chart-in-chromium-chart-rendermjs).
//
// lightweight-charts 5 rebuilds a series' whole list of drawn points (a style lookup per point) at
// the next paint after any change to its data, an `update` of the newest point included; with
// 5,000 candles and about ten series (candles, volume, the indicators' lines) that was nearly all of
// a tick's 15-20 ms. And an `update` whose time is not in the time scale yet hands *every* series
// its data again (DataLayer.updateSeriesData answers with all series when a time point is
// inserted), so each new candle cost that too. Hence:
// - LiveSeries: the older points sit in a `history` series a tick never touches, the newest in a
//   small `tail` series of its own; a tick rebuilds the tail's few points. A new candle is appended
//   to the tail; past MAX_TAIL new candles the tail is folded into the history in one `setData`, in
//   the browser's idle time, one series a callback (a fold is a redraw of that series, as every
//   new candle was before).
// - FutureBars: a hidden series of whitespace holds the next bar times after the newest candle, so
//   a new candle finds its time in the scale. It is extended in idle time when it runs low (adding
//   times hands every series its data again: off the tick), and laid at once when a candle skips
//   its grid (a weekend, a gap) or none is left, before that candle is drawn.
//
// - Each series' price formatter answers from a cache (cachedPriceFormat): the chart formats every
//   visible series' last value (three strings) and the axis's labels at every paint, the same
//   prices frame after frame; that was a sixth of a tick's repaint and most of its garbage, whose
//   collection made the slowest ticks.
//
// What readers see is the one series it stood for: the tail answers `data()` with every point, and
// it is the series price lines, primitives and price/pixel conversions go through (it holds the
// newest point, so it has a value in view whenever the whole list would).
import {
  type IChartApi,
  type ISeriesApi,
  LineSeries,
  type SeriesDataItemTypeMap,
  type SeriesDefinition,
  type SeriesPartialOptionsMap,
  type SeriesType,
  type Time,
  type UTCTimestamp,
  type WhitespaceData,
} from 'lightweight-charts';

/** New candles the tail takes before it is folded into the history (each one adds a point to redraw per tick). */
export const MAX_TAIL = 120;
/** Bar times kept ahead of the newest candle. */
export const FUTURE_BARS = 120;
/** With this few bar times left ahead, more are laid in idle time. */
const FUTURE_LOW = 30;

/** Formatted prices a series keeps; past this many (a long session's moves) the cache starts again. */
const FORMAT_CACHE_SIZE = 2_000;

/** `format` answering from a cache by price: the same strings, formatted once. */
export function cachedFormat(format: (price: number) => string): (price: number) => string {
  const cache = new Map<number, string>();
  return (price) => {
    let text = cache.get(price);
    if (text === undefined) {
      text = format(price);
      if (cache.size >= FORMAT_CACHE_SIZE) cache.clear();
      cache.set(price, text);
    }
    return text;
  };
}

/**
 * Puts a series' own price formatter (the built-in one its `priceFormat` made) behind a cache, as
 * a custom format with the same `minMove`, so its labels, tick marks and crosshair read the same.
 * Called again after any change of `priceFormat`. (Tests' stand-ins for the library may have none.)
 */
function cachePriceFormat(series: ISeriesApi<SeriesType>): void {
  if (typeof series.priceFormatter !== 'function' || typeof series.options !== 'function') return;
  const { priceFormat } = series.options();
  if (priceFormat.type === 'custom') return;
  const own = series.priceFormatter();
  series.applyOptions({
    priceFormat: { type: 'custom', minMove: priceFormat.minMove, formatter: cachedFormat((price) => own.format(price)) },
  });
}

type IdleHandle = { idle: number } | { timer: ReturnType<typeof setTimeout> };

/** Work a chart puts off to the browser's idle time: one job a callback, in order, each once. */
class IdleWork {
  private readonly jobs = new Set<() => void>();
  private handle: IdleHandle | null = null;

  add(job: () => void): void {
    this.jobs.add(job);
    this.schedule();
  }

  delete(job: () => void): void {
    this.jobs.delete(job);
  }

  clear(): void {
    this.jobs.clear();
    if (this.handle && 'idle' in this.handle) cancelIdleCallback(this.handle.idle);
    else if (this.handle) clearTimeout(this.handle.timer);
    this.handle = null;
  }

  private schedule(): void {
    if (this.handle || this.jobs.size === 0) return;
    const run = () => {
      this.handle = null;
      const [job] = this.jobs;
      if (job) {
        this.jobs.delete(job);
        job();
      }
      this.schedule();
    };
    // Within a second even on a busy page. (Safari and jsdom have no requestIdleCallback.)
    this.handle =
      typeof requestIdleCallback === 'function'
        ? { idle: requestIdleCallback(run, { timeout: 1_000 }) }
        : { timer: setTimeout(run, 50) };
  }
}

const idleWork = new WeakMap<IChartApi, IdleWork>();

function idleWorkOf(chart: IChartApi): IdleWork {
  let work = idleWork.get(chart);
  if (!work) {
    work = new IdleWork();
    idleWork.set(chart, work);
  }
  return work;
}

/** The chart is going: the work it put off (folds, bars ahead) is dropped, before the chart is removed. */
export function dropIdleWork(chart: IChartApi): void {
  idleWork.get(chart)?.clear();
  idleWork.delete(chart);
}

export interface LiveSeriesOptions<T extends SeriesType> {
  /** The pane both go in (0, the price pane, when absent). */
  pane?: number;
  /**
   * A line: the tail also keeps the point before its first, so the line runs on unbroken from the
   * history into the tail. Candles and columns stand alone and need no such overlap.
   */
  join?: boolean;
  /** Options for the tail only (the last price's line, which belongs to the newest point). */
  tail?: SeriesPartialOptionsMap[T];
}

type Point<T extends SeriesType> = SeriesDataItemTypeMap[T];

export class LiveSeries<T extends SeriesType> {
  /** The older points: a live tick leaves this series alone. */
  readonly history: ISeriesApi<T>;
  /**
   * The newest point and the new ones since the last fold: the series a tick changes, and the one
   * that stands for the whole (its `data()` is every point; price lines and primitives go on it).
   */
  readonly tail: ISeriesApi<T>;
  private readonly join: boolean;
  private readonly idle: IdleWork;
  /** Moves the tail's points into the history (in idle time). */
  private readonly fold = () => this.setData(this.points);
  /** Every point handed over, oldest first. */
  private points: Array<Point<T>> = [];
  /** `points[0, split)` are in the history, the rest in the tail. */
  private split = 0;

  constructor(
    chart: IChartApi,
    definition: SeriesDefinition<T>,
    options: SeriesPartialOptionsMap[T],
    live: LiveSeriesOptions<T> = {},
  ) {
    this.join = live.join ?? false;
    this.idle = idleWorkOf(chart);
    const tailOptions = { ...options, ...live.tail };
    this.history =
      live.pane === undefined ? chart.addSeries(definition, options) : chart.addSeries(definition, options, live.pane);
    this.tail =
      live.pane === undefined ? chart.addSeries(definition, tailOptions) : chart.addSeries(definition, tailOptions, live.pane);
    cachePriceFormat(this.history);
    cachePriceFormat(this.tail);
    // Readers of the series' data (the drawings' bar times, the trade tools' last close) get every
    // point as drawn, not the tail's few. (Tests' stand-ins for the library may have no data().)
    if (typeof this.tail.data === 'function') this.tail.data = () => this.points.slice();
  }

  /** Hands the whole list over again (oldest first): all but the newest go to the history. */
  setData(points: ReadonlyArray<Point<T>>): void {
    this.idle.delete(this.fold);
    this.points = points.slice();
    this.split = Math.max(0, points.length - 1);
    // The history first: its points' times stay in the scale while the tail gives them up.
    this.history.setData(points.slice(0, this.split));
    this.tail.setData(this.tailPoints());
  }

  /** The newest point changed (same time) or a newer one came; older times are the caller's error, as in the library. */
  update(point: Point<T>): void {
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
    this.points.push(point);
    this.tail.update(point);
    if (this.points.length - this.split > MAX_TAIL) this.idle.add(this.fold);
  }

  /** How many points are drawn (the history's and the tail's, each once). */
  get length(): number {
    return this.points.length;
  }

  applyOptions(options: SeriesPartialOptionsMap[T]): void {
    this.history.applyOptions(options);
    this.tail.applyOptions(options);
    if (options.priceFormat) {
      cachePriceFormat(this.history);
      cachePriceFormat(this.tail);
    }
  }

  remove(chart: IChartApi): void {
    this.idle.delete(this.fold);
    chart.removeSeries(this.history);
    chart.removeSeries(this.tail);
  }

  private tailPoints(): Array<Point<T>> {
    return this.points.slice(this.join && this.split > 0 ? this.split - 1 : this.split);
  }
}

/**
 * The next bar times after the newest candle, as whitespace of a hidden series: no value, so no
 * drawing, no price range, no last price, and not in any series' `data()` or the crosshair's
 * values. Only the time scale holds them (labels under the empty bars right of the newest candle).
 */
export class FutureBars {
  private readonly series: ISeriesApi<'Line'>;
  /** The bar times still ahead, in seconds, ascending. */
  private ahead: number[] = [];
  /** One bar in seconds (the smallest step between the newest candles), 0 when unknown. */
  private step = 0;
  private readonly idle: IdleWork;
  /** Lays the bars again from the next one (in idle time, before they run out). */
  private readonly extend = () => {
    const next = this.ahead[0];
    if (next !== undefined) this.lay(next);
  };

  constructor(chart: IChartApi) {
    this.idle = idleWorkOf(chart);
    this.series = chart.addSeries(LineSeries, {
      visible: false,
      lastValueVisible: false,
      priceLineVisible: false,
      crosshairMarkerVisible: false,
    });
  }

  /** The candles were handed over whole (times in seconds, oldest first): lay the bars after the newest. */
  reset(times: readonly number[]): void {
    let step = 0;
    for (let i = Math.max(1, times.length - 20); i < times.length; i++) {
      const d = (times[i] as number) - (times[i - 1] as number);
      if (d > 0 && (step === 0 || d < step)) step = d;
    }
    const newest = times.at(-1);
    // The same newest candle and step (older history paged in, a recolour): the bars laid still hold.
    if (newest !== undefined && step === this.step && this.ahead.length > 0 && this.ahead[0] === newest + step) return;
    this.step = step;
    this.lay(newest === undefined || step === 0 ? null : newest + step);
  }

  /**
   * A candle at `time` (seconds) is about to be drawn after the newest. Its time should be the next
   * bar's; if it is not (a gap) or none is left, the bars are laid again from it first, so the
   * candle's own update finds its time in the scale and no empty bar is left behind it.
   */
  advance(time: number): void {
    if (this.ahead[0] === time) {
      this.ahead.shift();
      if (this.ahead.length <= FUTURE_LOW) this.idle.add(this.extend);
      if (this.ahead.length > 0) return;
    }
    if (this.step === 0) return;
    this.lay(time);
    this.ahead.shift();
  }

  private lay(from: number | null): void {
    this.idle.delete(this.extend);
    this.ahead = from === null ? [] : Array.from({ length: FUTURE_BARS }, (_, i) => from + i * this.step);
    const bars: WhitespaceData<Time>[] = this.ahead.map((time) => ({ time: time as UTCTimestamp }));
    this.series.setData(bars);
  }
}
