import type { EquityPointDto } from '@pipdesk/contract';
import {
  AreaSeries,
  ColorType,
  CrosshairMode,
  createChart,
  type DeepPartial,
  type IChartApi,
  type ISeriesApi,
  LineSeries,
  LineStyle,
  type TimeChartOptions,
} from 'lightweight-charts';
import { useEffect, useRef } from 'react';
import { formatUsd } from '../trading/format';
import { toChartLines } from './equityPoints';

interface ChartColors {
  background: string;
  text: string;
  grid: string;
  border: string;
  equity: string;
  balance: string;
}

/** Colours from the theme's tokens (tokens.css); fallbacks are the dark theme's. */
function themeColors(): ChartColors {
  const css = getComputedStyle(document.documentElement);
  const token = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    background: token('--surface', '#121821'),
    text: token('--text-muted', '#93a1b3'),
    grid: token('--border', '#243041'),
    border: token('--border-strong', '#34445b'),
    equity: token('--accent', '#5aa9ff'),
    balance: token('--text-muted', '#93a1b3'),
  };
}

function translucent(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!hex) return color;
  const [r, g, b] = hex.slice(1).map((h) => Number.parseInt(h, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

function chartOptions(colors: ChartColors): DeepPartial<TimeChartOptions> {
  return {
    layout: {
      background: { type: ColorType.Solid, color: colors.background },
      textColor: colors.text,
      fontFamily: getComputedStyle(document.body).fontFamily || undefined,
    },
    // The axis and the crosshair read money as the rest of the app writes it ("$10,052.40").
    localization: { priceFormatter: formatUsd },
    grid: { vertLines: { color: colors.grid }, horzLines: { color: colors.grid } },
    rightPriceScale: { borderColor: colors.border },
    timeScale: { borderColor: colors.border, timeVisible: true, secondsVisible: false },
    crosshair: { mode: CrosshairMode.Normal },
  };
}

function seriesColors(colors: ChartColors) {
  return {
    equity: {
      lineColor: colors.equity,
      topColor: translucent(colors.equity, 0.35),
      bottomColor: translucent(colors.equity, 0.02),
    },
    balance: { color: colors.balance },
  };
}

/** Money on the axis and the crosshair: cents. */
const MONEY_FORMAT = { type: 'price', precision: 2, minMove: 0.01 } as const;

interface Drawn {
  chart: IChartApi;
  equity: ISeriesApi<'Area'>;
  balance: ISeriesApi<'Line'>;
}

export interface EquityChartProps {
  /** Oldest first, as the equity-curve call answers. */
  points: readonly EquityPointDto[];
  /** What the points show (the range): a new view is fitted to the width. */
  view: string;
}

/**
 * The equity curve drawn by lightweight-charts: equity as an area, the balance as a dashed line
 * (the gap between them is the open positions' P&L), following the theme's colours.
 */
export function EquityChart({ points, view }: EquityChartProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const drawnRef = useRef<Drawn | null>(null);
  const shownViewRef = useRef<string | null>(null);

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const colors = themeColors();
    const chart = createChart(container, { ...chartOptions(colors), autoSize: true });
    const palette = seriesColors(colors);
    const equity = chart.addSeries(AreaSeries, {
      ...palette.equity,
      lineWidth: 2,
      priceFormat: MONEY_FORMAT,
      title: 'Equity',
    });
    const balance = chart.addSeries(LineSeries, {
      ...palette.balance,
      lineWidth: 1,
      lineStyle: LineStyle.Dashed,
      priceFormat: MONEY_FORMAT,
      lastValueVisible: false,
      priceLineVisible: false,
      title: 'Balance',
    });
    drawnRef.current = { chart, equity, balance };
    // The theme switch sets data-theme on <html> after React renders: follow the attribute itself.
    const themeWatch = new MutationObserver(() => {
      const next = themeColors();
      const p = seriesColors(next);
      chart.applyOptions(chartOptions(next));
      equity.applyOptions(p.equity);
      balance.applyOptions(p.balance);
    });
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      themeWatch.disconnect();
      chart.remove();
      drawnRef.current = null;
      shownViewRef.current = null;
    };
  }, []);

  useEffect(() => {
    const drawn = drawnRef.current;
    if (!drawn) return;
    const lines = toChartLines(points);
    drawn.equity.setData(lines.equity);
    drawn.balance.setData(lines.balance);
    // A new range is fitted to the width; new points in the same range keep the trader's zoom.
    if (shownViewRef.current !== view) drawn.chart.timeScale().fitContent();
    shownViewRef.current = view;
  }, [points, view]);

  return <div ref={containerRef} className="equity-chart" />;
}
