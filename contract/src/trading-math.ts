import { Dec, type DecInput } from './decimal.js';

/**
 * The trading math of docs/trading-rules.md, shared by server and web so the order form's estimate
 * equals what the server answers. Pure functions over exact decimals; the `…Number`
 * wrappers round for display (money 2 decimals, lots 2 decimals).
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

// ---------------------------------------------------------------- the order ticket's figures (docs/screens.md#order-ticket)

/**
 * The server's default margin call and stop-out levels, in percent (docs/trading-rules.md): the
 * order ticket shows where they would hit. The server reads its levels from its configuration;
 * these are the defaults it ships with.
 */
export const DEFAULT_MARGIN_CALL_LEVEL = 100;
export const DEFAULT_STOP_OUT_LEVEL = 50;

/** A pair's bid and ask. */
export interface QuoteTerms {
  bid: DecInput;
  ask: DecInput;
}

/** The current quote of a catalogue symbol, or undefined when there is none yet. */
export type QuoteLookup = (symbol: string) => QuoteTerms | undefined;

/** The price `pips` pips above `from` (below for a negative distance), rounded half away from zero to `digits`. */
export function priceAtPips(from: DecInput, pips: DecInput, pipSize: number, digits: number): Dec {
  return Dec.from(from).plus(Dec.from(pips).times(pipSize)).round(digits);
}

/** The distance from `from` to `to` in pips: positive when `to` is above. */
export function pipsBetween(from: DecInput, to: DecInput, pipSize: number): Dec {
  return Dec.from(to).minus(from).div(pipSize);
}

/**
 * The quote lookup with `symbol` moved so its bid is `bid`, its spread kept: what the market
 * looks like when that pair alone has moved there.
 */
export function quoteMovedTo(quote: QuoteLookup, symbol: string, bid: DecInput): QuoteLookup {
  const current = quote(symbol);
  if (!current) return quote;
  const spread = Dec.from(current.ask).minus(current.bid);
  const moved = { bid: Dec.from(bid), ask: Dec.from(bid).plus(spread) };
  return (s) => (s === symbol ? moved : quote(s));
}

/** The mids of a quote lookup, for the conversions to USD. */
export function midsOf(quote: QuoteLookup): MidLookup {
  return (symbol) => {
    const q = quote(symbol);
    return q ? midOf(q.bid, q.ask) : undefined;
  };
}

/**
 * USD the server books when `lots` bought (`BUY`, a long) or sold (`SELL`, a short) at `entry`
 * are closed at `exit`: units × (exit − entry) in the quote currency, converted at the mids of
 * that moment (the pair's own mid moved with it, its spread kept, so a USDJPY stop converts at
 * the yen rate of the stop) and rounded to cents as the ledger does. Undefined without the
 * prices to convert.
 */
export function realizedAtPriceUsd(input: {
  pair: PairTerms;
  pairs: readonly Pick<PairTerms, 'symbol' | 'base_currency' | 'quote_currency'>[];
  quote: QuoteLookup;
  side: 'BUY' | 'SELL';
  lots: DecInput;
  entry: DecInput;
  exit: DecInput;
}): Dec | undefined {
  const { pair, quote, side, lots, entry, exit } = input;
  const current = quote(pair.symbol);
  if (!current) return undefined;
  const spread = Dec.from(current.ask).minus(current.bid);
  // A long closes at the bid, a short at the ask: the bid at that moment follows from the exit.
  const bidAtExit = side === 'BUY' ? Dec.from(exit) : Dec.from(exit).minus(spread);
  const rate = usdRate(pair.quote_currency, input.pairs, midsOf(quoteMovedTo(quote, pair.symbol, bidAtExit)));
  if (!rate) return undefined;
  const signedUnits = unitsOf(lots, pair.contract_size).times(side === 'BUY' ? 1 : -1);
  return rate.convert(pnlInQuote(signedUnits, entry, exit)).round(2);
}

/** An open position as the account projection needs it: signed lots (+ long, − short) and the average entry price. */
export interface PositionTerms {
  symbol: string;
  quantity: DecInput;
  entry: DecInput;
}

/** An account and the market it is valued in. */
export interface AccountScenario {
  balance: DecInput;
  leverage: number;
  positions: readonly PositionTerms[];
  pairs: readonly PairTerms[];
  quote: QuoteLookup;
}

/**
 * The account figures of a scenario (docs/trading-rules.md#account-figures), each open position
 * valued as the server values it: margin = |units| × (base → USD) ÷ leverage, unrealized P&L =
 * units × (closing price − entry) in the quote currency converted to USD. A position without the
 * prices to value it counts as 0, as on the server.
 */
