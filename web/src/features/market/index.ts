// The market feature: flags, the pairs grid, the pair page's price card and chart, and the price socket.
import './market.css';

// CandlestickChart is not re-exported: PriceChart loads it lazily, and a static import here would undo that.
export {
  CurrentPriceCard,
  type CurrentPriceCardProps,
  newestQuote,
  type Quote,
  spreadText,
  usePairQuote,
} from './CurrentPriceCard';
export { mergeMinuteCandle } from './candles';
export { CurrencyFlag, type CurrencyFlagProps, hasFlag, PairFlags, type PairFlagsProps } from './flags';
export { BackToPlatformLink, isPairNotFound, PAIR_NOT_FOUND_TITLE, PairNotFound, PairTitle } from './PairHeading';
export { type PairQuotes, PairsGrid, type PairsGridProps } from './PairsGrid';
export { CHART_RANGE_BUTTONS, NO_CHART_DATA_TEXT, PriceChart, type PriceChartProps, useLiveCandles } from './PriceChart';
export {
  type LivePrice,
  PRICE_SOCKET_RECONNECT_MS,
  PriceStream,
  type PriceStreamOptions,
  type PriceStreamState,
  type PriceStreamStatus,
  priceSocketUrl,
  useLivePrice,
  usePriceStream,
  usePriceStreamState,
  usePriceStreamStatus,
} from './priceStream';
export {
  fetchChartData,
  fetchCurrentPrices,
  fetchPairPrice,
  fetchPairSnapshot,
  marketKeys,
  PRICE_POLL_MS,
  useChartData,
  useCurrentPrices,
  usePairPrice,
  usePairSnapshot,
} from './queries';
