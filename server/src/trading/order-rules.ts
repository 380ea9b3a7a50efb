import { Dec, MAX_GTD_DAYS, type OrderSide, type PendingOrderType, type TimeInForce } from '@pipdesk/contract';
import { errors } from '../errors.js';
import type { Pair } from '../market/index.js';
import type { StoredProtection } from './execution.js';
import { type ExactQuote, priceToE10 } from './math.js';

// The validation rules of pending orders and protection (docs/orders.md#validation): pure
// functions, each failure a 400 naming the field. Callers check before anything is stored.

export const fieldError = (field: string, message: string) => errors.validation(`${field}: ${message}`, [{ field, message }]);

const DAY_MS = 86_400_000;

/** A price the trader sends: positive, with at most the pair's digits. */
export function exactPrice(pair: Pair, field: string, value: number): Dec {
  if (!Number.isFinite(value) || value <= 0) throw fieldError(field, 'must be greater than 0');
  const price = Dec.from(value);
  // A number too small for the exact type (1e-300) converts to 0: it is no price at all.
  if (price.sign() <= 0) throw fieldError(field, 'must be greater than 0');
  if (!price.round(pair.digits, 'down').eq(price)) throw fieldError(field, `must have at most ${pair.digits} decimals`);
  return price;
}

/** Protection as the rules see it: exact prices, a distance in whole pips; null for none. */
export interface ProtectionValues {
  stopLoss: Dec | null;
  takeProfit: Dec | null;
  trailingStopPips: number | null;
}

export const NO_PROTECTION_VALUES: ProtectionValues = { stopLoss: null, takeProfit: null, trailingStopPips: null };

/** Reads the protection fields of a request (undefined and null are none); prices positive with the pair's digits. */
export function protectionValues(
  pair: Pair,
  input: {
    stop_loss?: number | null | undefined;
    take_profit?: number | null | undefined;
    trailing_stop_pips?: number | null | undefined;
  },
): ProtectionValues {
  return {
    stopLoss: input.stop_loss == null ? null : exactPrice(pair, 'stop_loss', input.stop_loss),
    takeProfit: input.take_profit == null ? null : exactPrice(pair, 'take_profit', input.take_profit),
    trailingStopPips: input.trailing_stop_pips ?? null,
  };
}

/** As stored: prices × 10^10. */
export function storedProtectionOf(p: ProtectionValues): StoredProtection {
  return {
    stop_loss_e10: p.stopLoss === null ? null : priceToE10(p.stopLoss),
    take_profit_e10: p.takeProfit === null ? null : priceToE10(p.takeProfit),
    trailing_stop_pips: p.trailingStopPips,
  };
}

export function hasProtectionValues(p: ProtectionValues): boolean {
  return p.stopLoss !== null || p.takeProfit !== null || p.trailingStopPips !== null;
}

/**
 * Protection against the price it is judged by (`reference`, described as `what`): a LONG
 * needs SL < reference < TP, a SHORT TP < reference < SL.
 */
export function checkProtection(long: boolean, reference: Dec, p: ProtectionValues, what: string): void {
  const side = long ? 'a long position' : 'a short position';
  if (p.stopLoss !== null && (long ? !p.stopLoss.lt(reference) : !p.stopLoss.gt(reference))) {
    throw fieldError('stop_loss', `must be ${long ? 'below' : 'above'} ${what} (${reference.toString()}) for ${side}`);
  }
  if (p.takeProfit !== null && (long ? !p.takeProfit.gt(reference) : !p.takeProfit.lt(reference))) {
    throw fieldError('take_profit', `must be ${long ? 'above' : 'below'} ${what} (${reference.toString()}) for ${side}`);
  }
}

/**
 * A pending order's price against the current quote: a BUY LIMIT below the ask, a SELL LIMIT
 * above the bid, a BUY STOP above the ask, a SELL STOP below the bid (a STOP_LIMIT's trigger
 * as a STOP). Otherwise it would be marketable now: that is a market order.
 */
export function checkPendingPrice(type: PendingOrderType, side: OrderSide, price: Dec, quote: ExactQuote): void {
  const stop = type !== 'LIMIT';
  const name = `a ${side} ${stop ? 'STOP' : 'LIMIT'}`;
  if (side === 'BUY') {
    const ok = stop ? price.gt(quote.ask) : price.lt(quote.ask);
    if (!ok) throw fieldError('price', `${name} must be ${stop ? 'above' : 'below'} the ask (${quote.ask.toString()})`);
  } else {
    const ok = stop ? price.lt(quote.bid) : price.gt(quote.bid);
    if (!ok) throw fieldError('price', `${name} must be ${stop ? 'below' : 'above'} the bid (${quote.bid.toString()})`);
  }
}

/** An ISO 8601 date-time as epoch ms; without a zone it is UTC (as the orders/ filters). */
export function parseInstant(text: string): number {
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
}

/**
 * Time in force: GTD needs `expires_at` after `now` and at most 90 days ahead; GTC forbids it.
 * Returns the expiry to store (null for GTC).
 */
export function checkExpiry(timeInForce: TimeInForce, expiresAt: number | null, now: number): number | null {
  if (timeInForce === 'GTC') {
    if (expiresAt !== null) throw fieldError('expires_at', 'only a GTD order has an expiry');
    return null;
  }
  if (expiresAt === null) throw fieldError('expires_at', 'is required for a GTD order');
  if (expiresAt <= now) throw fieldError('expires_at', 'must be in the future');
  if (expiresAt > now + MAX_GTD_DAYS * DAY_MS) throw fieldError('expires_at', `must be at most ${MAX_GTD_DAYS} days ahead`);
  return expiresAt;
}
