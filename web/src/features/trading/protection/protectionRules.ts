import {
  Dec,
  type ModifyPositionRequest,
  type PositionDto,
  TRAILING_STOP_MAX_PIPS,
  TRAILING_STOP_MIN_PIPS,
} from '@pipdesk/contract';

// The checks the server makes on protection and partial closes (docs/orders.md#validation),
// made before sending so the trader reads the problem beside the field. The server judges
// again: its 400 is shown when it differs (the market moved in between).

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

/** The texts of a position's protection editor. */
export interface ProtectionDraft {
  stopLoss: string;
  takeProfit: string;
  trailingStopPips: string;
}

export type ProtectionField = keyof ProtectionDraft;

/** The editor's starting texts: the position's values, empty for none. */
export function protectionDraftOf(position: PositionDto, digits: number): ProtectionDraft {
  return {
    stopLoss: position.stop_loss === null ? '' : position.stop_loss.toFixed(digits),
    takeProfit: position.take_profit === null ? '' : position.take_profit.toFixed(digits),
    trailingStopPips: position.trailing_stop_pips === null ? '' : String(position.trailing_stop_pips),
  };
}

export interface ProtectionCheck {
  /** The PATCH body: only what changed, null for a cleared value; null when nothing changed. */
  change: ModifyPositionRequest | null;
  problems: Partial<Record<ProtectionField, string>>;
}

const same = (a: Dec | null, b: number | null) => (a === null ? b === null : b !== null && a.eq(b));

/**
 * Checks an edited protection as the server will (docs/orders.md#validation): prices with the
 * pair's digits, a long's SL below and TP above its closing price (the bid), a short's the
 * other way round against the ask, a trailing distance of 5 to 1,000 whole pips. `closingPrice`
 * is the live price the position would close at (null when unknown: the server judges alone).
 */
export function checkProtection(
  position: PositionDto,
  draft: ProtectionDraft,
  digits: number,
  closingPrice: number | null,
): ProtectionCheck {
  const problems: Partial<Record<ProtectionField, string>> = {};
  const sl = readPrice(draft.stopLoss, digits);
  const tp = readPrice(draft.takeProfit, digits);
  const trailing = readTrailingPips(draft.trailingStopPips);
  if (sl.kind === 'invalid') problems.stopLoss = sl.problem;
  if (tp.kind === 'invalid') problems.takeProfit = tp.problem;
  if (trailing.kind === 'invalid') problems.trailingStopPips = trailing.problem;
  const stopLoss = sl.kind === 'price' ? sl.value : null;
  const takeProfit = tp.kind === 'price' ? tp.value : null;
  const pips = trailing.kind === 'pips' ? trailing.value : null;
  const long = position.quantity > 0;
  const sides = protectionSideProblems(
    long,
    closingPrice === null ? null : Dec.from(closingPrice),
    long ? 'the bid' : 'the ask',
    stopLoss,
    takeProfit,
    digits,
  );
  problems.stopLoss ??= sides.stopLoss;
  problems.takeProfit ??= sides.takeProfit;
  for (const key of Object.keys(problems) as ProtectionField[]) if (problems[key] === undefined) delete problems[key];
  if (Object.keys(problems).length > 0) return { change: null, problems };

  const change: ModifyPositionRequest = {};
  if (!same(stopLoss, position.stop_loss)) change.stop_loss = stopLoss === null ? null : stopLoss.toNumber();
  if (!same(takeProfit, position.take_profit)) change.take_profit = takeProfit === null ? null : takeProfit.toNumber();
  if (pips !== position.trailing_stop_pips) change.trailing_stop_pips = pips;
  return { change: Object.keys(change).length > 0 ? change : null, problems };
}

/**
 * Why a typed partial close cannot be sent, or null (docs/orders.md#partial-close): a multiple
 * of 0.01, above 0, at most the position's size.
 */
export function closeLotsProblem(text: string, positionLots: number): string | null {
  const t = text.trim();
  if (t === '') return 'Enter the lots to close';
  if (!/^\d*\.?\d*$/.test(t) || t === '.') return 'Enter a number of lots';
  const lots = Dec.from(t);
  if (lots.sign() <= 0) return 'Lots to close must be greater than 0';
  if (!lots.round(2, 'down').eq(lots)) return 'Lots to close must be in steps of 0.01';
  const size = Dec.from(positionLots).abs();
  if (lots.gt(size)) return `Lots to close must be at most ${size.toFixed(2)}`;
  return null;
}
