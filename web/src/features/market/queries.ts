import {
  type Candle,
  type ChartRange,
  type CurrentPrices,
  marketOperations,
  type PairSnapshot,
  type Price,
  pairSnapshotSchema,
  type Timeframe,
  tradingOperations,
} from '@pipdesk/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api';

/** docs/screens.md#live-data-and-polling: prices are polled every 5 s where no live connection carries them. */
export const PRICE_POLL_MS = 5_000;

export const marketKeys = {
  currentPrices: ['market', 'current-prices'] as const,
  pair: (symbol: string) => ['market', 'pair', symbol.toUpperCase()] as const,
  pairPrice: (symbol: string) => ['market', 'pair', symbol.toUpperCase(), 'price'] as const,
  chart: (symbol: string, range: ChartRange) => ['market', 'pair', symbol.toUpperCase(), 'chart', range] as const,
  /** A timeframe's candles, page by page as the trader scrolls back. */
  timeframeChart: (symbol: string, timeframe: Timeframe) =>
    ['market', 'pair', symbol.toUpperCase(), 'chart-timeframe', timeframe] as const,
};

/** A pair in a call's path: the catalogue's upper case. */
const pairParams = (symbol: string) => ({ symbol: symbol.toUpperCase() });

/** GET trading/current-prices/: every active pair's price. */
export function fetchCurrentPrices(signal?: AbortSignal): Promise<CurrentPrices> {
  return api.call(marketOperations.currentPrices, {}, { signal });
}

/**
 * GET trading/pair/{symbol}/: the pair and its price now (404 for an unknown pair). Only the
 * market part of the pair page is read: the trader part is the trading feature's.
 */
export function fetchPairSnapshot(symbol: string, signal?: AbortSignal): Promise<PairSnapshot> {
  return api.call(tradingOperations.pairPage, { params: pairParams(symbol) }, { signal, answer: pairSnapshotSchema });
}

/** GET trading/pair/{symbol}/price/. */
export function fetchPairPrice(symbol: string, signal?: AbortSignal): Promise<Price> {
  return api.call(marketOperations.pairPrice, { params: pairParams(symbol) }, { signal });
}

/** GET trading/pair/{symbol}/chart-data/?range=…: candles oldest first, the last one still forming. */
export function fetchChartData(symbol: string, range: ChartRange, signal?: AbortSignal): Promise<Candle[]> {
  return api.call(marketOperations.chartData, { params: pairParams(symbol), query: { range } }, { signal });
}

/** Every pair's price, polled every 5 s while `enabled`. */
export function useCurrentPrices({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: marketKeys.currentPrices,
    queryFn: ({ signal }) => fetchCurrentPrices(signal),
    enabled,
    refetchInterval: PRICE_POLL_MS,
    staleTime: PRICE_POLL_MS,
  });
}

/**
 * The pair and its price now: the market part of trading/pair/{symbol}/. An unknown pair
 * fails with an ApiError of status 404 (see `isPairNotFound`).
 */
export function usePairSnapshot(symbol: string) {
  return useQuery({
    queryKey: marketKeys.pair(symbol),
    queryFn: ({ signal }) => fetchPairSnapshot(symbol, signal),
    staleTime: 60_000,
  });
}

/** One pair's price, polled every 5 s while `enabled` (the price socket is down). */
export function usePairPrice(symbol: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: marketKeys.pairPrice(symbol),
    queryFn: ({ signal }) => fetchPairPrice(symbol, signal),
    enabled,
    refetchInterval: PRICE_POLL_MS,
    staleTime: PRICE_POLL_MS,
  });
}

/** A range's candles; no polling: the 1h chart is kept live by the price socket, the others are not live (docs/screens.md#pair-page). */
export function useChartData(symbol: string, range: ChartRange, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: marketKeys.chart(symbol, range),
    queryFn: ({ signal }) => fetchChartData(symbol, range, signal),
    staleTime: 30_000,
    enabled,
  });
}

/**
 * GET trading/pair/{symbol}/chart-data/?timeframe=…&limit=…[&before=…] (DESIGN §18): up to
 * `limit` candles of the timeframe, oldest first; with `before`, only candles that open before it.
 */
export function fetchTimeframeCandles(
  symbol: string,
  timeframe: Timeframe,
  { before, limit }: { before?: number; limit: number },
  signal?: AbortSignal,
): Promise<Candle[]> {
  return api.call(marketOperations.chartData, { params: pairParams(symbol), query: { timeframe, limit, before } }, { signal });
}
