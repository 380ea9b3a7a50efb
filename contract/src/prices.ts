// Price rounding and formatting, apart from the currency table: every screen that shows a price
// needs these, while the table (names, nicknames, flags) is wanted only where pairs are named.
// A bundle that imports these alone leaves the table out (docs/decisions.md, code splitting).

/**
 * A price rounded half away from zero at `digits` decimals, as text ("1.08420", "151.235").
 * Goes through the decimal exponent so 1.005 rounds to 1.01 (toFixed alone gives 1.00).
 */
export function formatPrice(value: number, digits: number): string {
  if (!Number.isFinite(value)) return '';
  return roundPrice(value, digits).toFixed(digits);
}

/** A price rounded half away from zero at `digits` decimals, as a number (for JSON). */
export function roundPrice(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  const sign = value < 0 ? -1 : 1;
  const text = String(Math.abs(value));
  // Tiny or huge numbers print in exponent form already; scaling them directly is exact enough.
  if (text.includes('e')) return (sign * Math.round(Math.abs(value) * 10 ** digits)) / 10 ** digits;
  const shifted = Math.round(Number(`${text}e${digits}`));
  return sign * Number(`${shifted}e-${digits}`);
}

/** The spread between bid and ask in pips, one decimal (1.2 for EURUSD 1.08412 / 1.08424). */
export function spreadInPips(bid: number, ask: number, pipSize: number): number {
  return roundPrice((ask - bid) / pipSize, 1);
}
