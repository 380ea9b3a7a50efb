import type { ModifyOrderRequest, OrderResponse, PendingOrderType } from '@pipdesk/contract';
import { errors } from '../../errors.js';
import { checkStopLossKept } from '../challenge.js';
import type { TradingDeps } from '../deps.js';
import { publishEngineChanges, publishOrderUpdate } from '../events.js';
import { storedProtection } from '../execution.js';
import { priceFromE10, priceToE10 } from '../math.js';
import {
  checkExpiry,
  checkPendingPrice,
  checkProtection,
  exactPrice,
  fieldError,
  type ProtectionValues,
  parseInstant,
  storedProtectionOf,
} from '../order-rules.js';
import { orderDto, restingOrderState } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, OrderId, UserId } from '../types.js';
import { ownPendingOrder } from './own-pending-order.js';

export type ModifyOrderInput = ModifyOrderRequest;

const fromE10 = (e10: number | null) => (e10 === null ? null : priceFromE10(Number(e10)));

/**
 * Changes a PENDING order of the trader (docs/orders.md#modify-and-cancel): fields left out keep
 * their value, null clears protection; the order after the change meets every rule of a new
 * one (a changed price is checked against the current quote). 404 when it is not the trader's,
 * 409 unless PENDING, 400 naming the field (nothing stored), 503 without a price to check a
 * new price against.
 */
export async function modifyOrder(
  deps: Pick<TradingDeps, 'writes' | 'pairs' | 'pricing' | 'clock' | 'bus' | 'log' | 'metrics' | 'challengeRules'>,
  userId: UserId,
  orderId: OrderId,
  input: ModifyOrderInput,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
): Promise<OrderResponse> {
  if (!Number.isSafeInteger(orderId) || orderId <= 0) throw errors.orderNotFound();
  const outcome = await deps.writes.run(async (trx) => {
    const { account, row } = await ownPendingOrder(trx, userId, orderId, 'MODIFY', accountId);
    checkStopLossKept(deps.challengeRules, Number(account.id), input.stop_loss === null);
    const pair = deps.pairs.get(row.symbol);
    if (!pair) throw errors.unavailable(`Currency pair ${row.symbol} is missing from the catalogue`);
    const type = row.order_type as PendingOrderType;
    const now = deps.clock.now();

    let price = fromE10(row.price_e10)!;
    if (input.price !== undefined) {
      if (type === 'STOP_LIMIT' && row.triggered_at !== null) {
        throw fieldError('price', 'the stop of this order has already triggered: change its limit_price instead');
      }
      price = exactPrice(pair, 'price', input.price);
      const quote = deps.pricing.quote(pair.symbol);
      if (!quote) throw errors.unavailable(`No price yet for ${pair.symbol}: a new price is checked against the current price`);
      checkPendingPrice(type, row.side, price, quote, pair.digits);
    }
    let limitPrice = fromE10(row.limit_price_e10);
    if (input.limit_price !== undefined) {
      if (type !== 'STOP_LIMIT') throw fieldError('limit_price', 'only a STOP_LIMIT order has a limit price');
      limitPrice = exactPrice(pair, 'limit_price', input.limit_price);
    }

    const timeInForce = input.time_in_force ?? row.time_in_force;
    let expiresAt: number | null;
    if (input.expires_at !== undefined) {
      expiresAt = input.expires_at === null ? null : parseInstant(input.expires_at);
      checkExpiry(timeInForce, expiresAt, now);
    } else if (timeInForce === 'GTC') {
      // Switching to GTC drops the expiry.
      expiresAt = null;
    } else {
      expiresAt = row.expires_at === null ? null : Number(row.expires_at);
      // Switching to GTD needs an expiry; a GTD order keeps its own (the engine expires it when due).
      if (row.time_in_force !== 'GTD' || expiresAt === null) expiresAt = checkExpiry('GTD', expiresAt, now);
    }

    const kept = storedProtection(row);
    const protection: ProtectionValues = {
      stopLoss:
        input.stop_loss === undefined
          ? fromE10(kept.stop_loss_e10)
          : input.stop_loss === null
            ? null
            : exactPrice(pair, 'stop_loss', input.stop_loss),
      takeProfit:
        input.take_profit === undefined
          ? fromE10(kept.take_profit_e10)
          : input.take_profit === null
            ? null
            : exactPrice(pair, 'take_profit', input.take_profit),
      trailingStopPips: input.trailing_stop_pips === undefined ? kept.trailing_stop_pips : input.trailing_stop_pips,
    };
    checkProtection(row.side === 'BUY', limitPrice ?? price, protection, 'the entry price', pair.digits);

    const updated = await repo.updatePendingOrder(trx, orderId, {
      price_e10: priceToE10(price),
      limit_price_e10: limitPrice === null ? null : priceToE10(limitPrice),
      time_in_force: timeInForce,
      expires_at: expiresAt,
      ...storedProtectionOf(protection),
      updated_at: now,
    });
    // Serialized with every other writer of the account, so this cannot happen; the guard stays.
    if (!updated) throw errors.orderNotPending('no longer PENDING');
    return { account, pair, order: updated };
  });
  const { account, pair, order } = outcome;
  const dto = orderDto(order, pair);
  publishOrderUpdate(deps, { userId, accountId: Number(account.id), order: dto });
  publishEngineChanges(deps, [{ kind: 'order', order: restingOrderState(order, userId) }]);
  return { order: dto };
}
