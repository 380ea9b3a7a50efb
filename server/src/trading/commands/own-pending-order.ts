import type { Kysely } from 'kysely';
import { lockTraderAccount, type TradingAccountRow } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import { errors } from '../../errors.js';
import { assertOrdersOpen } from '../challenge.js';
import { allows, type OrderEvent } from '../order-status.js';
import * as repo from '../repo.js';
import type { AccountId, OrderId, UserId } from '../types.js';

/**
 * Inside a write transaction: locks the account the call names (else the trader's primary one)
 * and reads one of its orders that `event` may still happen to. 404 when the order is not that
 * account's (or there is no account), 409 when the status table forbids the event (it is no longer PENDING).
 */
export async function ownPendingOrder(
  trx: Kysely<Database>,
  userId: UserId,
  orderId: OrderId,
  event: OrderEvent,
  accountId: AccountId | undefined,
  /** `evaluation`: the cancel of an ended attempt's orders, on its read-only account. */
  by: 'client' | 'evaluation' = 'client',
): Promise<{ account: TradingAccountRow; row: repo.OrderRow }> {
  const account = await lockTraderAccount(trx, userId, accountId);
  if (!account) throw errors.orderNotFound();
  if (by === 'client') assertOrdersOpen(account);
  const row = await repo.findOrder(trx, Number(account.id), orderId);
  if (!row) throw errors.orderNotFound();
  // Only PENDING allows these (PARTIALLY_FILLED would by the table, but FX fills are whole: it never exists).
  if (!allows(row.status, event)) throw errors.orderNotPending(row.status);
  return { account, row };
}
