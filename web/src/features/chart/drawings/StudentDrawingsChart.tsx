import type { Timeframe } from '@pipdesk/contract';
import { useMemo, useState } from 'react';
import { LoadState } from '../../../components';
import { CandlestickChart, type DrawnChart } from '../../market/CandlestickChart';
import { ChartApiContext } from '../ChartContext';
import { useTimeframeCandles } from '../useTimeframeCandles';
import { DrawingLayer } from './DrawingLayer';

/** The candles a student's chart shows at first; the rest is a scroll back away. */
const INITIAL_CANDLES = 120;

export interface StudentDrawingsChartProps {
  studentId: number;
  symbol: string;
  digits: number;
  timeframe: Timeframe;
}

/**
 * A student's drawings on a pair, read-only, over a plain candle chart: none of the instructor's
 * own layers (their drawings, trade buttons), which the trading chart would bring. Loaded lazily
 * with the charting library.
 */
export function StudentDrawingsChart({ studentId, symbol, digits, timeframe }: StudentDrawingsChartProps) {
  const [drawn, setDrawn] = useState<DrawnChart | null>(null);
  const candles = useTimeframeCandles(symbol, timeframe, null);
  const chartApi = useMemo(
    () =>
      drawn && {
        chart: drawn.chart,
        series: drawn.series,
        container: drawn.container,
        symbol,
        timeframe,
        crosshairPrice: () => null,
      },
    [drawn, symbol, timeframe],
  );
  return (
    <div className="student-drawings__chart" data-testid="student-drawings-chart">
      <CandlestickChart
        candles={candles.candles}
        digits={digits}
        view={`${symbol}:${timeframe}`}
        initialCandles={INITIAL_CANDLES}
        onChart={setDrawn}
      >
        <ChartApiContext.Provider value={chartApi}>
          <DrawingLayer readOnly studentId={studentId} />
        </ChartApiContext.Provider>
      </CandlestickChart>
      <LoadState
        className="student-drawings__state"
        loading={candles.isPending}
        loadingText="Loading chart..."
        error={candles.isError ? 'Failed to load chart data' : null}
        onRetry={candles.refetch}
        empty={candles.candles.length === 0 ? 'No chart data available' : null}
      />
    </div>
  );
}
