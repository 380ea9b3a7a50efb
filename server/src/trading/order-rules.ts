import {
  Dec,
  expiryProblem,
  type OrderProblem,
  type OrderSide,
  orderProblemMessage,
  type PendingOrderType,
  type ProtectionReference,
  pendingPriceProblem,
  priceProblem,
  protectionSideProblems,
  type TimeInForce,
} from '@pipdesk/contract';
import { errors } from '../errors.js';
import type { Pair } from '../market/index.js';
import type { StoredProtection } from './execution.js';
import { type ExactQuote, priceToE10 } from './math.js';

// The validation rules of pending orders and protection (docs/orders.md#validation): the
// contract's rule functions, each problem a 400 naming the field in the words the web shows too.
// Callers check before anything is stored.

export const fieldError = (field: string, message: string) => errors.validation(`${field}: ${message}`, [{ field, message }]);

/** The 400 of a broken rule: the field's name, then the contract's words for the problem. */
const problemError = (field: string, problem: OrderProblem) => fieldError(field, orderProblemMessage(problem));

/** A price the trader sends: positive, with at most the pair's digits. */
export function exactPrice(pair: Pair, field: string, value: number): Dec {
  const problem = priceProblem(value, pair.digits);
  if (problem) throw problemError(field, problem);
  return Dec.from(value);
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

/** How the callers name the price protection is judged by, as the contract's reference. */
const REFERENCE_OF = { 'the bid': 'bid', 'the ask': 'ask', 'the entry price': 'entry' } as const satisfies Record<
  string,
  ProtectionReference
>;

/**
 * Protection against the price it is judged by (`reference`, described as `what`): a LONG
 * needs SL < reference < TP, a SHORT TP < reference < SL. `digits` (the pair's) writes the
 * reference in the message as the web shows it ("1.10000", docs/screens.md#formatting).
 */
export function checkProtection(
  long: boolean,
  reference: Dec,
  p: ProtectionValues,
  what: keyof typeof REFERENCE_OF,
  digits: number,
): void {
  const problems = protectionSideProblems(p, {
    long,
    reference,
    against: REFERENCE_OF[what],
    digits,
  });
  if (problems.stopLoss) throw problemError('stop_loss', problems.stopLoss);
  if (problems.takeProfit) throw problemError('take_profit', problems.takeProfit);
}

/**
 * A pending order's price against the current quote: a BUY LIMIT below the ask, a SELL LIMIT
 * above the bid, a BUY STOP above the ask, a SELL STOP below the bid (a STOP_LIMIT's trigger
 * as a STOP). Otherwise it would be marketable now: that is a market order. `digits` as for
 * `checkProtection`.
 */
export function checkPendingPrice(type: PendingOrderType, side: OrderSide, price: Dec, quote: ExactQuote, digits: number): void {
  const problem = pendingPriceProblem(type, side, price, quote, digits);
  if (problem) throw problemError('price', problem);
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
  const problem = expiryProblem(timeInForce, expiresAt, now);
  if (problem) throw problemError('expires_at', problem);
  return timeInForce === 'GTC' ? null : expiresAt;
}
