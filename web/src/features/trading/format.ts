import { type FxPair, formatPrice, type OrderReason, type OrderStatus, type OrderType } from '@pipdesk/contract';

// docs/screens.md#formatting: money in USD with 2 decimals; prices with the pair's digits; lots with 2 decimals.

const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const signedUsd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: 'exceptZero',
});

/** An amount of money: "$10,000.00", "-$52.42". */
export function formatUsd(value: number): string {
  return usd.format(normalizeZero(value));
}

/** A profit or loss, always signed: "+$16.00", "-$52.42", "$0.00". */
export function formatPnl(value: number): string {
  return signedUsd.format(normalizeZero(value));
}

/** -0 and rounding dust below half a cent must not print as "-$0.00". */
function normalizeZero(value: number): number {
  return Math.abs(value) < 0.005 ? 0 : value;
}

/** Lots with 2 decimals, unsigned: a short of −0.10 reads 0.10 beside its SHORT side. */
export function formatLots(value: number): string {
  return Math.abs(value).toFixed(2);
}

/** Leverage as docs/screens.md#formatting shows it: `100:1`. */
export function formatLeverage(leverage: number): string {
  return `${leverage}:1`;
}

/** Decimals of a quote when the catalogue is not at hand: 3 for JPY-quoted pairs, else 5 (docs/trading-rules.md#pairs). */
export function defaultDigits(symbol: string): number {
  return symbol.toUpperCase().endsWith('JPY') ? 3 : 5;
}

/** A lookup of each symbol's price decimals from the catalogue. */
export function digitsLookup(pairs: readonly Pick<FxPair, 'symbol' | 'digits'>[] | undefined): (symbol: string) => number {
  const bySymbol = new Map((pairs ?? []).map((p) => [p.symbol, p.digits]));
  return (symbol) => bySymbol.get(symbol) ?? defaultDigits(symbol);
}

/** A price with its pair's digits, or an em dash when there is none. */
export function formatQuote(value: number | null | undefined, digits: number): string {
  return value === null || value === undefined ? '—' : formatPrice(value, digits);
}

/** A time in the trader's zone, the app's one date style: "01 Apr 2026, 14:03:22". */
export { formatDateTime } from '../../components';

export const ORDER_TYPE_LABELS: Readonly<Record<OrderType, string>> = {
  MARKET: 'Market',
  LIMIT: 'Limit',
  STOP: 'Stop',
  STOP_LIMIT: 'Stop Limit',
};

/**
 * Why an order exists, in the trader's words (docs/orders.md#the-model); the trader's own order
 * (`client`) needs no tag. A pending order keeps `client` when it fills; `pending` is reserved.
 */
export const ORDER_REASON_LABELS: Readonly<Record<OrderReason, string | null>> = {
  client: null,
  close: 'Close',
  stop_out: 'Stop-out',
  stop_loss: 'Stop loss',
  take_profit: 'Take profit',
  trailing_stop: 'Trailing stop',
  pending: 'Pending',
  reset: 'Reset',
  challenge_breach: 'Evaluation ended',
};

/**
 * The one word for each order status, everywhere (badges, filters, notices): the form of the
 * Orders page's Status filter (docs/screens.md#orders-page).
 */
export const ORDER_STATUS_LABELS: Readonly<Record<OrderStatus, string>> = {
  PENDING: 'Pending',
  PARTIALLY_FILLED: 'Partially Filled',
  FILLED: 'Filled',
  CANCELLED: 'Cancelled',
  REJECTED: 'Rejected',
  EXPIRED: 'Expired',
};
