import type { Candle } from '@pipdesk/contract';
import {
  CandlestickSeries,
  ColorType,
  CrosshairMode,
  createChart,
  type DeepPartial,
  HistogramSeries,
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

/** The volume's own price scale, an overlay with no axis of its own. */
const VOLUME_SCALE = 'volume';
/**
 * The candles keep the top of the chart and the tick volume the bottom fifth, so the two never
 * overlap (fractions of the chart's height left free above and below each).
 */
const CANDLE_MARGINS = { top: 0.12, bottom: 0.24 };
const VOLUME_MARGINS = { top: 0.8, bottom: 0 };

function chartOptions(colors: ChartColors): DeepPartial<TimeChartOptions> {
  return {
    layout: {
      background: { type: ColorType.Solid, color: colors.background },
      textColor: colors.text,
      fontFamily: getComputedStyle(document.body).fontFamily || undefined,
    },
    grid: { vertLines: { color: colors.grid }, horzLines: { color: colors.grid } },
    rightPriceScale: { borderColor: colors.border, scaleMargins: CANDLE_MARGINS },
    timeScale: { borderColor: colors.border, timeVisible: true, secondsVisible: false },
    crosshair: { mode: CrosshairMode.Normal },
  };
}

/** A token colour (#rrggbb) made see-through, so the volume stays behind the candles' colours in weight. */
function translucent(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!hex) return color;
  const [r, g, b] = hex.slice(1).map((h) => Number.parseInt(h, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

function volumeColors(colors: ChartColors) {
  return { up: translucent(colors.up, 0.45), down: translucent(colors.down, 0.45) };
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

/** A candle's tick volume as a histogram column, in the colour of its candle (rising or falling). */
function volumeBar(candle: Candle, colors: { up: string; down: string }) {
  return {
    time: Math.floor(candle.time / 1000) as UTCTimestamp,
    value: candle.volume,
    color: candle.close >= candle.open ? colors.up : colors.down,
  };
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

interface Drawn {
  chart: IChartApi;
  series: ISeriesApi<'Candlestick'>;
  volume: ISeriesApi<'Histogram'>;
  volumeColors: { up: string; down: string };
}

/**
 * A candlestick chart drawn by lightweight-charts on a canvas that follows its container's
 * size (autoSize) and the theme's colours, with each candle's tick volume as a histogram in
 * the bottom fifth. A live change of the newest candle goes to `update`; anything else is
 * handed over again with `setData`.
 *
 * The last price is a line across the chart but has no label on the price axis: there the
 * label sat on top of the axis's own price labels and hid them (the price card and the
 * chart's legend give the figure).
 */
export function CandlestickChart({ candles, digits, view }: CandlestickChartProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const drawnRef = useRef<Drawn | null>(null);
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
      lastValueVisible: false,
      priceLineVisible: true,
    });
    const volume = chart.addSeries(HistogramSeries, {
      priceScaleId: VOLUME_SCALE,
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    chart.priceScale(VOLUME_SCALE).applyOptions({ scaleMargins: VOLUME_MARGINS });
    const drawn: Drawn = { chart, series, volume, volumeColors: volumeColors(colors) };
    drawnRef.current = drawn;
    // The theme switch sets data-theme on <html> after React renders: follow the attribute itself.
    const themeWatch = new MutationObserver(() => {
      const next = themeColors();
      chart.applyOptions(chartOptions(next));
      series.applyOptions(candleColors(next));
      drawn.volumeColors = volumeColors(next);
      const shown = shownRef.current?.candles ?? [];
      volume.setData(shown.map((c) => volumeBar(c, drawn.volumeColors)));
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
      for (const candle of tail) {
        drawn.series.update(bar(candle));
        drawn.volume.update(volumeBar(candle, drawn.volumeColors));
      }
    } else {
      drawn.series.setData(candles.map(bar));
      drawn.volume.setData(candles.map((c) => volumeBar(c, drawn.volumeColors)));
      if (!shown || shown.view !== view || shown.candles.length === 0) drawn.chart.timeScale().fitContent();
    }
    shownRef.current = { candles, view };
  }, [candles, view]);

  return <div ref={containerRef} className="candlestick-chart" />;
}
