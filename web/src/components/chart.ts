// The app's lightweight-charts setup, shared by the pair's candlestick chart and the equity curve.
// Not re-exported from components/index.ts: the charting library is a third of the app's code and
// loads only with the (lazy) chart modules that import this file.
import {
  ColorType,
  CrosshairMode,
  createChart,
  type DeepPartial,
  type IChartApi,
  type TimeChartOptions,
} from 'lightweight-charts';

/** The colours every chart takes from the theme: its surface, axis text, grid and axis borders. */
export interface ChartColors {
  background: string;
  text: string;
  grid: string;
  border: string;
}

/** Reads one design token of the theme in force (tokens.css), else `fallback`. */
export type TokenReader = (name: string, fallback: string) => string;

/**
 * The chart's colours from the design tokens of the theme in force; `extra` reads the chart's own
 * (series) colours. Fallbacks are the dark theme's.
 */
export function themeChartColors<E extends object>(extra: (token: TokenReader) => E): ChartColors & E {
  const css = getComputedStyle(document.documentElement);
  const token: TokenReader = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    background: token('--surface', '#121821'),
    text: token('--text-muted', '#93a1b3'),
    grid: token('--border', '#243041'),
    border: token('--border-strong', '#34445b'),
    ...extra(token),
  };
}

/** A token colour (#rrggbb) made see-through; any other colour is left as it is. */
export function translucent(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!hex) return color;
  const [r, g, b] = hex.slice(1).map((h) => Number.parseInt(h, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

/** What differs between the app's charts beyond their colours. */
export interface ChartLook {
  /** How the price axis and the crosshair write a price; the library's own when absent. */
  priceFormatter?: (price: number) => string;
  /** The main price scale's free space above and below, as fractions of the chart's height. */
  scaleMargins?: { top: number; bottom: number };
}

/** The options of a chart in the app's style: theme colours, the app's font, time axis to the minute. */
export function chartOptions(colors: ChartColors, look: ChartLook = {}): DeepPartial<TimeChartOptions> {
  return {
    layout: {
      background: { type: ColorType.Solid, color: colors.background },
      textColor: colors.text,
      fontFamily: getComputedStyle(document.body).fontFamily || undefined,
    },
    ...(look.priceFormatter ? { localization: { priceFormatter: look.priceFormatter } } : {}),
    grid: { vertLines: { color: colors.grid }, horzLines: { color: colors.grid } },
    rightPriceScale: { borderColor: colors.border, ...(look.scaleMargins ? { scaleMargins: look.scaleMargins } : {}) },
    timeScale: { borderColor: colors.border, timeVisible: true, secondsVisible: false },
    crosshair: { mode: CrosshairMode.Normal },
  };
}

export interface ThemedChartSetup<C extends ChartColors, D> {
  /** Reads the chart's colours from the theme in force (with `themeChartColors`). */
  colors: () => C;
  look?: ChartLook;
  /** Adds the series to the new chart; what it returns is handed to `recolor`. */
  draw: (chart: IChartApi, colors: C) => D;
  /** The theme changed: recolour what `draw` made (the chart's own options are applied already). */
  recolor: (drawn: D, colors: C) => void;
}

/**
 * Creates a chart in `container` that follows the container's size (autoSize) and the theme:
 * the theme switch sets data-theme on <html> after React renders, so the chart watches the
 * attribute itself. `remove` stops watching and frees the chart (call it from the effect's cleanup).
 */
export function mountThemedChart<C extends ChartColors, D>(
  container: HTMLElement,
  setup: ThemedChartSetup<C, D>,
): { chart: IChartApi; drawn: D; remove: () => void } {
  const colors = setup.colors();
  const chart = createChart(container, { ...chartOptions(colors, setup.look), autoSize: true });
  const drawn = setup.draw(chart, colors);
  const themeWatch = new MutationObserver(() => {
    const next = setup.colors();
    chart.applyOptions(chartOptions(next, setup.look));
    setup.recolor(drawn, next);
  });
  themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return {
    chart,
    drawn,
    remove: () => {
      themeWatch.disconnect();
      chart.remove();
    },
  };
}
