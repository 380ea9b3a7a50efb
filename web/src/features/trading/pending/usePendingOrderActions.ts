import type { ModifyOrderRequest, OrderDto, PairPageDto, PlatformDataDto } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, errorMessage } from '../../../api';
import { useNotices } from '../../../notices/NoticeProvider';
import { cancelOrder, modifyOrder, reloadTradingData, tradingKeys, withPendingOrder } from '../queries';
import { orderModifiedNotice, orderNotice } from '../tradeNotices';

/** What a failed cancel or change says when the server gives no reason. */
export const PENDING_TEXT = {
  cancelFailed: 'Failed to cancel order',
  modifyFailed: 'Failed to modify order',
} as const;

/** The outcome of a Modify: saved, refused with a 400 the form shows, or failed otherwise (a notice). */
export type ModifyOutcome = { ok: true } | { ok: false; badRequest: string | null };

/**
 * Cancel and Modify of a pending order (docs/orders.md#modify-and-cancel). The answer updates the
 * pending lists at once and reports in a notice keyed as the socket's `order_update` for the
 * same change, so the trader's own click shows once.
 */
export function usePendingOrderActions(digits: (symbol: string) => number) {
  const queryClient = useQueryClient();
  const notices = useNotices();
  const [cancellingId, setCancellingId] = useState<number | null>(null);

  function applyOrder(order: OrderDto) {
    queryClient.setQueryData<PlatformDataDto>(tradingKeys.platformData, (d) =>
      d ? { ...d, pending_orders: withPendingOrder(d.pending_orders, order) } : d,
    );
    queryClient.setQueriesData<PairPageDto>({ queryKey: tradingKeys.pairs }, (d) =>
      d && d.pair.symbol === order.fx_pair_symbol ? { ...d, pending_orders: withPendingOrder(d.pending_orders, order) } : d,
    );
  }

  async function cancel(order: OrderDto): Promise<void> {
    if (cancellingId !== null) return;
    setCancellingId(order.id);
    try {
      const answer = await cancelOrder(order.id);
      applyOrder(answer.order);
      const notice = orderNotice(answer.order, digits);
      if (notice) notices.notify(notice);
    } catch (err) {
      // 409: it filled, expired or was cancelled meanwhile; the reload shows what it became.
      notices.notify({ tone: 'error', title: PENDING_TEXT.cancelFailed, text: errorMessage(err, PENDING_TEXT.cancelFailed) });
    } finally {
      setCancellingId(null);
      void reloadTradingData(queryClient);
    }
  }

  async function modify(order: OrderDto, change: ModifyOrderRequest): Promise<ModifyOutcome> {
    try {
      const answer = await modifyOrder(order.id, change);
      applyOrder(answer.order);
      notices.notify(orderModifiedNotice(answer.order, digits));
      void reloadTradingData(queryClient);
      return { ok: true };
    } catch (err) {
      const message = errorMessage(err, PENDING_TEXT.modifyFailed);
      if (err instanceof ApiError && err.status === 400) return { ok: false, badRequest: message };
      notices.notify({ tone: 'error', title: PENDING_TEXT.modifyFailed, text: message });
      void reloadTradingData(queryClient);
      return { ok: false, badRequest: null };
    }
  }

  return { cancellingId, cancel, modify };
}
