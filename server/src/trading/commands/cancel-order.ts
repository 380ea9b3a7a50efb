import type { OrderResponse } from '@pipdesk/contract';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import { publishEngineChanges, publishOrderUpdate } from '../events.js';
import { transition } from '../order-status.js';
import { orderDto } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, OrderId, UserId } from '../types.js';
import { ownPendingOrder } from './own-pending-order.js';

/**
 * Cancels a PENDING order of the trader: PENDING → CANCELLED through the status table, guarded
 * by `… WHERE status = 'PENDING'`, so a cancel racing a trigger has exactly one winner.
 * 404 when it is not the trader's, 409 unless PENDING.
 */
export async function cancelOrder(
  deps: Pick<TradingDeps, 'writes' | 'pairs' | 'clock' | 'bus' | 'log' | 'metrics'>,
  userId: UserId,
  orderId: OrderId,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
  /** `evaluation`: an ended attempt's orders, cancelled on its read-only account (docs/evaluations.md). */
  by: 'client' | 'evaluation' = 'client',
): Promise<OrderResponse> {
  if (!Number.isSafeInteger(orderId) || orderId <= 0) throw errors.orderNotFound();
  const outcome = await deps.writes.run(async (trx) => {
    const { account, row } = await ownPendingOrder(trx, userId, orderId, 'CANCEL', accountId, by);
    const settlement = {
      status: transition(row.status, 'CANCEL'),
      filled_quantity_centilots: Number(row.filled_quantity_centilots),
      average_fill_price_e10: row.average_fill_price_e10,
      rejection_reason: row.rejection_reason,
      position_id: row.position_id,
      updated_at: deps.clock.now(),
    };
    if (!(await repo.settlePendingOrder(trx, orderId, settlement))) throw errors.orderNotPending('no longer PENDING');
    return { account, order: { ...row, ...settlement } };
  });
  const { account, order } = outcome;
  const dto = orderDto(order, deps.pairs.get(order.symbol));
  publishOrderUpdate(deps, { userId, accountId: Number(account.id), order: dto });
  publishEngineChanges(deps, [{ kind: 'order_gone', orderId, symbol: order.symbol }]);
  return { order: dto };
}
