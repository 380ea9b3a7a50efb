import {
  Dec,
  type ModifyOrderRequest,
  type OrderDto,
  orderProblemMessage,
  pendingPriceProblem,
  type TimeInForce,
} from '@pipdesk/contract';
import { protectionChange, readExpiry, readPrice, readProtection, samePrice } from '../orderRulesText';

// A pending order's live figures and the checks the server makes on a change
// (docs/orders.md#validation, docs/orders.md#modify-and-cancel), made before sending with the
// contract's rules and words, so the form reads what the server would answer.

/** The bid and ask a pending order is judged by. */
export interface Quote {
  bid: number;
  ask: number;
}

/**
 * The price a pending order waits for: its `price`, or for a STOP_LIMIT whose stop has
 * triggered, its `limit_price` (it rests as a limit then, docs/order-engine.md).
 */
export function restingPrice(order: Pick<OrderDto, 'price' | 'limit_price' | 'triggered_at'>): number | null {
  return order.triggered_at && order.limit_price !== null ? order.limit_price : order.price;
}

/**
 * How far the market is from the order, in pips (one decimal): from the ask for a BUY, from the
 * bid for a SELL, the prices its triggers compare (docs/order-engine.md). Null without a quote.
 */
export function pipDistance(
  order: Pick<OrderDto, 'side' | 'price' | 'limit_price' | 'triggered_at'>,
  quote: Quote | undefined,
  pipSize: number,
): number | null {
  const target = restingPrice(order);
  if (!quote || target === null || !(pipSize > 0)) return null;
  const market = order.side === 'BUY' ? quote.ask : quote.bid;
  return Dec.from(target).minus(market).abs().div(pipSize).toNumber(1);
}

/** The texts of the Modify form. */
export interface OrderDraft {
  price: string;
  limitPrice: string;
  timeInForce: TimeInForce;
  /** A `datetime-local` value, in the trader's zone. */
  expiresAt: string;
  stopLoss: string;
  takeProfit: string;
  trailingStopPips: string;
}

export type OrderField = keyof OrderDraft;

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a `datetime-local` value in the trader's zone ("2026-04-01T14:30"). */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The form's starting texts: the order's values, empty for none. */
export function orderDraftOf(order: OrderDto, digits: number): OrderDraft {
  const price = (v: number | null) => (v === null ? '' : v.toFixed(digits));
  return {
    price: price(order.price),
    limitPrice: price(order.limit_price),
    timeInForce: order.time_in_force,
    expiresAt: order.expires_at ? toLocalInput(order.expires_at) : '',
    stopLoss: price(order.stop_loss),
    takeProfit: price(order.take_profit),
    trailingStopPips: order.trailing_stop_pips === null ? '' : String(order.trailing_stop_pips),
  };
}

export interface OrderChangeCheck {
  /** The PATCH body: only what changed (null clears protection); null when nothing changed or a problem remains. */
  change: ModifyOrderRequest | null;
  problems: Partial<Record<OrderField, string>>;
}

export interface OrderChangeContext {
  digits: number;
  /** The pair's current quote; without one, the price is left to the server. */
  quote: Quote | undefined;
  /** Epoch ms, for the expiry rules. */
  now: number;
}

/**
 * Checks the Modify form as the server will: prices with the pair's digits; a new price on the
 * right side of the market; a STOP_LIMIT keeps a limit, and once triggered only its limit moves;
 * GTD needs an expiry in the future and at most 90 days ahead; protection on the right side of
 * the order's entry (`price`, or `limit_price` for a STOP_LIMIT; a BUY's as a long's); a
 * trailing distance of 5 to 1,000 whole pips.
 */
export function checkOrderChange(order: OrderDto, draft: OrderDraft, ctx: OrderChangeContext): OrderChangeCheck {
  const { digits } = ctx;
  const initial = orderDraftOf(order, digits);
  const problems: Partial<Record<OrderField, string>> = {};
  const change: ModifyOrderRequest = {};
  const stopLimit = order.order_type === 'STOP_LIMIT';

  const price = readPrice(draft.price, digits);
  let entryPrice: Dec | null = order.price === null ? null : Dec.from(order.price);
  if (!order.triggered_at) {
    if (price.kind === 'empty') problems.price = 'is required';
    else if (price.kind === 'invalid') problems.price = price.problem;
    else {
      entryPrice = price.value;
      if (!samePrice(price.value, order.price)) {
        const problem = ctx.quote ? pendingPriceProblem(order.order_type, order.side, price.value, ctx.quote, digits) : null;
        if (problem) problems.price = orderProblemMessage(problem);
        else change.price = price.value.toNumber();
      }
    }
  }

  if (stopLimit) {
    const limit = readPrice(draft.limitPrice, digits);
    if (limit.kind === 'empty') problems.limitPrice = orderProblemMessage({ code: 'LIMIT_PRICE_REQUIRED' });
    else if (limit.kind === 'invalid') problems.limitPrice = limit.problem;
    else {
      entryPrice = limit.value;
      if (!samePrice(limit.value, order.limit_price)) change.limit_price = limit.value.toNumber();
    }
  }

  if (draft.timeInForce !== order.time_in_force) change.time_in_force = draft.timeInForce;
  if (draft.timeInForce === 'GTD' && (draft.timeInForce !== order.time_in_force || draft.expiresAt !== initial.expiresAt)) {
    const expiry = readExpiry(draft.expiresAt, ctx.now);
    if ('problem' in expiry) problems.expiresAt = orderProblemMessage(expiry.problem);
    else change.expires_at = new Date(expiry.at).toISOString();
  }

  // A BUY's protection is judged as a long's, against the order's entry.
  const protection = readProtection(draft, { long: order.side === 'BUY', reference: entryPrice, against: 'entry', digits });
  Object.assign(problems, protection.problems);
  Object.assign(change, protectionChange(protection, order));

  if (Object.keys(problems).length > 0) return { change: null, problems };
  return { change: Object.keys(change).length > 0 ? change : null, problems };
}
