import {
  Dec,
  expiryProblem,
  type OrderProblem,
  orderProblemMessage,
  type ProtectionReference,
  priceProblem,
  protectionSideProblems,
  trailingPipsProblem,
} from '@pipdesk/contract';

// What the order ticket, the Modify form and the protection editor typed, read for the contract's
// rules (docs/orders.md#validation). The rules and their words are the contract's, the same the
// server answers with; this file only turns the texts into values and builds the PATCH bodies.

/** What a price field holds: empty (none), a price, or a problem to show. */
export type PriceText = { kind: 'empty' } | { kind: 'price'; value: Dec } | { kind: 'invalid'; problem: string };

/** Only digits and one point: a sign or an exponent is no price the trader types. */
const DECIMAL_TEXT = /^\d*\.?\d*$/;

/** Reads a typed price: positive, with at most the pair's digits. */
export function readPrice(text: string, digits: number): PriceText {
  const t = text.trim();
  if (t === '') return { kind: 'empty' };
  if (!DECIMAL_TEXT.test(t) || t === '.') return { kind: 'invalid', problem: orderProblemMessage({ code: 'NOT_A_NUMBER' }) };
  const value = Dec.from(t);
  const problem = priceProblem(value, digits);
  return problem ? { kind: 'invalid', problem: orderProblemMessage(problem) } : { kind: 'price', value };
}

/** What a trailing distance field holds: empty (none), whole pips, or a problem. */
export type PipsText = { kind: 'empty' } | { kind: 'pips'; value: number } | { kind: 'invalid'; problem: string };

/** A trailing distance: a whole number of pips from 5 to 1,000. */
export function readTrailingPips(text: string): PipsText {
  const t = text.trim();
  if (t === '') return { kind: 'empty' };
  const problem: OrderProblem | null = /^\d+$/.test(t) ? trailingPipsProblem(Number(t)) : { code: 'TRAILING_NOT_WHOLE' };
  return problem ? { kind: 'invalid', problem: orderProblemMessage(problem) } : { kind: 'pips', value: Number(t) };
}

/** What protection is judged by on a screen: the side, the price (null when unknown: the server judges alone) and its name. */
export interface ProtectionJudge {
  long: boolean;
  reference: Dec | null;
  against: ProtectionReference;
  digits: number;
}

/** The words of each side problem of a stop loss and a take profit (see the contract's `protectionSideProblems`). */
export function protectionSideTexts(
  protection: { stopLoss: Dec | null; takeProfit: Dec | null },
  judge: ProtectionJudge,
): { stopLoss?: string; takeProfit?: string } {
  const { reference } = judge;
  if (reference === null) return {};
  const problems = protectionSideProblems(protection, { ...judge, reference });
  return {
    ...(problems.stopLoss ? { stopLoss: orderProblemMessage(problems.stopLoss) } : {}),
    ...(problems.takeProfit ? { takeProfit: orderProblemMessage(problems.takeProfit) } : {}),
  };
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
 * Reads stop loss, take profit and trailing distance, then judges SL and TP against the
 * reference (see `protectionSideTexts`); a field's own problem comes before its side problem.
 */
export function readProtection(texts: ProtectionTexts, judge: ProtectionJudge): ProtectionReading {
  const problems: ProtectionReading['problems'] = {};
  const sl = readPrice(texts.stopLoss, judge.digits);
  const tp = readPrice(texts.takeProfit, judge.digits);
  const trailing = readTrailingPips(texts.trailingStopPips);
  if (sl.kind === 'invalid') problems.stopLoss = sl.problem;
  if (tp.kind === 'invalid') problems.takeProfit = tp.problem;
  if (trailing.kind === 'invalid') problems.trailingStopPips = trailing.problem;
  const stopLoss = sl.kind === 'price' ? sl.value : null;
  const takeProfit = tp.kind === 'price' ? tp.value : null;
  const sides = protectionSideTexts({ stopLoss, takeProfit }, judge);
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
 * A GTD expiry as typed (a `datetime-local` text, in the trader's zone) against the contract's
 * rule: after `now` and at most 90 days ahead. Empty is a missing expiry, unreadable an invalid one.
 */
export function readExpiry(text: string, now: number): { problem: OrderProblem } | { at: number } {
  const at = text.trim() === '' ? null : new Date(text).getTime();
  const problem = expiryProblem('GTD', at, now);
  // The rule refuses a missing expiry, so without a problem `at` is a time.
  return problem ? { problem } : { at: at as number };
}
