import {
  type ClosePositionResponse,
  type CurrentPrices,
  type ModifyOrderRequest,
  type ModifyPositionRequest,
  type ModifyPositionResponse,
  marketOperations,
  type OrderDto,
  type OrderResponse,
  type OrdersPage,
  type PairPageDto,
  type PlaceMarketOrderRequest,
  type PlaceMarketOrderResponse,
  type PlatformDataDto,
  type PositionDto,
  type TradingAccountDto,
  type TradingServerMessage,
  tradingOperations,
} from '@pipdesk/contract';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { api, type QueryValue } from '../../api';
import { reloadAlerts } from '../alerts/alertsApi';

/** Query keys of the trading screens; everything under ['trading'] is the trader's money. */
export const tradingKeys = {
  all: ['trading'] as const,
  platformData: ['trading', 'platform-data'] as const,
  pairs: ['trading', 'pair'] as const,
  pair: (symbol: string) => ['trading', 'pair', symbol.toUpperCase()] as const,
  orders: ['trading', 'orders'] as const,
  ordersPage: (query: Record<string, QueryValue>) => ['trading', 'orders', query] as const,
};

export function fetchPlatformData(signal?: AbortSignal): Promise<PlatformDataDto> {
  return api.call(tradingOperations.platformData, {}, { signal });
}

export function fetchPairPage(symbol: string, signal?: AbortSignal): Promise<PairPageDto> {
  return api.call(tradingOperations.pairPage, { params: { symbol: symbol.toUpperCase() } }, { signal });
}

export function fetchCurrentPrices(): Promise<CurrentPrices> {
  return api.call(marketOperations.currentPrices);
}

/** GET trading/orders/: the spec's shape at the top level, no envelope. */
export function fetchOrders(query: Record<string, QueryValue>, signal?: AbortSignal): Promise<OrdersPage> {
  return api.call(tradingOperations.listOrders, { query }, { signal });
}

/** One key per submission: a retried request (a flaky network) can never execute twice (docs/trading-rules.md#idempotency). */
export function idempotencyKey(): string {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * POST trading/place-market-order/. The protection (`stop_loss`, `take_profit`, `trailing_stop_pips`)
 * is that of the position it leaves open (docs/orders.md#protection-on-positions); sent only when set.
 */
export function placeMarketOrder(order: PlaceMarketOrderRequest): Promise<PlaceMarketOrderResponse> {
  return api.call(tradingOperations.placeMarketOrder, { body: order }, { idempotencyKey: idempotencyKey() });
}

/**
 * `currentPrice` is only what the trader saw, kept on the close order for the record.
 * `quantity` (lots) closes part of the position (docs/orders.md#partial-close); left out, the whole.
 */
export function closePosition(positionId: number, currentPrice?: number, quantity?: number): Promise<ClosePositionResponse> {
  return api.call(tradingOperations.closePosition, {
    ids: { id: positionId },
    body: {
      ...(currentPrice === undefined ? {} : { current_price: currentPrice }),
      ...(quantity === undefined ? {} : { quantity }),
    },
  });
}

/** PATCH trading/orders/{id}/: changes a PENDING order (docs/orders.md#modify-and-cancel). */
export function modifyOrder(orderId: number, change: ModifyOrderRequest): Promise<OrderResponse> {
  return api.call(tradingOperations.modifyOrder, { ids: { id: orderId }, body: change });
}

/** POST trading/orders/{id}/cancel/: the order comes back CANCELLED. */
export function cancelOrder(orderId: number): Promise<OrderResponse> {
  return api.call(tradingOperations.cancelOrder, { ids: { id: orderId } });
}

/** PATCH trading/positions/{id}/: sets or clears (null) a position's protection (docs/orders.md#protection-on-positions). */
export function modifyPosition(positionId: number, change: ModifyPositionRequest): Promise<ModifyPositionResponse> {
  return api.call(tradingOperations.modifyPosition, { ids: { id: positionId }, body: change });
}

/** The dashboard's data: account, catalogue, open positions, recent orders. */
export function usePlatformData() {
  return useQuery({ queryKey: tradingKeys.platformData, queryFn: ({ signal }) => fetchPlatformData(signal) });
}

/** The pair page's data: the pair, its price, the trader's positions and orders in it, the account. */
export function usePairPage(symbol: string) {
  return useQuery({ queryKey: tradingKeys.pair(symbol), queryFn: ({ signal }) => fetchPairPage(symbol, signal) });
}

/** After an order or a close: reload everything that shows money, positions or orders. */
export function reloadTradingData(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: tradingKeys.all });
}

