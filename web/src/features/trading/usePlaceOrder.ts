import type { OrderSide } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { LOT_DEFAULT } from './lotRules';
import { reloadTradingData } from './queries';
import { sendTicketOrder, type TicketAnswer } from './ticket/api';
import type { TicketExtras } from './ticket/ticketModel';

export interface PlaceOrderHandlers {
  /** The order filled (or, pending, was placed); the side and lot size are back to BUY and the default already. */
  onPlaced?: (answer: TicketAnswer) => void;
  /** The order was refused or never answered; each form words it its own way. */
  onFailed: (err: unknown) => void;
}

/**
 * The side and lot size of an order form and its submit, shared by the dashboard's and the
 * pair page's forms: `placeOrder` sends the order (a market order by default; the order
 * ticket's type, prices and protection when given, docs/screens.md#order-ticket) with `placing`
 * set meanwhile, resets side and lots on success, and reloads the trading data either way.
 */
export function usePlaceOrder({ onPlaced, onFailed }: PlaceOrderHandlers) {
  const queryClient = useQueryClient();
  const [side, setSide] = useState<OrderSide>('BUY');
  const [lotsText, setLotsText] = useState(LOT_DEFAULT);
  const [placing, setPlacing] = useState(false);

  /** `orderSide` trades without the form's toggle (the chart's SELL/BUY buttons, the B and S keys). */
  async function placeOrder(symbol: string, quantity: number, extras?: TicketExtras, orderSide: OrderSide = side): Promise<void> {
    setPlacing(true);
    try {
      const answer = await sendTicketOrder(symbol, orderSide, quantity, extras);
      setSide('BUY');
      setLotsText(LOT_DEFAULT);
      onPlaced?.(answer);
    } catch (err) {
      onFailed(err);
    } finally {
      setPlacing(false);
      // A rejected order is stored too (docs/trading-rules.md#validation-and-rejection), so Recent Orders changes either way.
      void reloadTradingData(queryClient);
    }
  }

  return { side, setSide, lotsText, setLotsText, placing, placeOrder };
}
