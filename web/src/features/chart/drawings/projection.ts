// The chart's side of the drawings' geometry: a drawing's point (epoch ms, price) to the price
// pane's pixels and back, read from the chart as it is scrolled and scaled right now.
import { type DrawingPoint, TIMEFRAME_MINUTES, type Timeframe } from '@pipdesk/contract';
import type { IChartApi, ISeriesApi, Logical } from 'lightweight-charts';
import { logicalToTime, type Projector, type Px, snapPrice, timeToLogical, type Viewport } from './geometry';

/** The chart's grid when the series says none: the five decimals of most pairs. */
const DEFAULT_MIN_MOVE = 0.00001;

export interface ChartProjection extends Projector {
  /** The point under a place in the pane: its time on the time scale, its price on the series' grid. */
  fromPx(p: Px): DrawingPoint | null;
  view: Viewport;
  /** The series' price grid. */
  minMove: number;
  /** One bar of the chart, in ms (for the keyboard's nudge). */
  barMs: number;
}

/** The bars' open times in ms: the candle series keeps UTC seconds. */
function barTimes(series: ISeriesApi<'Candlestick'>): number[] {
  const times: number[] = [];
  for (const bar of series.data()) if (typeof bar.time === 'number') times.push(bar.time * 1000);
  return times;
}

/** How the chart places a drawing now; build it again after the chart scrolls, scales or gets data. */
export function projectChart(chart: IChartApi, series: ISeriesApi<'Candlestick'>, timeframe: Timeframe | null): ChartProjection {
  const times = barTimes(series);
  const last = times.length;
  const barMs =
    last >= 2 ? (times[last - 1] as number) - (times[last - 2] as number) : (TIMEFRAME_MINUTES[timeframe ?? 'm1'] ?? 1) * 60_000;
  const scale = chart.timeScale();
  const format = series.options().priceFormat as { minMove?: number };
  const minMove = format.minMove && format.minMove > 0 ? format.minMove : DEFAULT_MIN_MOVE;
  const size = chart.paneSize(0);
  const priceToY = (price: number) => series.priceToCoordinate(price);
  return {
    view: { width: size.width, height: size.height },
    minMove,
    barMs,
    priceToY,
    toPx(point) {
      const logical = timeToLogical(times, point.time, barMs);
      if (logical === null) return null;
      const x = scale.logicalToCoordinate(logical as Logical);
      const y = priceToY(point.price);
      return x === null || y === null ? null : { x, y };
    },
    fromPx(p) {
      const logical = scale.coordinateToLogical(p.x);
      const time = logical === null ? null : logicalToTime(times, logical, barMs);
      const raw = series.coordinateToPrice(p.y);
      if (time === null || raw === null) return null;
      const price = snapPrice(raw, minMove);
      return price > 0 ? { time, price } : null;
    },
  };
}

/** A pointer event's place in the price pane: the chart element's corner, past a left price axis if shown. */
export function pointerInPane(event: { clientX: number; clientY: number }, container: HTMLElement, chart: IChartApi): Px {
  const box = container.getBoundingClientRect();
  const leftAxis = chart.priceScale('left').width();
  return { x: event.clientX - box.left - leftAxis, y: event.clientY - box.top };
}
