import { Dec, type ModifyPositionRequest, type PositionDto } from '@pipdesk/contract';
import { type ProtectionTexts, protectionChange, readProtection } from '../orderRulesText';

// The checks the server makes on protection and partial closes (docs/orders.md#validation),
// made before sending so the trader reads the problem beside the field, in the contract's words
// the server answers with. The server judges again: its 400 is shown when it differs (the
// market moved in between).

/** The texts of a position's protection editor. */
export type ProtectionDraft = ProtectionTexts;

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
  const long = position.quantity > 0;
  const read = readProtection(draft, {
    long,
    reference: closingPrice === null ? null : Dec.from(closingPrice),
    against: long ? 'bid' : 'ask',
    digits,
  });
  const problems = read.problems;
  if (Object.keys(problems).length > 0) return { change: null, problems };

  const change: ModifyPositionRequest = protectionChange(read, position);
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
