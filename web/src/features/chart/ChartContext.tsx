import type { Timeframe } from '@pipdesk/contract';
import type { IChartApi, ISeriesApi } from 'lightweight-charts';
import { createContext, useContext } from 'react';

/**
 * What a chart hands the layers drawn over it (drawings, alerts, one-click buttons): the
 * library's chart and candle series, the pair and timeframe shown, the element the chart draws
 * in (for pointer events) and the price under the crosshair. Null outside a chart, or before
 * the chart is mounted.
 */
export interface ChartApi {
  chart: IChartApi;
  series: ISeriesApi<'Candlestick'>;
  symbol: string;
  timeframe: Timeframe | null;
  container: HTMLElement;
  crosshairPrice: () => number | null;
}

export const ChartApiContext = createContext<ChartApi | null>(null);

/** The chart this component is drawn over, or null when there is none (yet). */
export function useChartApi(): ChartApi | null {
  return useContext(ChartApiContext);
}
