// The trading feature: the live feed (trading socket + price poll), order forms, positions and orders.
// Other features use the live prices through `useLivePrices` / `useLivePrice`.
export { AccountCards, AccountInfoCard } from './AccountFigures';
export { OrderStatusBadge, OrderTypeLabel, SideBadge } from './badges';
export * from './format';
export { FeedModeBadge, LiveIndicator, MarginCallBanner } from './LiveBadges';
export {
  LiveTradingProvider,
  type LiveTradingProviderProps,
  useLiveConnected,
  useLivePrice,
  useLivePrices,
  useMarginCall,
} from './LiveTradingProvider';
export type { PriceMap } from './livePrices';
export { MarketOrderForm } from './MarketOrderForm';
export { ErrorBox, TradingNotAvailable } from './notices';
export { OrdersTable, orderColumns } from './OrdersTable';
export { PairOrderForm } from './PairOrderForm';
export { PositionsTable } from './PositionsTable';
export { PendingOrdersPanel } from './pending/PendingOrdersPanel';
export {
  fetchOrders,
  isListedPosition,
  modifyOrder,
  modifyPosition,
  reloadTradingData,
  tradingKeys,
  usePairPage,
  usePlatformData,
} from './queries';
export { DEMO_MODE_TEXT, type TradingMode, TradingModeSwitch, tradingMode, useTradingMode } from './tradingMode';
export { CLOSE_TEXT, useClosePosition } from './useClosePosition';
