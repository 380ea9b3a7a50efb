import {
  type OrderSide,
  type PlaceMarketOrderResponse,
  type PlacePendingOrderRequest,
  type PlacePendingOrderResponse,
  tradingOperations,
} from '@pipdesk/contract';
import { api } from '../../../api';
import { idempotencyKey, placeMarketOrder } from '../queries';
import type { TicketExtras } from './ticketModel';

/** POST trading/place-pending-order/ (docs/orders.md#the-calls), with its own Idempotency-Key as a market order has. */
export function placePendingOrder(order: PlacePendingOrderRequest): Promise<PlacePendingOrderResponse> {
  return api.call(tradingOperations.placePendingOrder, { body: order }, { idempotencyKey: idempotencyKey() });
}

/** What either call answers: the order, and for a market order its fill. */
export type TicketAnswer = PlaceMarketOrderResponse | PlacePendingOrderResponse;

/**
 * Sends the order the ticket describes: a market order (with its protection, when set: without
 * it the body is the spec's `{symbol, side, quantity}`), or a pending one.
 */
export function sendTicketOrder(symbol: string, side: OrderSide, quantity: number, extras?: TicketExtras): Promise<TicketAnswer> {
  if (!extras || extras.order_type === 'MARKET') {
    const { order_type: _market, ...protection } = extras ?? { order_type: 'MARKET' };
    return placeMarketOrder({ symbol, side, quantity, ...protection });
  }
  return placePendingOrder({ symbol, side, quantity, ...extras });
}