export function scenarioFigures(scenario: AccountScenario): AccountFigures {
  const mid = midsOf(scenario.quote);
  const values: { unrealizedPnl: Dec; margin: Dec }[] = [];
  for (const p of scenario.positions) {
    const pair = scenario.pairs.find((x) => x.symbol === p.symbol);
    const quantity = Dec.from(p.quantity);
    if (!pair || quantity.isZero()) continue;
    const units = unitsOf(quantity, pair.contract_size);
    const baseRate = usdRate(pair.base_currency, scenario.pairs, mid);
    const quoteRate = usdRate(pair.quote_currency, scenario.pairs, mid);
    const q = scenario.quote(p.symbol);
    values.push({
      margin: baseRate ? marginUsd(units, baseRate, scenario.leverage) : Dec.ZERO,
      unrealizedPnl: q && quoteRate ? quoteRate.convert(pnlInQuote(units, p.entry, closingPrice(quantity, q))) : Dec.ZERO,
    });
  }
  return accountFigures(scenario.balance, values);
}

/** An order filled in a scenario: `lots` of `symbol` bought or sold at `price`. */
export interface FillTerms {
  symbol: string;
  side: 'BUY' | 'SELL';
  lots: DecInput;
  price: DecInput;
}

/**
 * The scenario after a fill, netted as the server nets (docs/trading-rules.md#positions-netting):
 * the same direction adds and re-averages the entry (10 decimals, as stored), the opposite reduces,
 * closes or flips (the remainder opens at the fill price), and the closed part's P&L, converted at
 * the scenario's mids and rounded to cents, moves to the balance.
 */
export function scenarioAfterFill(scenario: AccountScenario, fill: FillTerms): AccountScenario {
  const pair = scenario.pairs.find((p) => p.symbol === fill.symbol);
  if (!pair) return scenario;
  const signed = Dec.from(fill.lots).times(fill.side === 'BUY' ? 1 : -1);
  const price = Dec.from(fill.price);
  const others = scenario.positions.filter((p) => p.symbol !== fill.symbol || Dec.from(p.quantity).isZero());
  const held = scenario.positions.find((p) => p.symbol === fill.symbol && !Dec.from(p.quantity).isZero());
  let balance = Dec.from(scenario.balance);
  let next: PositionTerms | null;
  if (!held) {
    next = { symbol: fill.symbol, quantity: signed, entry: price };
  } else {
    const old = Dec.from(held.quantity);
    const quantity = old.plus(signed);
    if (old.sign() === signed.sign()) {
      const entry = old.abs().times(held.entry).plus(signed.abs().times(price)).div(quantity.abs()).round(10);
      next = { symbol: fill.symbol, quantity, entry };
    } else {
      const closed = Dec.min(old.abs(), signed.abs());
      const rate = usdRate(pair.quote_currency, scenario.pairs, midsOf(scenario.quote));
      const realized = pnlInQuote(unitsOf(old.sign() > 0 ? closed : closed.neg(), pair.contract_size), held.entry, price);
      if (rate) balance = balance.plus(rate.convert(realized).round(2));
      if (quantity.isZero()) next = null;
      else if (quantity.sign() === old.sign()) next = { symbol: fill.symbol, quantity, entry: held.entry };
      else next = { symbol: fill.symbol, quantity, entry: price };
    }
  }
  return { ...scenario, balance, positions: next ? [...others, next] : others };
}

/** Where a margin level is reached on one pair: the closing price of the pair's position, or `now` when it already is. */
export interface LevelPrice {
  price: Dec;
  now: boolean;
}

/**
 * The price of `symbol` at which the scenario's margin level falls to `level` percent or below,
 * everything else priced as now: the bid for a net long (searched downwards), the ask for a net
 * short (searched upwards, up to ten times the price). Null when the account holds nothing in
 * the pair or the level is not reached in that range. Found by bisection on the pair's price
 * grid (10^-digits) with the exact valuation of `scenarioFigures`, so it is the first price of
 * the grid at which the server's figures reach the level.
 */
export function priceAtMarginLevel(scenario: AccountScenario, symbol: string, digits: number, level: number): LevelPrice | null {
  const held = scenario.positions.find((p) => p.symbol === symbol && !Dec.from(p.quantity).isZero());
  const current = scenario.quote(symbol);
  if (!held || !current) return null;
  const long = Dec.from(held.quantity).sign() > 0;
  const spread = Dec.from(current.ask).minus(current.bid);
  // Closing price in ticks ↔ the scenario with the pair moved there.
  const reached = (ticks: bigint): boolean => {
    const closing = Dec.scaled(ticks, digits);
    const bid = long ? closing : closing.minus(spread);
    const figures = scenarioFigures({ ...scenario, quote: quoteMovedTo(scenario.quote, symbol, bid) });
    return figures.marginLevel?.lte(level) ?? false;
  };
  const start = Dec.from(long ? current.bid : current.ask).toScaled(digits);
  if (reached(start)) return { price: Dec.scaled(start, digits), now: true };
  // `safe` never reaches the level, `hit` does; the answer is the hit nearest the market.
  let safe = start;
  let hit = long ? 1n : start * 10n;
  if (!reached(hit)) return null;
  while ((long ? safe - hit : hit - safe) > 1n) {
    const middle = (safe + hit) / 2n;
    if (reached(middle)) hit = middle;
    else safe = middle;
  }
  return { price: Dec.scaled(hit, digits), now: false };
}
