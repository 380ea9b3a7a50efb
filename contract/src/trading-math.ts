import { Dec, type DecInput } from './decimal.js';

/**
 * The trading math of docs/trading-rules.md, shared by server and web so the order form's estimate
 * equals what the server answers. Pure functions over exact decimals; the `…Number`
 * wrappers round for display (money 2 decimals, lots 2 decimals). The order ticket's own
 * figures build on them in ticket-math.ts.
 */

/** The pair terms the math needs (a subset of the FxPair DTO). */
export interface PairTerms {
  symbol: string;
  base_currency: string;
  quote_currency: string;
  contract_size: number;
  min_lot_size: number;
  max_lot_size: number;
  pip_size: number;
}

/** The current mid price of a catalogue symbol, or undefined when there is none yet. */
export type MidLookup = (symbol: string) => DecInput | undefined;

/** One hop of a conversion to USD: multiply by the pair's mid, or divide by it. */
export interface ConversionStep {
  symbol: string;
  invert: boolean;
}

/**
 * How an amount in `currency` becomes USD with the catalogue's pairs (docs/trading-rules.md#conversion-to-usd): USD → 1;
 * a pair CUSD → multiply; a pair USDC → divide; otherwise through one cross to a currency
 * that has one of those. Undefined when the catalogue cannot convert it.
 * The route depends only on the catalogue, so callers compute it once per currency.
 */
export function conversionRoute(
  currency: string,
  pairs: readonly Pick<PairTerms, 'symbol' | 'base_currency' | 'quote_currency'>[],
): ConversionStep[] | undefined {
  if (currency === 'USD') return [];
  const direct = (c: string): ConversionStep | undefined => {
    const asBase = pairs.find((p) => p.base_currency === c && p.quote_currency === 'USD');
    if (asBase) return { symbol: asBase.symbol, invert: false };
    const asQuote = pairs.find((p) => p.base_currency === 'USD' && p.quote_currency === c);
    if (asQuote) return { symbol: asQuote.symbol, invert: true };
    return undefined;
  };
  const first = direct(currency);
  if (first) return [first];
  for (const p of pairs) {
    if (p.base_currency === currency) {
      const onward = direct(p.quote_currency);
      if (onward) return [{ symbol: p.symbol, invert: false }, onward];
    } else if (p.quote_currency === currency) {
      const onward = direct(p.base_currency);
      if (onward) return [{ symbol: p.symbol, invert: true }, onward];
    }
  }
  return undefined;
}

/**
 * The USD value of one unit of a currency, kept as a fraction (product of the mids it
 * multiplies by ÷ product of the mids it divides by) so a conversion divides once, at the
 * end: −6,000 JPY at USDJPY 114.45 is −6,000 ÷ 114.45, not −6,000 × (1 ÷ 114.45) rounded.
 */
export class UsdRate {
  constructor(
    readonly multiply: Dec,
    readonly divide: Dec,
  ) {}

  static readonly ONE = new UsdRate(Dec.ONE, Dec.ONE);

  static of(rate: UsdRate | DecInput): UsdRate {
    return rate instanceof UsdRate ? rate : new UsdRate(Dec.from(rate), Dec.ONE);
  }

  /** amount × rate ÷ divisor, with a single division. */
  convert(amount: DecInput, divisor: DecInput = 1): Dec {
    const product = Dec.from(amount).times(this.multiply);
    // Nothing to divide by but a whole divisor (a leverage; the rate of a currency with a
    // XXXUSD pair): the same quotient, rounded the same way, from a division by an integer.
    if (typeof divisor === 'number' && Number.isSafeInteger(divisor) && this.divide.eq(Dec.ONE)) return product.div(divisor);
    return product.div(this.divide.times(divisor));
  }

  /** The rate as one decimal (for display; conversions use `convert`). */
  toDec(): Dec {
    return this.multiply.div(this.divide);
  }
}

/** The USD value of one unit of the route's currency at current mids; undefined when a price is missing. */
export function rateAlong(route: readonly ConversionStep[], mid: MidLookup): UsdRate | undefined {
  let multiply = Dec.ONE;
  let divide = Dec.ONE;
  for (const step of route) {
    const m = mid(step.symbol);
    if (m === undefined) return undefined;
    const price = Dec.from(m);
    if (price.sign() <= 0) return undefined;
    if (step.invert) divide = divide.times(price);
    else multiply = multiply.times(price);
  }
  return new UsdRate(multiply, divide);
}

/** Convenience for one-off conversions: the USD value of one unit of `currency`. */
export function usdRate(
  currency: string,
  pairs: readonly Pick<PairTerms, 'symbol' | 'base_currency' | 'quote_currency'>[],
  mid: MidLookup,
): UsdRate | undefined {
  const route = conversionRoute(currency, pairs);
  return route && rateAlong(route, mid);
}

/** The mid of a quote: (bid + ask) / 2, exact. */
export function midOf(bid: DecInput, ask: DecInput): Dec {
  return Dec.from(bid).plus(ask).div(2);
}

/** Units = lots × contract size. */
export function unitsOf(lots: DecInput, contractSize: number): Dec {
  return Dec.from(lots).times(contractSize);
}

/** Margin of a position or order in USD = |units| × (base → USD rate) ÷ leverage. */
export function marginUsd(units: DecInput, baseUsdRate: UsdRate | DecInput, leverage: number): Dec {
  return UsdRate.of(baseUsdRate).convert(Dec.from(units).abs(), leverage);
}

