import { Dec, type DecInput } from './decimal.js';
import {
  MAX_GTD_DAYS,
  type OrderSide,
  type OrderType,
  type TimeInForce,
  TRAILING_STOP_MAX_PIPS,
  TRAILING_STOP_MIN_PIPS,
} from './trading.js';

// The validation rules of orders and protection (docs/orders.md#validation), once for both ends:
// the server turns a problem into its 400, the order ticket, the Modify form and the protection
// editor show it beside the field. Each rule returns a problem value (a code and what its words
// need) and `orderProblemMessage` words it, so the two ends cannot drift apart.

const DAY_MS = 86_400_000;

/** What a stop loss or take profit is judged against (docs/orders.md#validation). */
export type ProtectionReference = 'bid' | 'ask' | 'entry';

/**
 * One broken rule. A problem names no field: the caller knows which field it checked and puts
 * the field's name (server) or label (web) before the words.
 */
export type OrderProblem =
  /** Typed text that is no number (the web's fields; the server's schema says the same). */
  | { code: 'NOT_A_NUMBER' }
  | { code: 'PRICE_NOT_POSITIVE' }
  | { code: 'PRICE_DECIMALS'; digits: number }
  | { code: 'TRAILING_NOT_WHOLE' }
  | { code: 'TRAILING_TOO_SMALL'; min: number }
  | { code: 'TRAILING_TOO_LARGE'; max: number }
  /** A stop loss or take profit on the wrong side of `reference`, shown with the pair's `digits`. */
  | {
      code: 'STOP_LOSS_SIDE' | 'TAKE_PROFIT_SIDE';
      long: boolean;
      against: ProtectionReference;
      reference: Dec;
      digits: number;
    }
  /** A pending price on the side that would fill at once: `stop` for a STOP (or a STOP_LIMIT's trigger). */
  | { code: 'PENDING_PRICE_SIDE'; side: OrderSide; stop: boolean; quote: Dec; digits: number }
  | { code: 'LIMIT_PRICE_REQUIRED' }
  | { code: 'LIMIT_PRICE_NOT_ALLOWED' }
  | { code: 'EXPIRY_REQUIRED' }
  | { code: 'EXPIRY_NOT_ALLOWED' }
  | { code: 'EXPIRY_INVALID' }
  | { code: 'EXPIRY_PAST' }
  | { code: 'EXPIRY_TOO_FAR'; maxDays: number };

export type OrderProblemCode = OrderProblem['code'];

const REFERENCE_WORDS: Record<ProtectionReference, string> = { bid: 'the bid', ask: 'the ask', entry: 'the entry price' };

/**
 * The words of a problem, without the field: the server's 400 reads `${field}: ${words}`, the
 * web shows them after the field's label. Prices read with the pair's digits, as everywhere on
 * screen (docs/screens.md#formatting).
 */
export function orderProblemMessage(problem: OrderProblem): string {
  switch (problem.code) {
    case 'NOT_A_NUMBER':
      return 'must be a number';
    case 'PRICE_NOT_POSITIVE':
      return 'must be greater than 0';
    case 'PRICE_DECIMALS':
      return `must have at most ${problem.digits} decimals`;
    case 'TRAILING_NOT_WHOLE':
      return 'must be a whole number of pips';
    case 'TRAILING_TOO_SMALL':
      return `must be at least ${problem.min}`;
    case 'TRAILING_TOO_LARGE':
      return `must be at most ${problem.max}`;
    case 'STOP_LOSS_SIDE':
    case 'TAKE_PROFIT_SIDE': {
      // A long's stop is below, its target above; a short's the other way round.
      const below = (problem.code === 'STOP_LOSS_SIDE') === problem.long;
      const reference = `${REFERENCE_WORDS[problem.against]} (${problem.reference.toFixed(problem.digits)})`;
      return `must be ${below ? 'below' : 'above'} ${reference} for ${problem.long ? 'a long' : 'a short'} position`;
    }
    case 'PENDING_PRICE_SIDE': {
      const buy = problem.side === 'BUY';
      // A BUY LIMIT waits below the ask, a BUY STOP above it; a SELL's the other way round at the bid.
      const below = buy !== problem.stop;
      const name = `a ${problem.side} ${problem.stop ? 'STOP' : 'LIMIT'}`;
      return `${name} must be ${below ? 'below' : 'above'} the ${buy ? 'ask' : 'bid'} (${problem.quote.toFixed(problem.digits)})`;
    }
    case 'LIMIT_PRICE_REQUIRED':
      return 'is required for a STOP_LIMIT order';
    case 'LIMIT_PRICE_NOT_ALLOWED':
      return 'only a STOP_LIMIT order has a limit price';
    case 'EXPIRY_REQUIRED':
      return 'is required for a GTD order';
    case 'EXPIRY_NOT_ALLOWED':
      return 'only a GTD order has an expiry';
    case 'EXPIRY_INVALID':
      return 'must be a date and time';
    case 'EXPIRY_PAST':
      return 'must be in the future';
    case 'EXPIRY_TOO_FAR':
      return `must be at most ${problem.maxDays} days ahead`;
  }
}

