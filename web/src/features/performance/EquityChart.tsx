import type { EquityPointDto } from '@pipdesk/contract';
import { AreaSeries, type IChartApi, type ISeriesApi, LineSeries, LineStyle } from 'lightweight-charts';
import { useEffect, useRef } from 'react';
import { type ChartColors, type ChartLook, mountThemedChart, themeChartColors, translucent } from '../../components/chart';
import { formatUsd } from '../trading/format';
import { toChartLines } from './equityPoints';

interface EquityColors extends ChartColors {
  equity: string;
  balance: string;
}

const equityColors = (): EquityColors =>
  themeChartColors((token) => ({ equity: token('--accent', '#5aa9ff'), balance: token('--text-muted', '#93a1b3') }));

// The axis and the crosshair read money as the rest of the app writes it ("$10,052.40").
const EQUITY_LOOK: ChartLook = { priceFormatter: formatUsd };

function seriesColors(colors: EquityColors) {
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
    const mounted = mountThemedChart(container, {
      colors: equityColors,
      look: EQUITY_LOOK,
      draw: (chart, colors) => {
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
        return { chart, equity, balance };
      },
      recolor: ({ equity, balance }, colors) => {
        const p = seriesColors(colors);
        equity.applyOptions(p.equity);
        balance.applyOptions(p.balance);
      },
    });
    drawnRef.current = mounted.drawn;
    return () => {
      mounted.remove();
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