/**
 * P&L in the quote currency of `units` held from `entry` to `exit`: units × (exit − entry),
 * where units are signed (+ long, − short), so a short gains when the price falls.
 */
export function pnlInQuote(signedUnits: DecInput, entry: DecInput, exit: DecInput): Dec {
  return Dec.from(signedUnits).times(Dec.from(exit).minus(entry));
}

/** The price a position is valued and closed at: bid for a long, ask for a short. */
export function closingPrice(signedQuantity: DecInput, quote: { bid: DecInput; ask: DecInput }): Dec {
  return Dec.from(Dec.from(signedQuantity).sign() >= 0 ? quote.bid : quote.ask);
}

/** The price a market order executes at: BUY at the ask, SELL at the bid. */
export function executionPrice(side: 'BUY' | 'SELL', quote: { bid: DecInput; ask: DecInput }): Dec {
  return Dec.from(side === 'BUY' ? quote.ask : quote.bid);
}

/** Value of one pip for `lots` in USD = pip size × units × (quote → USD rate). */
export function pipValueUsd(
  pair: Pick<PairTerms, 'pip_size' | 'contract_size'>,
  lots: DecInput,
  quoteUsdRate: UsdRate | DecInput,
): Dec {
  return UsdRate.of(quoteUsdRate).convert(Dec.from(pair.pip_size).times(unitsOf(lots, pair.contract_size)));
}

/**
 * Maximum lots an order may have = free margin × leverage ÷ (contract size × base → USD rate),
 * capped at the pair's max lot size and floored to 0.01 (never below 0).
 */
export function maxAllowedLots(
  freeMargin: DecInput,
  leverage: number,
  pair: Pick<PairTerms, 'contract_size' | 'max_lot_size'>,
  baseUsdRate: UsdRate | DecInput,
): Dec {
  const free = Dec.from(freeMargin);
  const rate = UsdRate.of(baseUsdRate);
  if (free.sign() <= 0 || rate.multiply.sign() <= 0 || rate.divide.sign() <= 0) return Dec.ZERO;
  const lots = free.times(leverage).times(rate.divide).div(Dec.from(pair.contract_size).times(rate.multiply)).round(2, 'floor');
  return Dec.min(lots, Dec.from(pair.max_lot_size));
}

/** Account figures of docs/trading-rules.md#account-figures: equity, margin used, free margin and margin level (percent, null with no margin used). */
export interface AccountFigures {
  equity: Dec;
  marginUsed: Dec;
  freeMargin: Dec;
  marginLevel: Dec | null;
}

/** Account figures of docs/trading-rules.md#account-figures from the balance and each position's unrealized P&L and margin. */
export function accountFigures(balance: DecInput, positions: Iterable<{ unrealizedPnl: Dec; margin: Dec }>): AccountFigures {
  let unrealized = Dec.ZERO;
  let marginUsed = Dec.ZERO;
  for (const p of positions) {
    unrealized = unrealized.plus(p.unrealizedPnl);
    marginUsed = marginUsed.plus(p.margin);
  }
  return accountFiguresFromTotals(balance, unrealized, marginUsed);
}

/**
 * The same figures from running totals (the live book keeps Σ unrealized and Σ margin as
 * positions change): equity = balance + unrealized, free margin = equity − margin used,
 * margin level = equity ÷ margin used × 100. Exact; sums of exact decimals do not depend on
 * their order, so both ways give the same figures.
 */
export function accountFiguresFromTotals(balance: DecInput, unrealized: Dec, marginUsed: Dec): AccountFigures {
  const equity = Dec.from(balance).plus(unrealized);
  return {
    equity,
    marginUsed,
    freeMargin: equity.minus(marginUsed),
    marginLevel: marginUsed.isZero() ? null : equity.div(marginUsed).times(100),
  };
}

/**
 * The order form's "Estimated Margin Required" in USD (2 decimals), equal to the
 * `margin_required` the server answers for the same lots at the same prices.
 * Null when a needed price is missing.
 */
export function estimateMarginRequired(
  lots: number,
  pair: PairTerms,
  leverage: number,
  pairs: readonly Pick<PairTerms, 'symbol' | 'base_currency' | 'quote_currency'>[],
  mid: MidLookup,
): number | null {
  const rate = usdRate(pair.base_currency, pairs, mid);
  if (!rate || !(lots > 0) || !(leverage > 0)) return null;
  return marginUsd(unitsOf(lots, pair.contract_size), rate, leverage).toNumber(2);
}

/** The pair page's cap on the lot size field (2 decimals); null when a needed price is missing. */
export function maxAllowedLotsNumber(
  freeMargin: number,
  leverage: number,
  pair: PairTerms,
  pairs: readonly Pick<PairTerms, 'symbol' | 'base_currency' | 'quote_currency'>[],
  mid: MidLookup,
): number | null {
  const rate = usdRate(pair.base_currency, pairs, mid);
  if (!rate) return null;
  return maxAllowedLots(freeMargin, leverage, pair, rate).toNumber(2);
}

/** A lot quantity the server accepts: a positive multiple of 0.01 (checked exactly, not in floating point). */
export function isLotStep(quantity: number): boolean {
  if (!Number.isFinite(quantity) || quantity <= 0) return false;
  const d = Dec.from(quantity);
  return d.round(2, 'down').eq(d);
}
