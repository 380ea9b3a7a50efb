import { Dec, type DecInput } from './decimal.js';
import {
  type AccountFigures,
  accountFigures,
  closingPrice,
  type MidLookup,
  marginUsd,
  midOf,
  type PairTerms,
  pnlInQuote,
  unitsOf,
  usdRate,
} from './trading-math.js';

/**
 * The order ticket's figures (docs/screens.md#order-ticket) on top of the trading math of
 * trading-math.ts: prices at a distance in pips, the P&L of a stop loss or take profit, and an
 * account scenario (the account as the server would value it after the order fills) with the
 * prices at which its margin call and stop-out levels would hit.
 */

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
