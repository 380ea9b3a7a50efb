import {
  Dec,
  MAX_GTD_DAYS,
  type OrderSide,
  type OrderType,
  type QuoteTerms,
  TRAILING_STOP_MAX_PIPS,
  TRAILING_STOP_MIN_PIPS,
} from '@pipdesk/contract';

// The checks the server makes on prices, pending orders, expiry and protection
// (docs/orders.md#validation), made before sending by the order ticket, the Modify form and the
// protection editor. One implementation: each screen only words the result its own way.

const DAY_MS = 86_400_000;

/** What a price field holds: empty (none), a price, or a problem to show. */
export type PriceText = { kind: 'empty' } | { kind: 'price'; value: Dec } | { kind: 'invalid'; problem: string };

/** Reads a typed price: positive, with at most the pair's digits (as the server's `exactPrice`). */
export function readPrice(text: string, digits: number): PriceText {
  const t = text.trim();
  if (t === '') return { kind: 'empty' };
  if (!/^\d*\.?\d*$/.test(t) || t === '.') return { kind: 'invalid', problem: 'must be a number' };
  const value = Dec.from(t);
  if (value.sign() <= 0) return { kind: 'invalid', problem: 'must be greater than 0' };
  if (!value.round(digits, 'down').eq(value)) return { kind: 'invalid', problem: `must have at most ${digits} decimals` };
  return { kind: 'price', value };
}

/** What a trailing distance field holds: empty (none), whole pips, or a problem. */
export type PipsText = { kind: 'empty' } | { kind: 'pips'; value: number } | { kind: 'invalid'; problem: string };

/** A trailing distance: a whole number of pips from 5 to 1,000. */
export function readTrailingPips(text: string): PipsText {
  const t = text.trim();
  if (t === '') return { kind: 'empty' };
  if (!/^\d+$/.test(t)) return { kind: 'invalid', problem: 'must be a whole number of pips' };
  const value = Number(t);
  if (value < TRAILING_STOP_MIN_PIPS) return { kind: 'invalid', problem: `must be at least ${TRAILING_STOP_MIN_PIPS}` };
  if (value > TRAILING_STOP_MAX_PIPS) return { kind: 'invalid', problem: `must be at most ${TRAILING_STOP_MAX_PIPS}` };
  return { kind: 'pips', value };
}

/**
 * Stop loss and take profit against the price they are judged by (`reference`, named `what`):
 * a long needs SL < reference < TP, a short TP < reference < SL. Returns the problem of each.
 */
export function protectionSideProblems(
  long: boolean,
  reference: Dec | null,
  what: string,
  stopLoss: Dec | null,
  takeProfit: Dec | null,
  digits: number,
): { stopLoss?: string; takeProfit?: string } {
  if (reference === null) return {};
  const side = long ? 'a long position' : 'a short position';
  const ref = reference.toFixed(digits);
  const out: { stopLoss?: string; takeProfit?: string } = {};
  if (stopLoss !== null && (long ? !stopLoss.lt(reference) : !stopLoss.gt(reference))) {
    out.stopLoss = `must be ${long ? 'below' : 'above'} ${what} (${ref}) for ${side}`;
  }
  if (takeProfit !== null && (long ? !takeProfit.gt(reference) : !takeProfit.lt(reference))) {
    out.takeProfit = `must be ${long ? 'above' : 'below'} ${what} (${ref}) for ${side}`;
  }
  return out;
}

/** The protection texts of a form: a position's editor, the Modify form. */
export interface ProtectionTexts {
  stopLoss: string;
  takeProfit: string;
  trailingStopPips: string;
}

/** Protection as read from its texts: the values (null for none or a problem) and each field's problem. */
export interface ProtectionReading {
  stopLoss: Dec | null;
  takeProfit: Dec | null;
  trailingStopPips: number | null;
  problems: Partial<Record<keyof ProtectionTexts, string>>;
}

/**
 * Reads stop loss, take profit and trailing distance, then judges SL and TP against `reference`
 * (see `protectionSideProblems`); a field's own problem comes before its side problem.
 */
