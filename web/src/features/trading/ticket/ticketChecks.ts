import {
  Dec,
  MAX_GTD_DAYS,
  type OrderProblem,
  type OrderSide,
  orderProblemMessage,
  type PendingOrderType,
  pendingPriceProblem,
  type QuoteTerms,
  TRAILING_STOP_MAX_PIPS,
  TRAILING_STOP_MIN_PIPS,
} from '@pipdesk/contract';
import { type ProtectionJudge, protectionSideTexts, readExpiry, readPrice } from '../orderRulesText';

// The order ticket's checks before submit (docs/screens.md#order-ticket): the contract's rules
// (docs/orders.md#validation) in the server's words after the field's label, and the ticket's
// own prompts for what is not typed yet. Pure: the caller passes the prices and the clock.

export const TICKET_TEXT = {
  enterPrice: 'Enter a price',
  enterPips: 'Enter a distance in pips',
  noEntry: 'Waiting for a price to measure the pips from',
  positive: orderProblemMessage({ code: 'PRICE_NOT_POSITIVE' }),
  chooseExpiry: 'Choose when the order expires',
  expiryPast: `Expiry ${orderProblemMessage({ code: 'EXPIRY_PAST' })}`,
  expiryFar: `Expiry ${orderProblemMessage({ code: 'EXPIRY_TOO_FAR', maxDays: MAX_GTD_DAYS })}`,
  // The spec's one line for every trailing problem (docs/screens.md#order-ticket).
  trailing: `Trailing stop must be a whole number of pips from ${TRAILING_STOP_MIN_PIPS} to ${TRAILING_STOP_MAX_PIPS}`,
} as const;

export type Parsed = { value: Dec; error?: undefined } | { value?: undefined; error: string };

/** A typed price: a positive number with at most the pair's digits (docs/orders.md#validation). */
export function parsePrice(text: string, label: string, digits: number): Parsed {
  const read = readPrice(text, digits);
  if (read.kind === 'empty') return { error: TICKET_TEXT.enterPrice };
  if (read.kind === 'invalid') return { error: `${label} ${read.problem}` };
  return { value: read.value };
}

/** A typed distance in pips: positive, to a tenth of a pip (a pipette). */
export function parsePips(text: string, label: string): Parsed {
  const t = text.trim();
  if (t === '') return { error: TICKET_TEXT.enterPips };
  if (!/^\d*\.?\d*$/.test(t) || t === '.') return { error: `${label} must be a number of pips` };
  const value = Dec.from(t);
  if (value.sign() <= 0) return { error: `${label} ${TICKET_TEXT.positive}` };
  if (!value.round(1, 'down').eq(value)) return { error: `${label} must be in tenths of a pip` };
  return { value };
}

/**
 * A pending price on the side of the market that would fill at once, worded after its label
 * ("Limit Price of a BUY LIMIT must be below the ask (1.10020)"); null when it is on the right side.
 */
export function pendingPriceError(
  label: string,
  type: PendingOrderType,
  side: OrderSide,
  price: Dec,
  quote: QuoteTerms,
  digits: number,
): string | null {
  const problem = pendingPriceProblem(type, side, price, quote, digits);
  return problem ? `${label} of ${orderProblemMessage(problem)}` : null;
}

/** Stop loss and take profit on the wrong side of what judges them, worded after their labels. */
export function protectionSideErrors(
  protection: { stopLoss: Dec | null; takeProfit: Dec | null },
  judge: ProtectionJudge,
): { stopLoss?: string; takeProfit?: string } {
  const sides = protectionSideTexts(protection, judge);
  return {
    ...(sides.stopLoss ? { stopLoss: `Stop Loss ${sides.stopLoss}` } : {}),
    ...(sides.takeProfit ? { takeProfit: `Take Profit ${sides.takeProfit}` } : {}),
  };
}

/** The ticket's words for an expiry problem: a missing and an unreadable one ask to choose. */
function expiryText(problem: OrderProblem): string {
  if (problem.code === 'EXPIRY_REQUIRED' || problem.code === 'EXPIRY_INVALID') return TICKET_TEXT.chooseExpiry;
  return `Expiry ${orderProblemMessage(problem)}`;
}

/** docs/orders.md#validation: GTD needs an expiry after now and at most 90 days ahead. */
export function expiryProblem(text: string, now: number): string | null {
  const expiry = readExpiry(text, now);
  return 'problem' in expiry ? expiryText(expiry.problem) : null;
}