/** docs/screens.md#dashboard: only OPEN positions with a nonzero quantity are listed. */
export function isListedPosition(p: PositionDto): boolean {
  return p.status === 'OPEN' && p.quantity !== 0;
}

// ------------------------------------------------------------------ live cache updates

type AccountFigures = Pick<TradingAccountDto, 'balance' | 'equity' | 'margin_used' | 'free_margin' | 'margin_level' | 'leverage'>;
type PnlUpdate = { position_id: number; unrealized_pnl: number; current_price: number };

function patchAccount<T extends { trading_account: TradingAccountDto | null }>(data: T | undefined, figures: AccountFigures) {
  if (!data?.trading_account) return data;
  return { ...data, trading_account: { ...data.trading_account, ...figures } };
}

function patchPnl(positions: PositionDto[], updates: readonly PnlUpdate[]): PositionDto[] {
  const byId = new Map(updates.map((u) => [u.position_id, u]));
  let changed = false;
  const next = positions.map((p) => {
    const u = byId.get(p.id);
    if (!u) return p;
    changed = true;
    return { ...p, unrealized_pnl: u.unrealized_pnl, current_price: u.current_price };
  });
  return changed ? next : positions;
}

/**
 * The pending orders list after `order` changed: a PENDING order is added or replaced, any
 * other status leaves the list; oldest first, as the server lists them.
 */
export function withPendingOrder(pending: readonly OrderDto[], order: OrderDto): OrderDto[] {
  const others = pending.filter((o) => o.id !== order.id);
  if (order.status !== 'PENDING') return others.length === pending.length ? (pending as OrderDto[]) : others;
  return [...others, order].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id);
}

/**
 * Applies a trading socket message to the cached screens, so the figures on screen move
 * without a reload: account figures, each position's P&L, the open positions list.
 * `requestPositions` asks the socket for a positions_update (docs/screens.md#live-data-and-polling: on order_confirmation).
 */
export function applyTradingMessage(queryClient: QueryClient, message: TradingServerMessage, requestPositions: () => void): void {
  switch (message.type) {
    case 'account_update': {
      queryClient.setQueryData<PlatformDataDto>(tradingKeys.platformData, (d) => patchAccount(d, message.data));
      queryClient.setQueriesData<PairPageDto>({ queryKey: tradingKeys.pairs }, (d) => patchAccount(d, message.data));
      return;
    }
    case 'pnl_batch_update': {
      const { updates } = message;
      queryClient.setQueryData<PlatformDataDto>(tradingKeys.platformData, (d) =>
        d ? { ...d, open_positions: patchPnl(d.open_positions, updates) } : d,
      );
      queryClient.setQueriesData<PairPageDto>({ queryKey: tradingKeys.pairs }, (d) =>
        d ? { ...d, positions: patchPnl(d.positions, updates) } : d,
      );
      return;
    }
    case 'positions_update': {
      const open = message.data.filter(isListedPosition);
      queryClient.setQueryData<PlatformDataDto>(tradingKeys.platformData, (d) => (d ? { ...d, open_positions: open } : d));
      queryClient.setQueriesData<PairPageDto>({ queryKey: tradingKeys.pairs }, (d) =>
        d ? { ...d, positions: open.filter((p) => p.fx_pair_symbol === d.pair.symbol) } : d,
      );
      return;
    }
    case 'order_confirmation': {
      requestPositions();
      // The new order belongs in Recent Orders and the order history, wherever it came from.
      void queryClient.invalidateQueries({ queryKey: tradingKeys.all });
      return;
    }
    case 'order_update': {
      // The pending lists move at once; a placed, modified, cancelled or expired order (which
      // brings no order_confirmation) also changes Recent Orders and the order history.
      const { order } = message.data;
      queryClient.setQueryData<PlatformDataDto>(tradingKeys.platformData, (d) =>
        d ? { ...d, pending_orders: withPendingOrder(d.pending_orders, order) } : d,
      );
      queryClient.setQueriesData<PairPageDto>({ queryKey: tradingKeys.pairs }, (d) =>
        d && d.pair.symbol === order.fx_pair_symbol ? { ...d, pending_orders: withPendingOrder(d.pending_orders, order) } : d,
      );
      if (order.status !== 'FILLED') void queryClient.invalidateQueries({ queryKey: tradingKeys.all });
      return;
    }
    case 'alert_update':
      // A fired or expired alert leaves the Active list and joins its own (docs/charting.md#alerts).
      void reloadAlerts(queryClient);
      return;
    default:
      return;
  }
}
