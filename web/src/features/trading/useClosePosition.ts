import { Dec, type PlatformDataDto, type PositionDto } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNotices } from '../../notices/NoticeProvider';
import { digitsLookup } from './format';
import type { PriceMap } from './livePrices';
import { closePosition, reloadTradingData, tradingKeys } from './queries';
import { failureNotice, orderNotice } from './tradeNotices';

/** docs/screens.md#closing-a-position texts of closing a position. */
export const CLOSE_TEXT = {
  confirm: 'Are you sure you want to close this position?',
  failed: 'Failed to close position',
  unexpected: 'An error occurred while closing the position',
} as const;

/**
 * Closing a position (docs/screens.md#closing-a-position), on the pair page and the dashboard alike: asks
 * for confirmation, reports which position is closing (its button reads Closing...), sends
 * the price the trader saw (a long closes at the bid, a short at the ask), reloads the data
 * afterwards, and reports the outcome in a notice with the docs/screens.md#error-texts texts.
 * `lots` closes part of it (docs/orders.md#partial-close); left out or the whole size, all of it.
 */
export function useClosePosition(prices: PriceMap): {
  closingId: number | null;
  close(position: PositionDto, lots?: number): Promise<void>;
} {
  const queryClient = useQueryClient();
  const notices = useNotices();
  const [closingId, setClosingId] = useState<number | null>(null);
  async function close(position: PositionDto, lots?: number) {
    if (closingId !== null) return;
    if (!window.confirm(CLOSE_TEXT.confirm)) return;
    const quote = prices[position.fx_pair_symbol];
    const seenPrice = quote ? (position.quantity > 0 ? quote.bid : quote.ask) : undefined;
    // The whole size is the default close: sent without a quantity, as before partial closes existed.
    const part = lots !== undefined && Dec.from(lots).lt(Dec.from(position.quantity).abs()) ? lots : undefined;
    setClosingId(position.id);
    try {
      const answer = await closePosition(position.id, seenPrice, part);
      const pairs = queryClient.getQueryData<PlatformDataDto>(tradingKeys.platformData)?.fx_pairs;
      const notice = orderNotice(answer.order, digitsLookup(pairs), answer.position);
      if (notice) notices.notify(notice);
    } catch (err) {
      notices.notify(failureNotice(err, 'closing position', CLOSE_TEXT.failed, CLOSE_TEXT.unexpected), { replace: true });
    } finally {
      setClosingId(null);
      void reloadTradingData(queryClient);
    }
  }
  return { closingId, close };
}
