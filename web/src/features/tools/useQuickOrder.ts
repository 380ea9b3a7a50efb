import type { OrderSide, PlatformDataDto } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useNotices } from '../../notices/NoticeProvider';
import { digitsLookup } from '../trading/format';
import { ORDER_FORM_TEXT } from '../trading/MarketOrderForm';
import { tradingKeys } from '../trading/queries';
import { failureNotice, orderNotice } from '../trading/tradeNotices';
import { usePlaceOrder } from '../trading/usePlaceOrder';

/**
 * A market order without the ticket (the chart's one-click buttons, the B and S keys): sent by
 * the forms' own placement (its Idempotency-Key, the reload after), its fill or refusal in a
 * notice as the pair page words them (docs/screens.md#notices).
 */
export function useQuickOrder() {
  const notices = useNotices();
  const queryClient = useQueryClient();
  const { placing, placeOrder } = usePlaceOrder({
    onPlaced: (answer) => {
      const pairs = queryClient.getQueryData<PlatformDataDto>(tradingKeys.platformData)?.fx_pairs;
      const notice = orderNotice(answer.order, digitsLookup(pairs));
      if (notice) notices.notify(notice);
    },
    // The pair page's words (docs/screens.md#error-texts).
    onFailed: (err) =>
      notices.notify(failureNotice(err, 'placing order', ORDER_FORM_TEXT.failed, ORDER_FORM_TEXT.unexpected), {
        replace: true,
      }),
  });
  return {
    placing,
    /** Buys or sells `lots` of `symbol` at the market now. */
    trade: (symbol: string, side: OrderSide, lots: number) => placeOrder(symbol, lots, undefined, side),
  };
}
