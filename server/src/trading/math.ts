import {
  accountFigures,
  type ConversionStep,
  closingPrice,
  conversionRoute,
  Dec,
  marginUsd,
  midOf,
  pnlInQuote,
  rateAlong,
  type UsdRate,
} from '@pipdesk/contract';
import type { Pair, PairCatalog, PriceBook, Quote } from '../market/index.js';
import { CENTILOTS_PER_LOT, type PositionState, PRICE_DECIMALS } from './types.js';

/** What a fill did to a netting position (DESIGN §2). */
export type FillKind = 'open' | 'add' | 'reduce' | 'close' | 'flip';

export interface NettingState {
  /** Signed quantity (+ long, − short), in any unit (lots, units). */
  quantity: Dec;
  averageEntryPrice: Dec;
}

export interface FillResult extends NettingState {
  kind: FillKind;
  /** How much of the old position this fill closed (≥ 0). */
  closedQuantity: Dec;
  /** closed × (price − entry) × (+1 long, −1 short), in quantity × price units (× contract size = quote currency). */
  realized: Dec;
}

/**
 * The one place a fill changes a netting position. Same direction adds and re-averages the
 * entry price (rounded half-up to 10 decimals, the stored precision); the opposite direction
 * reduces, closes, or flips, and a flipped remainder opens at the fill price. A closed
 * position keeps its last entry price for the record.
 * `fillQuantity` is signed: + for a BUY, − for a SELL.
 */
export function applyFill(position: NettingState, fillQuantity: Dec, fillPrice: Dec): FillResult {
  if (fillQuantity.isZero()) throw new Error('A fill needs a quantity');
  const old = position.quantity;
  const quantity = old.plus(fillQuantity);
  if (old.isZero()) {
    return { kind: 'open', quantity, averageEntryPrice: fillPrice, closedQuantity: Dec.ZERO, realized: Dec.ZERO };
  }
  if (old.sign() === fillQuantity.sign()) {
    const averageEntryPrice = old
      .abs()
      .times(position.averageEntryPrice)
      .plus(fillQuantity.abs().times(fillPrice))
      .div(quantity.abs())
      .round(PRICE_DECIMALS);
    return { kind: 'add', quantity, averageEntryPrice, closedQuantity: Dec.ZERO, realized: Dec.ZERO };
  }
  const closedQuantity = Dec.min(old.abs(), fillQuantity.abs());
  const realized = pnlInQuote(old.sign() > 0 ? closedQuantity : closedQuantity.neg(), position.averageEntryPrice, fillPrice);
  if (quantity.isZero())
    return { kind: 'close', quantity, averageEntryPrice: position.averageEntryPrice, closedQuantity, realized };
  if (quantity.sign() === old.sign()) {
    return { kind: 'reduce', quantity, averageEntryPrice: position.averageEntryPrice, closedQuantity, realized };
  }
  return { kind: 'flip', quantity, averageEntryPrice: fillPrice, closedQuantity, realized };
}

/** Cents booked to the ledger for an amount in USD: rounded once, half away from zero. */
export function toMinor(usd: Dec): number {
  return usd.toScaledNumber(2);
}

export function lotsFromCentilots(centilots: number): Dec {
  return Dec.scaled(centilots, 2);
}

export function centilotsFromLots(lots: Dec): number {
  return lots.times(CENTILOTS_PER_LOT).toScaledNumber(0);
}

interface ExactQuote {
  bid: Dec;
  ask: Dec;
  mid: Dec;
}

/**
 * Current prices and USD conversion from the in-memory catalogue and price book (no I/O).
 * Exact decimals are derived once per tick object; conversion routes once per currency.
 */
export class Pricing {
  private readonly exact = new WeakMap<Quote, ExactQuote>();
  private readonly routes = new Map<string, ConversionStep[] | null>();

  constructor(
    readonly pairs: PairCatalog,
    readonly prices: PriceBook,
  ) {}

  pair(symbol: string): Pair | undefined {
    return this.pairs.get(symbol);
  }

  /** Bid, ask and mid of the latest tick, exact; bid and ask are rounded to the pair's digits. */
  quote(symbol: string): ExactQuote | undefined {
    const q = this.prices.latest(symbol);
    if (!q) return undefined;
    let e = this.exact.get(q);
    if (!e) {
      const digits = this.pairs.get(symbol)?.digits ?? 5;
      const bid = Dec.from(q.bid).round(digits);
      const ask = Dec.from(q.ask).round(digits);
      e = { bid, ask, mid: midOf(bid, ask) };
      this.exact.set(q, e);
    }
    return e;
  }

  mid(symbol: string): Dec | undefined {
    return this.quote(symbol)?.mid;
  }

  /** USD per unit of `currency` at current mids (DESIGN §3), or undefined without a price or a route. */
  usdRate(currency: string): UsdRate | undefined {
    let route = this.routes.get(currency);
    if (route === undefined) {
      route = conversionRoute(currency, this.pairTerms()) ?? null;
      this.routes.set(currency, route);
    }
    return route ? rateAlong(route, (s) => this.mid(s)) : undefined;
  }

  private pairTerms() {
    return this.pairs.list().map((p) => ({ symbol: p.symbol, base_currency: p.baseCurrency, quote_currency: p.quoteCurrency }));
  }
}

export interface PositionValue {
  /** Bid for a long, ask for a short; null without a price. */
  currentPrice: Dec | null;
  /** USD; 0 without the prices to value it. */
  unrealizedPnl: Dec;
  /** USD; 0 once closed or without a conversion rate. */
  margin: Dec;
}

/** Values an open position at current prices: unrealized P&L and margin in USD. */
export function valuePosition(state: PositionState, leverage: number, pricing: Pricing): PositionValue {
  const pair = pricing.pair(state.symbol);
  if (!pair || state.quantityCentilots === 0) return { currentPrice: null, unrealizedPnl: Dec.ZERO, margin: Dec.ZERO };
  const units = lotsFromCentilots(state.quantityCentilots).times(pair.contractSize);
  const quote = pricing.quote(state.symbol);
  const baseRate = pricing.usdRate(pair.baseCurrency);
  const margin = baseRate ? marginUsd(units, baseRate, leverage) : Dec.ZERO;
  if (!quote) return { currentPrice: null, unrealizedPnl: Dec.ZERO, margin };
  const currentPrice = closingPrice(state.quantityCentilots, quote);
  const quoteRate = pricing.usdRate(pair.quoteCurrency);
  const unrealizedPnl = quoteRate
    ? quoteRate.convert(pnlInQuote(units, Dec.from(state.averageEntryPrice), currentPrice))
    : Dec.ZERO;
  return { currentPrice, unrealizedPnl, margin };
}

export interface AccountValue {
  balance: Dec;
  equity: Dec;
  marginUsed: Dec;
  freeMargin: Dec;
  marginLevel: Dec | null;
  positions: Map<number, PositionValue>;
}

/**
 * Account figures of DESIGN §3 at current prices, exact: equity = balance + Σ unrealized,
 * free margin = equity − margin used, margin level = equity ÷ margin used × 100.
 * Used for platform-data, the free-margin check at order time and the live streams.
 */
export function valueAccount(
  balanceMinor: number,
  leverage: number,
  positions: Iterable<PositionState>,
  pricing: Pricing,
): AccountValue {
  const values = new Map<number, PositionValue>();
  for (const p of positions) if (p.status === 'OPEN') values.set(p.id, valuePosition(p, leverage, pricing));
  const balance = Dec.scaled(balanceMinor, 2);
  return { balance, ...accountFigures(balance, values.values()), positions: values };
}
