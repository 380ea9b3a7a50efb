// Draws the indicators on a lightweight-charts chart: overlays on the price pane, the others each in
// a pane of its own (DESIGN §18). The live candle moves each indicator by one step (IndicatorRun),
// never a pass over the history, and each line is a LiveSeries (../liveSeries.ts): the step redraws
// its newest point only.
import type { Candle, Indicator } from '@pipdesk/contract';
import {
  HistogramSeries,
  type IChartApi,
  LineSeries,
  type LineStyle,
  type PriceFormatBuiltIn,
  type UTCTimestamp,
} from 'lightweight-charts';
import { LiveSeries } from '../liveSeries';
import { createIndicatorRun, INDICATOR_OUTPUTS, type IndicatorRun } from './engine';
import { isOverlay } from './labels';

/** The colours an indicator's lines take, in order (readable on both themes). */
const LINE_COLORS = ['#f5a623', '#4c8dff', '#b36bff', '#21b8a6', '#ff6b9a', '#8bc34a', '#ffb300', '#29b6f6'];
const DOTTED = 1 as LineStyle;

/** The colours one indicator draws with: its own colour, and the rising/falling colours for MACD's histogram. */
export interface PlotColors {
  line: string;
  up: string;
  down: string;
}

export function plotColor(index: number): string {
  return LINE_COLORS[index % LINE_COLORS.length]!;
}

type PlotSeries = LiveSeries<'Line'> | LiveSeries<'Histogram'>;

const seconds = (candle: Candle) => Math.floor(candle.time / 1000) as UTCTimestamp;

/** One indicator on the chart: its series (one per output line), its run and its newest values. */
export class IndicatorPlot {
  readonly indicator: Indicator;
  readonly series: PlotSeries[];
  /** Its first line's colour (the legend's swatch). */
  readonly color: string;
  /** The newest values (the legend shows them when the crosshair is away). */
  latest: number[] | null = null;
  private run: IndicatorRun;
  private lastTime: number | null = null;
  private readonly colors: PlotColors;

  constructor(chart: IChartApi, indicator: Indicator, pane: number, colors: PlotColors, digits: number) {
    this.indicator = indicator;
    this.colors = colors;
    this.color = colors.line;
    this.run = createIndicatorRun(indicator);
    const percent = indicator.kind === 'rsi' || indicator.kind === 'stoch';
    const priceFormat: PriceFormatBuiltIn = percent
      ? { type: 'price', precision: 2, minMove: 0.01 }
      : { type: 'price', precision: digits, minMove: 1 / 10 ** digits };
    const common = { priceFormat, lastValueVisible: false, priceLineVisible: false };
    this.series = INDICATOR_OUTPUTS[indicator.kind].map((output, i) => {
      if (output === 'histogram') return new LiveSeries(chart, HistogramSeries, common, { pane });
      // A second line of the same indicator (signal, %D, the bands) is dotted beside the first.
      const lineStyle = i === 0 || indicator.kind === 'bb' ? undefined : DOTTED;
      return new LiveSeries(chart, LineSeries, { ...common, color: colors.line, lineWidth: 1, lineStyle }, { pane, join: true });
    });
    // The usual overbought and oversold levels, for reading RSI and Stochastic at a glance.
    const levels = indicator.kind === 'rsi' ? [70, 30] : indicator.kind === 'stoch' ? [80, 20] : [];
    for (const price of levels)
      this.series[0]?.tail.createPriceLine({
        price,
        color: colors.line,
        lineWidth: 1,
        lineStyle: DOTTED,
        axisLabelVisible: false,
      });
  }

  /** Computes the whole history again (new data, an older page, a gap filled). */
  setAll(candles: readonly Candle[]): void {
    this.run = createIndicatorRun(this.indicator);
    const columns: Array<Array<{ time: UTCTimestamp; value: number; color?: string }>> = this.series.map(() => []);
    let latest: number[] | null = null;
    for (const candle of candles) {
      const values = this.run.next(candle, false);
      if (!values) continue;
      latest = values;
      values.forEach((value, j) => {
        columns[j]?.push(this.point(candle, value, j));
      });
    }
    this.series.forEach((s, j) => {
      s.setData(columns[j] ?? []);
    });
    this.latest = latest;
    this.lastTime = candles.at(-1)?.time ?? null;
  }

  /** The live candle changed (same time as the last fed) or a new one opened: one step each. */
  push(tail: readonly Candle[]): void {
    for (const candle of tail) {
      const replace = candle.time === this.lastTime;
      const values = this.run.next(candle, replace);
      this.lastTime = candle.time;
      if (!values) continue;
      this.latest = values;
      values.forEach((value, j) => {
        this.series[j]?.update(this.point(candle, value, j));
      });
    }
  }

  remove(chart: IChartApi): void {
    for (const s of this.series) s.remove(chart);
  }

  private point(candle: Candle, value: number, output: number) {
    const histogram = INDICATOR_OUTPUTS[this.indicator.kind][output] === 'histogram';
    return histogram
      ? { time: seconds(candle), value, color: value >= 0 ? this.colors.up : this.colors.down }
      : { time: seconds(candle), value };
  }
}

/** The pane each indicator goes in: 0 (the price pane) for overlays, then one pane per oscillator in order. */
export function indicatorPanes(indicators: readonly Indicator[]): number[] {
  let next = 1;
  return indicators.map((indicator) => (isOverlay(indicator) ? 0 : next++));
}

/** How many panes the oscillators add under the price pane. */
export function oscillatorPanes(indicators: readonly Indicator[]): number {
  return indicators.filter((i) => !isOverlay(i)).length;
}

/**
 * Removes every plot and the panes they had, then draws `indicators` from scratch. The price pane
 * keeps most of the height: each oscillator pane gets a third of its share.
 */
export function replacePlots(
  chart: IChartApi,
  old: readonly IndicatorPlot[],
  indicators: readonly Indicator[],
  colors: { up: string; down: string },
  digits: number,
): IndicatorPlot[] {
  for (const plot of old) plot.remove(chart);
  // Empty panes are removed with their last series; any left over (the library's choice) go too.
  for (let i = chart.panes().length - 1; i > 0; i--) chart.removePane(i);
  const panes = indicatorPanes(indicators);
  const plots = indicators.map(
    (indicator, i) => new IndicatorPlot(chart, indicator, panes[i]!, { line: plotColor(i), ...colors }, digits),
  );
  chart.panes().forEach((pane, i) => {
    pane.setStretchFactor(i === 0 ? 3 : 1);
  });
  return plots;
}
