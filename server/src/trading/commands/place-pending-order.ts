import type { Dec, OrderResponse, PlacePendingOrderRequest } from '@pipdesk/contract';
import { type AppError, errors } from '../../errors.js';
import { checkChallengeOrder } from '../challenge.js';
import type { TradingDeps } from '../deps.js';
import { publishEngineChanges, publishOrderUpdate } from '../events.js';
import { priceToE10 } from '../math.js';
import {
  checkExpiry,
  checkPendingPrice,
  checkProtection,
  exactPrice,
  fieldError,
  parseInstant,
  protectionValues,
  storedProtectionOf,
} from '../order-rules.js';
import { INITIAL_ORDER_STATUS, transition } from '../order-status.js';
import { lotsFromCentilotsNumber, orderDto, restingOrderState } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, UserId } from '../types.js';
import { placeWithKey } from './keyed-placement.js';
import { protectionFingerprint, validateOrder } from './place-market-order.js';

export type PlacePendingOrderInput = PlacePendingOrderRequest;
export type PlacePendingOrderResult = OrderResponse;

/**
 * Places a LIMIT, STOP or STOP_LIMIT order that rests PENDING until the trigger engine fills
 * it (docs/orders.md). No margin is reserved: it is checked when the order fills. Throws
 * AppError: 400 for any rule of docs/orders.md#validation (nothing stored), 503 without a
 * price for the pair, 409 no trading account / key in flight, 422 on a suspended account (the
 * order is stored REJECTED) or a key reused with another body.
 */
export async function placePendingOrder(
  deps: Pick<
    TradingDeps,
    'writes' | 'inFlight' | 'pairs' | 'pricing' | 'clock' | 'keyClock' | 'bus' | 'log' | 'metrics' | 'challengeRules'
  >,
  userId: UserId,
  input: PlacePendingOrderInput,
  idempotencyKey?: string,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
): Promise<{ response: PlacePendingOrderResult; replayed: boolean }> {
  // The rules that need neither the quote nor the clock first: a retry of the same body meets them the same way.
  const { pair, quantityCentilots } = validateOrder(deps.pairs, input);
  const type = input.order_type;
  const price = exactPrice(pair, 'price', input.price);
  let limitPrice: Dec | null = null;
  if (type === 'STOP_LIMIT') {
    if (input.limit_price === undefined) throw fieldError('limit_price', 'is required for a STOP_LIMIT order');
    limitPrice = exactPrice(pair, 'limit_price', input.limit_price);
  } else if (input.limit_price !== undefined) {
    throw fieldError('limit_price', 'only a STOP_LIMIT order has a limit price');
  }
  const timeInForce = input.time_in_force ?? 'GTC';
  const expiresAt = input.expires_at === undefined ? null : parseInstant(input.expires_at);
  if (timeInForce === 'GTC' && expiresAt !== null) throw fieldError('expires_at', 'only a GTD order has an expiry');
  const protection = protectionValues(pair, input);
  // A pending order's protection is judged by its entry: its price, or a STOP_LIMIT's limit.
  checkProtection(input.side === 'BUY', limitPrice ?? price, protection, 'the entry price', pair.digits);

  return placeWithKey(
    deps,
    userId,
    idempotencyKey,
    () => ({
      call: 'place-pending-order',
      symbol: pair.symbol,
      side: input.side,
      order_type: type,
      quantity: lotsFromCentilotsNumber(quantityCentilots),
      price: price.toString(),
      limit_price: limitPrice?.toString() ?? null,
      time_in_force: timeInForce,
      expires_at: expiresAt,
      ...protectionFingerprint(protection),
    }),
    {
      place: async (trx, account) => {
        // A pending order may fill into a new position at any time: it carries its stop loss itself.
        checkChallengeOrder(deps.challengeRules, Number(account.id), {
          quantityCentilots,
          hasStopLoss: protection.stopLoss !== null,
          onlyReduces: false,
        });
        const now = deps.clock.now();
        checkExpiry(timeInForce, expiresAt, now);
        const quote = deps.pricing.quote(pair.symbol);
        if (!quote)
          throw errors.unavailable(`No price yet for ${pair.symbol}: a pending order is checked against the current price`);
        checkPendingPrice(type, input.side, price, quote, pair.digits);

        const active = account.status === 'ACTIVE';
        const row = {
          account_id: Number(account.id),
          pair_id: pair.id,
          symbol: pair.symbol,
          order_type: type,
          side: input.side,
          quantity_centilots: quantityCentilots,
          filled_quantity_centilots: 0,
          price_e10: priceToE10(price),
          average_fill_price_e10: null,
          status: active ? INITIAL_ORDER_STATUS : transition(INITIAL_ORDER_STATUS, 'REJECT'),
          rejection_reason: active ? null : 'Trading account is not active',
          reason: 'client' as const,
          position_id: null,
          client_price_e10: null,
          submitted_at: now,
          created_at: now,
          updated_at: now,
          time_in_force: timeInForce,
          expires_at: expiresAt,
          limit_price_e10: limitPrice === null ? null : priceToE10(limitPrice),
          triggered_at: null,
          ...storedProtectionOf(protection),
        };
        const order = { id: await repo.insertOrder(trx, row), ...row };
        const dto = orderDto(order, pair);
        const error: AppError | null = active
          ? null
          : errors.orderRejected('ACCOUNT_NOT_ACTIVE', 'Trading account is not active', dto);
        return { account, order, dto, error };
      },
      keyAnswer: ({ dto, error }) => (error ? { error } : { data: { order: dto } }),
      answer: ({ account, order, dto, error }): PlacePendingOrderResult => {
        publishOrderUpdate(deps, { userId, accountId: Number(account.id), order: dto });
        if (error) throw error;
        publishEngineChanges(deps, [{ kind: 'order', order: restingOrderState(order, userId) }]);
        return { order: dto };
      },
    },
    accountId,
  );
}
