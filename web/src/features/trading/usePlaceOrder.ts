import type { OrderSide, PlaceMarketOrderResponse } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { LOT_DEFAULT } from './lotRules';
import { placeMarketOrder, reloadTradingData } from './queries';

export interface PlaceOrderHandlers {
  /** The order filled; the side and lot size are back to BUY and the default already. */
  onPlaced?: (answer: PlaceMarketOrderResponse) => void;
  /** The order was refused or never answered; each form words it its own way. */
  onFailed: (err: unknown) => void;
}

/**
 * The side and lot size of an order form and its submit, shared by the dashboard's and the
 * pair page's forms: `placeOrder` sends the market order with `placing` set meanwhile,
 * resets side and lots on success, and reloads the trading data either way.
 */
export function usePlaceOrder({ onPlaced, onFailed }: PlaceOrderHandlers) {
  const queryClient = useQueryClient();
  const [side, setSide] = useState<OrderSide>('BUY');
  const [lotsText, setLotsText] = useState(LOT_DEFAULT);
  const [placing, setPlacing] = useState(false);

  async function placeOrder(symbol: string, quantity: number): Promise<void> {
    setPlacing(true);
    try {
      const answer = await placeMarketOrder({ symbol, side, quantity });
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