export function readProtection(
  texts: ProtectionTexts,
  digits: number,
  side: { long: boolean; reference: Dec | null; what: string },
): ProtectionReading {
  const problems: ProtectionReading['problems'] = {};
  const sl = readPrice(texts.stopLoss, digits);
  const tp = readPrice(texts.takeProfit, digits);
  const trailing = readTrailingPips(texts.trailingStopPips);
  if (sl.kind === 'invalid') problems.stopLoss = sl.problem;
  if (tp.kind === 'invalid') problems.takeProfit = tp.problem;
  if (trailing.kind === 'invalid') problems.trailingStopPips = trailing.problem;
  const stopLoss = sl.kind === 'price' ? sl.value : null;
  const takeProfit = tp.kind === 'price' ? tp.value : null;
  const sides = protectionSideProblems(side.long, side.reference, side.what, stopLoss, takeProfit, digits);
  if (sides.stopLoss && !problems.stopLoss) problems.stopLoss = sides.stopLoss;
  if (sides.takeProfit && !problems.takeProfit) problems.takeProfit = sides.takeProfit;
  return { stopLoss, takeProfit, trailingStopPips: trailing.kind === 'pips' ? trailing.value : null, problems };
}

/** A price as typed equals a stored one (both none, or the same number). */
export const samePrice = (a: Dec | null, b: number | null) => (a === null ? b === null : b !== null && a.eq(b));

/** The protection part of a PATCH body: only what changed, null for a cleared value. */
export function protectionChange(
  read: Pick<ProtectionReading, 'stopLoss' | 'takeProfit' | 'trailingStopPips'>,
  current: { stop_loss: number | null; take_profit: number | null; trailing_stop_pips: number | null },
): { stop_loss?: number | null; take_profit?: number | null; trailing_stop_pips?: number | null } {
  const change: { stop_loss?: number | null; take_profit?: number | null; trailing_stop_pips?: number | null } = {};
  if (!samePrice(read.stopLoss, current.stop_loss)) change.stop_loss = read.stopLoss === null ? null : read.stopLoss.toNumber();
  if (!samePrice(read.takeProfit, current.take_profit)) {
    change.take_profit = read.takeProfit === null ? null : read.takeProfit.toNumber();
  }
  if (read.trailingStopPips !== current.trailing_stop_pips) change.trailing_stop_pips = read.trailingStopPips;
  return change;
}

/**
 * The side of the market a pending price must be on, or null: a BUY LIMIT below the ask, a SELL
 * LIMIT above the bid, a BUY STOP above the ask, a SELL STOP below the bid, a STOP_LIMIT's trigger
 * as a STOP (otherwise it would fill at once). `type` is a pending order's (a stored order's
 * is typed as any order type).
 */
export function pendingPriceProblem(
  type: OrderType,
  side: OrderSide,
  price: Dec,
  quote: QuoteTerms,
  digits: number,
): string | null {
  const stop = type !== 'LIMIT';
  const name = `a ${side} ${stop ? 'STOP' : 'LIMIT'}`;
  if (side === 'BUY') {
    const ok = stop ? price.gt(quote.ask) : price.lt(quote.ask);
    return ok ? null : `${name} must be ${stop ? 'above' : 'below'} the ask (${Dec.from(quote.ask).toFixed(digits)})`;
  }
  const ok = stop ? price.lt(quote.bid) : price.gt(quote.bid);
  return ok ? null : `${name} must be ${stop ? 'below' : 'above'} the bid (${Dec.from(quote.bid).toFixed(digits)})`;
}

/** Why a GTD expiry cannot be sent: each screen words it its own way. */
export type ExpiryProblem = 'missing' | 'invalid' | 'past' | 'tooFar';

/** A GTD expiry (a `datetime-local` text) must be after `now` and at most 90 days ahead. */
export function readExpiry(text: string, now: number): { problem: ExpiryProblem } | { at: number } {
  if (text.trim() === '') return { problem: 'missing' };
  const at = new Date(text).getTime();
  if (Number.isNaN(at)) return { problem: 'invalid' };
  if (at <= now) return { problem: 'past' };
  if (at > now + MAX_GTD_DAYS * DAY_MS) return { problem: 'tooFar' };
  return { at };
}
