// The chart of the pair page and of each Charts page panel: candles (CandlestickChart), the
// trader's indicators with their legend, older history on scrolling back, and the layers other
// tools draw over it (ChartApiContext). Loaded lazily: it brings lightweight-charts and trading-signals.
import type { Candle, Indicator, Timeframe } from '@pipdesk/contract';
import type { LogicalRange, MouseEventParams } from 'lightweight-charts';
import { type ReactNode, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { themeChartColors } from '../../components/chart';
import { CandlestickChart, type DrawnChart } from '../market/CandlestickChart';
import { liveTail } from '../market/candles';
import type { ChartLine } from '../market/chart-lines/lines';
import { ChartApiContext } from './ChartContext';
import { ChartLayers } from './ChartLayers';
import { legendText } from './indicators/labels';
import { type IndicatorPlot, replacePlots } from './indicators/plots';
import './chart.css';

/** Scrolled to within this many candles of the oldest one, the owner is asked for older ones. */
const NEAR_START_CANDLES = 10;

export interface ChartViewProps {
  /** Oldest first; times in epoch ms. */
  candles: readonly Candle[];
  digits: number;
  /** What the candles show: a new view is fitted to the width (or to `initialCandles`). */
  view: string;
  symbol: string;
  /** The timeframe shown, or null for the spec's ranges. */
  timeframe: Timeframe | null;
  indicators: readonly Indicator[];
  /** A new view shows this many of the newest candles (the rest is scrolled back to); all when absent. */
  initialCandles?: number;
  /** The trader scrolled back near the oldest candle: load older ones (the owner ignores repeats). */
  onNearStart?: () => void;
  lines?: readonly ChartLine[];
  onLineDrop?: (line: ChartLine, price: number) => void;
  onLineOpen?: (line: ChartLine) => void;
  /** More layers over the chart, beside ChartLayers' (drawings, trade tools): they read it with useChartApi(). */
  children?: ReactNode;
}

/**
 * The legend's figures: the values under the crosshair, else the newest. The list itself (one item
 * per plot) is React's and is drawn again when the plots change (`plotsChanged`); the figures are
 * written into its items' text directly (`write`), since they change on every live tick and at
 * every crosshair move: a React render of the legend per tick was a second render and commit of the
 * chart's tree, with its garbage, for a few characters of text (issue 34).
 */
class LegendStore {
  version = 0;
  hovered: Map<IndicatorPlot, number[] | null> | null = null;
  /** The text node of each shown item's figures, by position (set by the items' refs). */
  readonly texts: Array<Text | null> = [];
  private readonly listeners = new Set<() => void>();
  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getVersion = () => this.version;
  /** Other plots are drawn: the list is rendered again (its figures with it). */
  plotsChanged() {
    this.version++;
    for (const l of this.listeners) l();
  }
  /** The figures of `plots` (the crosshair's when it is over a candle, else the newest) into the list shown. */
  write(plots: readonly IndicatorPlot[], digits: number) {
    plots.forEach((plot, i) => {
      const node = this.texts[i];
      if (!node) return;
      const text = legendText(plot.indicator, this.valuesOf(plot), digits);
      // Unchanged text is not written: a write is a style and layout pass for the browser.
      if (node.data !== text) node.data = text;
    });
  }
  valuesOf(plot: IndicatorPlot): number[] | null {
    return this.hovered ? (this.hovered.get(plot) ?? null) : plot.latest;
  }
}

/** The value each of a plot's series has at the crosshair's time (null when one has none there). */
function valuesAt(plot: IndicatorPlot, param: MouseEventParams): number[] | null {
  const values: number[] = [];
  for (const s of plot.series) {
    // The tail's point is the newest (a line's tail repeats the one before it, also in the history).
    const point = param.seriesData.get(s.tail) ?? param.seriesData.get(s.history);
    if (!point || !('value' in point) || typeof point.value !== 'number') return null;
    values.push(point.value);
  }
  return values;
}

function IndicatorLegend({
  store,
  plots,
  digits,
}: {
  store: LegendStore;
  plots: () => readonly IndicatorPlot[];
  digits: number;
}) {
  useSyncExternalStore(store.subscribe, store.getVersion);
  const shown = plots();
  store.texts.length = shown.length;
  if (shown.length === 0) return null;
  return (
    <ul className="indicator-legend" data-testid="indicator-legend" aria-label="Indicator values">
      {shown.map((plot, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the same indicator may be listed twice; the order is the identity
        <li key={i} className="indicator-legend__item">
          <span className="indicator-legend__swatch" style={{ background: plot.color }} aria-hidden="true" />
          <LegendFigures store={store} index={i} initial={legendText(plot.indicator, store.valuesOf(plot), digits)} />
        </li>
      ))}
    </ul>
  );
}

/**
 * One item's text, written by React once (`initial`) and then by the store on each tick and
 * crosshair move. A text node of its own, so React never sees the later writes: a render of the
 * list (other plots) puts `initial` back, computed from the same figures.
 */
function LegendFigures({ store, index, initial }: { store: LegendStore; index: number; initial: string }) {
  return (
    <span
      ref={(el) => {
        const node = el?.firstChild;
        store.texts[index] = node instanceof Text ? node : null;
      }}
    >
      {initial}
    </span>
  );
}

/**
 * A candlestick chart with the trader's indicators (docs/charting.md#indicators). ChartLayers and
 * `children` are laid over it inside ChartApiContext. The chart box says what it draws for tests:
 * `data-indicators` (how many) and `data-panes` (oscillator panes under the price pane).
 */
export function ChartView({
  candles,
  digits,
  view,
  symbol,
  timeframe,
  indicators,
  initialCandles,
  onNearStart,
  lines,
  onLineDrop,
  onLineOpen,
  children,
}: ChartViewProps) {
  const [drawn, setDrawn] = useState<DrawnChart | null>(null);
  const plotsRef = useRef<{ chart: DrawnChart['chart']; plots: IndicatorPlot[]; candles: readonly Candle[] } | null>(null);
  const crosshairRef = useRef<number | null>(null);
  const store = useMemo(() => new LegendStore(), []);
  const nearStartRef = useRef(onNearStart);
  nearStartRef.current = onNearStart;
  const candlesRef = useRef(candles);
  candlesRef.current = candles;
  const digitsRef = useRef(digits);
  digitsRef.current = digits;
  // A new list with the same indicators (a save's answer, a re-render) keeps the plots.
  const indicatorsKey = JSON.stringify(indicators);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the list; candles are read through their ref
  useEffect(() => {
    if (!drawn) {
      plotsRef.current = null;
      return;
    }
    const colors = themeChartColors((token) => ({ up: token('--profit', '#35c47c'), down: token('--loss', '#ff6b6b') }));
    const old = plotsRef.current?.chart === drawn.chart ? plotsRef.current.plots : [];
    const plots = replacePlots(drawn.chart, old, indicators, colors, digits);
    for (const plot of plots) plot.setAll(candlesRef.current);
    plotsRef.current = { chart: drawn.chart, plots, candles: candlesRef.current };
    store.plotsChanged();
  }, [drawn, indicatorsKey, digits, store]);

  // The live candle moves each indicator one step; anything else (older history, a gap filled) recomputes.
  useEffect(() => {
    const current = plotsRef.current;
    if (!current || current.candles === candles) return;
    const tail = liveTail(current.candles, candles);
    for (const plot of current.plots) {
      if (tail) plot.push(tail);
      else plot.setAll(candles);
    }
    current.candles = candles;
    store.write(current.plots, digitsRef.current);
  }, [candles, store]);

  useEffect(() => {
    if (!drawn) return;
    const onMove = (param: MouseEventParams) => {
      crosshairRef.current = param.point && (param.paneIndex ?? 0) === 0 ? drawn.series.coordinateToPrice(param.point.y) : null;
      const plots = plotsRef.current?.plots ?? [];
      // Right of the newest candle (the future bars' whitespace, liveSeries.ts) is no candle's time:
      // the legend keeps the newest values there, as it does away from the chart.
      const past = param.logical !== undefined && param.logical > candlesRef.current.length - 1;
      store.hovered = param.time === undefined || past ? null : new Map(plots.map((p) => [p, valuesAt(p, param)]));
      store.write(plots, digitsRef.current);
    };
    drawn.chart.subscribeCrosshairMove(onMove);
    const timeScale = drawn.chart.timeScale();
    const onRange = (range: LogicalRange | null) => {
      if (range && candlesRef.current.length > 0 && range.from < NEAR_START_CANDLES) nearStartRef.current?.();
    };
    timeScale.subscribeVisibleLogicalRangeChange(onRange);
    return () => {
      drawn.chart.unsubscribeCrosshairMove(onMove);
      timeScale.unsubscribeVisibleLogicalRangeChange(onRange);
    };
  }, [drawn, store]);

  const api = useMemo(
    () =>
      drawn && {
        chart: drawn.chart,
        series: drawn.series,
        container: drawn.container,
        symbol,
        timeframe,
        crosshairPrice: () => crosshairRef.current,
      },
    [drawn, symbol, timeframe],
  );

  // The same elements from one live tick to the next, so React passes over the layers and the
  // legend when only the candles moved (the legend's figures are written by the store).
  const layers = useMemo(
    () => (
      <ChartApiContext.Provider value={api}>
        <ChartLayers />
        {children}
      </ChartApiContext.Provider>
    ),
    [api, children],
  );
  const legend = useMemo(
    () => <IndicatorLegend store={store} plots={() => plotsRef.current?.plots ?? []} digits={digits} />,
    [store, digits],
  );

  return (
    <div className="chart-view" data-indicators={indicators.length}>
      <CandlestickChart
        candles={candles}
        digits={digits}
        view={view}
        initialCandles={initialCandles}
        lines={lines}
        onLineDrop={onLineDrop}
        onLineOpen={onLineOpen}
        onChart={setDrawn}
      >
        {layers}
      </CandlestickChart>
      {legend}
    </div>
  );
}
