import type { Candle } from '@pipdesk/contract';
import {
  CandlestickSeries,
  ColorType,
  CrosshairMode,
  createChart,
  type DeepPartial,
  type IChartApi,
  type ISeriesApi,
  type PriceFormatBuiltIn,
  type TimeChartOptions,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef } from 'react';
import { toChartBar } from './candles';

interface ChartColors {
  background: string;
  text: string;
  grid: string;
  border: string;
  up: string;
  down: string;
}

/** The chart's colours from the design tokens of the theme in force (tokens.css); fallbacks are the dark theme's. */
function themeColors(): ChartColors {
  const css = getComputedStyle(document.documentElement);
  const token = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    background: token('--surface', '#121821'),
    text: token('--text-muted', '#93a1b3'),
    grid: token('--border', '#243041'),
    border: token('--border-strong', '#34445b'),
    up: token('--profit', '#35c47c'),
    down: token('--loss', '#ff6b6b'),
  };
}

function chartOptions(colors: ChartColors): DeepPartial<TimeChartOptions> {
  return {
    layout: {
      background: { type: ColorType.Solid, color: colors.background },
      textColor: colors.text,
      fontFamily: getComputedStyle(document.body).fontFamily || undefined,
    },
    grid: { vertLines: { color: colors.grid }, horzLines: { color: colors.grid } },
    rightPriceScale: { borderColor: colors.border },
    timeScale: { borderColor: colors.border, timeVisible: true, secondsVisible: false },
    crosshair: { mode: CrosshairMode.Normal },
  };
}

function candleColors(colors: ChartColors) {
  return {
    upColor: colors.up,
    downColor: colors.down,
    borderUpColor: colors.up,
    borderDownColor: colors.down,
    wickUpColor: colors.up,
    wickDownColor: colors.down,
  };
}

/** Prices at the pair's digits (5; 3 for JPY-quoted pairs) on the axis and the crosshair. */
export function priceFormat(digits: number): PriceFormatBuiltIn {
  return { type: 'price', precision: digits, minMove: 1 / 10 ** digits };
}

function bar(candle: Candle) {
  const b = toChartBar(candle);
  return { ...b, time: b.time as UTCTimestamp };
}

/**
 * The candles to `update` when `next` only changed the newest candle or added one after it
 * (the live minute), else null: the series must be given everything again (`setData`).
 */
function liveTail(shown: readonly Candle[], next: readonly Candle[]): Candle[] | null {
  if (shown.length === 0 || next.length < shown.length || next.length > shown.length + 1) return null;
  for (let i = 0; i < shown.length - 1; i++) if (shown[i] !== next[i]) return null;
  const lastShown = shown.at(-1);
  const lastKept = next[shown.length - 1];
  if (!lastShown || !lastKept || lastKept.time !== lastShown.time) return null;
  return next.slice(shown.length - 1);
}

export interface CandlestickChartProps {
  /** Oldest first; times in epoch ms. */
  candles: readonly Candle[];
  /** Decimals of the pair's prices. */
  digits: number;
  /** What the candles show (pair and range): a new view is fitted to the width; the same view keeps the trader's zoom. */
  view: string;
}

/**
 * A candlestick chart drawn by lightweight-charts on a canvas that follows its container's
 * size (autoSize) and the theme's colours. A live change of the newest candle goes to
 * `series.update`; anything else is handed over again with `setData`.
 */
export function CandlestickChart({ candles, digits, view }: CandlestickChartProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const drawnRef = useRef<{ chart: IChartApi; series: ISeriesApi<'Candlestick'> } | null>(null);
  const shownRef = useRef<{ candles: readonly Candle[]; view: string } | null>(null);
  const digitsRef = useRef(digits);
  digitsRef.current = digits;

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const colors = themeColors();
    const chart = createChart(container, { ...chartOptions(colors), autoSize: true });
    const series = chart.addSeries(CandlestickSeries, {
      ...candleColors(colors),
      borderVisible: true,
      priceFormat: priceFormat(digitsRef.current),
    });
    drawnRef.current = { chart, series };
    // The theme switch sets data-theme on <html> after React renders: follow the attribute itself.
    const themeWatch = new MutationObserver(() => {
      const next = themeColors();
      chart.applyOptions(chartOptions(next));
      series.applyOptions(candleColors(next));
    });
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      themeWatch.disconnect();
      chart.remove();
      drawnRef.current = null;
      shownRef.current = null;
    };
  }, []);

  useEffect(() => {
    drawnRef.current?.series.applyOptions({ priceFormat: priceFormat(digits) });
  }, [digits]);

  useEffect(() => {
    const drawn = drawnRef.current;
    if (!drawn) return;
    const shown = shownRef.current;
    const tail = shown && shown.view === view ? liveTail(shown.candles, candles) : null;
    if (tail) {
      for (const candle of tail) drawn.series.update(bar(candle));
    } else {
      drawn.series.setData(candles.map(bar));
      if (!shown || shown.view !== view || shown.candles.length === 0) drawn.chart.timeScale().fitContent();
    }
    shownRef.current = { candles, view };
  }, [candles, view]);

  return <div ref={containerRef} className="candlestick-chart" />;
}