/**
 * A price the trader gives (`price`, `limit_price`, `stop_loss`, `take_profit`): above 0 with at
 * most the pair's digits (5, or 3 for a JPY quote). A number too small for the exact type
 * (1e-300) reads as 0: it is no price at all.
 */
export function priceProblem(value: number | Dec, digits: number): OrderProblem | null {
  if (typeof value === 'number' && (!Number.isFinite(value) || value <= 0)) return { code: 'PRICE_NOT_POSITIVE' };
  const price = Dec.from(value);
  if (price.sign() <= 0) return { code: 'PRICE_NOT_POSITIVE' };
  if (!price.round(digits, 'down').eq(price)) return { code: 'PRICE_DECIMALS', digits };
  return null;
}

/** A trailing distance: a whole number of pips from 5 to 1,000 (docs/decisions.md). */
export function trailingPipsProblem(pips: number): OrderProblem | null {
  if (!Number.isInteger(pips)) return { code: 'TRAILING_NOT_WHOLE' };
  if (pips < TRAILING_STOP_MIN_PIPS) return { code: 'TRAILING_TOO_SMALL', min: TRAILING_STOP_MIN_PIPS };
  if (pips > TRAILING_STOP_MAX_PIPS) return { code: 'TRAILING_TOO_LARGE', max: TRAILING_STOP_MAX_PIPS };
  return null;
}

/** The problems of a stop loss and a take profit, each absent when it is fine. */
export interface ProtectionSideProblems {
  stopLoss?: OrderProblem;
  takeProfit?: OrderProblem;
}

/**
 * Stop loss and take profit against the price that judges them (docs/orders.md#validation): a
 * long needs stop loss < reference < take profit, a short take profit < reference < stop loss.
 * `against` names the reference (a market order's or position's closing price: the bid of a
 * long, the ask of a short; a pending order's entry); `digits` is the pair's, for the words.
 */
export function protectionSideProblems(
  protection: { stopLoss: Dec | null; takeProfit: Dec | null },
  judge: { long: boolean; reference: Dec; against: ProtectionReference; digits: number },
): ProtectionSideProblems {
  const { long, reference } = judge;
  const sideProblem = (code: 'STOP_LOSS_SIDE' | 'TAKE_PROFIT_SIDE'): OrderProblem => ({ code, ...judge });
  const out: ProtectionSideProblems = {};
  const { stopLoss, takeProfit } = protection;
  if (stopLoss !== null && (long ? !stopLoss.lt(reference) : !stopLoss.gt(reference)))
    out.stopLoss = sideProblem('STOP_LOSS_SIDE');
  if (takeProfit !== null && (long ? !takeProfit.gt(reference) : !takeProfit.lt(reference))) {
    out.takeProfit = sideProblem('TAKE_PROFIT_SIDE');
  }
  return out;
}

/**
 * A pending order's price against the current quote (docs/orders.md#validation): a BUY LIMIT
 * below the ask, a SELL LIMIT above the bid, a BUY STOP above the ask, a SELL STOP below the
 * bid, a STOP_LIMIT's trigger as a STOP. The other side would fill at once: that is a market
 * order. `type` is any order type so a stored order's can be passed; a MARKET is not judged.
 */
export function pendingPriceProblem(
  type: OrderType,
  side: OrderSide,
  price: Dec,
  quote: { bid: DecInput; ask: DecInput },
  digits: number,
): OrderProblem | null {
  if (type === 'MARKET') return null;
  const stop = type !== 'LIMIT';
  const market = Dec.from(side === 'BUY' ? quote.ask : quote.bid);
  const below = (side === 'BUY') !== stop;
  const ok = below ? price.lt(market) : price.gt(market);
  return ok ? null : { code: 'PENDING_PRICE_SIDE', side, stop, quote: market, digits };
}

/** docs/orders.md#validation: a STOP_LIMIT needs its limit price and no other type takes one. */
export function limitPriceProblem(type: OrderType, hasLimitPrice: boolean): OrderProblem | null {
  if (type === 'STOP_LIMIT') return hasLimitPrice ? null : { code: 'LIMIT_PRICE_REQUIRED' };
  return hasLimitPrice ? { code: 'LIMIT_PRICE_NOT_ALLOWED' } : null;
}

/**
 * Time in force (docs/orders.md#validation): GTD needs `expiresAt` (epoch ms; NaN when it could
 * not be read) after `now` and at most 90 days ahead; GTC forbids it.
 */
export function expiryProblem(timeInForce: TimeInForce, expiresAt: number | null, now: number): OrderProblem | null {
  if (timeInForce === 'GTC') return expiresAt === null ? null : { code: 'EXPIRY_NOT_ALLOWED' };
  if (expiresAt === null) return { code: 'EXPIRY_REQUIRED' };
  if (Number.isNaN(expiresAt)) return { code: 'EXPIRY_INVALID' };
  if (expiresAt <= now) return { code: 'EXPIRY_PAST' };
  if (expiresAt > now + MAX_GTD_DAYS * DAY_MS) return { code: 'EXPIRY_TOO_FAR', maxDays: MAX_GTD_DAYS };
  return null;
}
