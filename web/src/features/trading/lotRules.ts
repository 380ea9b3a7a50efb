import { isLotStep } from '@pipdesk/contract';

/** docs/screens.md#order-forms: lot size default 0.01, step 0.01, fallback bounds 0.01 and 100. */
export const LOT_DEFAULT = '0.01';
export const LOT_STEP = 0.01;
export const LOT_MIN_FALLBACK = 0.01;
export const LOT_MAX_FALLBACK = 100;

export interface LotBounds {
  min: number;
  max: number;
}

/** The dashboard form's bounds: the pair's, or the fallbacks when no pair (or no bound) is known. */
export function pairLotBounds(pair: { min_lot_size?: number | null; max_lot_size?: number | null } | undefined): LotBounds {
  const min = pair?.min_lot_size;
  const max = pair?.max_lot_size;
  return {
    min: typeof min === 'number' && min > 0 ? min : LOT_MIN_FALLBACK,
    max: typeof max === 'number' && max > 0 ? max : LOT_MAX_FALLBACK,
  };
}

/** The lot size typed in the field, or null when it is not a number. */
export function parseLots(text: string): number | null {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Why a typed lot size cannot be sent, or null when it can. Empty says nothing: the button is simply disabled. */
export function lotSizeProblem(text: string, bounds: LotBounds): string | null {
  if (text.trim() === '') return null;
  const lots = parseLots(text);
  if (lots === null) return 'Enter a number of lots';
  if (lots <= 0) return 'Lot size must be greater than 0';
  if (!isLotStep(lots)) return `Lot size must be in steps of ${LOT_STEP}`;
  if (lots < bounds.min) return `Lot size must be at least ${bounds.min.toFixed(2)}`;
  if (lots > bounds.max) return `Lot size must be at most ${bounds.max.toFixed(2)}`;
  return null;
}

/** The hint under the field (docs/screens.md#order-forms): "Minimum: 0.01, Maximum: 100.00". */
export function lotHint(bounds: LotBounds): string {
  return `Minimum: ${bounds.min.toFixed(2)}, Maximum: ${bounds.max.toFixed(2)}`;
}
