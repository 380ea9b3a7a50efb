import {
  accountFigures,
  type ConversionStep,
  conversionRoute,
  Dec,
  marginUsd,
  midOf,
  pnlInQuote,
  rateAlong,
  type UsdRate,
} from '@pipdesk/contract';
import { isStaleQuote, type Pair, type PairCatalog, type PriceBook, type Quote } from '../market/index.js';
import { CENTILOTS_PER_LOT, type PositionState, PRICE_DECIMALS } from './types.js';

/** What a fill did to a netting position (docs/trading-rules.md#positions-netting). */
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

/** Stored prices are integers of 10^-10 (see PRICE_DECIMALS). */
export const priceFromE10 = (e10: number | bigint): Dec => Dec.scaled(e10, PRICE_DECIMALS);
export const priceToE10 = (price: Dec): number => price.toScaledNumber(PRICE_DECIMALS);

/** Bid, ask and mid of one tick, exact. */
export interface ExactQuote {
  bid: Dec;
  ask: Dec;
  mid: Dec;
}

/**
 * The one reading of a tick as exact prices, for the order path (`Pricing`) and the live
 * book alike: bid and ask rounded to the pair's digits, the mid their exact middle, so
 * streamed figures equal the REST answers.
 */
/** 10^digits as exact doubles, for the digits a pair can have. */
const SCALES = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * A tick's price as the exact decimal the order path uses: the same value as
 * `Dec.from(price).round(digits)`, without its text parsing when the
 * price is already a decimal of at most `digits` places (every normal tick).
 *
 * Why it is the same value: when `units / 10^digits === price` for an integer `units` below
 * 10^15, `price` is the double nearest the decimal D = units × 10^-digits, which has at most 15
 * significant digits. Such decimals survive a round trip through a double, so D is the only
 * one of at most 15 digits that reads as `price`, and `String(price)` (the shortest text that
 * does) is D: `Dec.from` reads D, and rounding D to `digits` places leaves it as it is.
 */
export function exactTickPrice(price: number, digits: number): Dec {
  const scale = SCALES[digits];
  if (scale !== undefined) {
    const units = Math.round(price * scale);
    if (units / scale === price && Math.abs(units) < 1e15) return Dec.scaled(units, digits);
  }
  return Dec.from(price).round(digits);
}

export function exactQuote(bid: number, ask: number, digits: number): ExactQuote {
  const exactBid = exactTickPrice(bid, digits);
  const exactAsk = exactTickPrice(ask, digits);
  return { bid: exactBid, ask: exactAsk, mid: midOf(exactBid, exactAsk) };
}

/**
 * Current prices and USD conversion from the in-memory catalogue and price book (no I/O).
 * Exact decimals are derived once per tick object, conversion routes once per currency, and a
 * currency's USD rate once per tick of its route.
 */
export class Pricing {
  private readonly exact = new WeakMap<Quote, ExactQuote>();
  private readonly routes = new Map<string, ConversionStep[] | null>();
  /** Each currency's last rate and the quotes of its route it came from (see `usdRate`). */
  private readonly rates = new Map<string, { quotes: (Quote | undefined)[]; rate: UsdRate | undefined }>();
  /** Each position's last valuation with what it was computed from (see `valuePosition`). */
  private readonly valuations = new Map<number, Valuation>();

  /**
   * `staleAfterMs`: a quote older than this is never executed on (docs/trading-rules.md#no-fill-on-a-stale-quote);
   * the server passes the feed's stale limit, EXTERNAL_FEED_STALE_MS. Left out (pure valuation
   * tests, benchmarks), no quote is ever stale.
   */
  constructor(
    readonly pairs: PairCatalog,
    readonly prices: PriceBook,
    readonly staleAfterMs?: number,
  ) {}

  /**
   * Whether a quote received at `receivedAt` (this node's clock) is too old to execute on at
   * `now`: older than the stale limit, or of unknown arrival. A quote exactly at the limit still
   * counts, as the feed's own `connected` does.
   */
  isStale(receivedAt: number | undefined, now: number): boolean {
    return this.staleAfterMs !== undefined && isStaleQuote(receivedAt, now, this.staleAfterMs);
  }

  pair(symbol: string): Pair | undefined {
    return this.pairs.get(symbol);
  }

  /** Bid, ask and mid of the latest tick, exact; bid and ask are rounded to the pair's digits. */
  quote(symbol: string): ExactQuote | undefined {
    const q = this.prices.latest(symbol);
    if (!q) return undefined;
    let e = this.exact.get(q);
    if (!e) {
      e = exactQuote(q.bid, q.ask, this.pairs.get(symbol)?.digits ?? 5);
      this.exact.set(q, e);
    }
    return e;
  }

  mid(symbol: string): Dec | undefined {
    return this.quote(symbol)?.mid;
  }

  /** USD per unit of `currency` at current mids (docs/trading-rules.md#conversion-to-usd), or undefined without a price or a route. */
  usdRate(currency: string): UsdRate | undefined {
    let route = this.routes.get(currency);
    if (route === undefined) {
      route = conversionRoute(currency, this.pairTerms()) ?? null;
      this.routes.set(currency, route);
    }
    if (!route) return undefined;
    // A rate depends only on the mids of its route, and a quote object is one tick (the price
    // book replaces it, never changes it): while its route's ticks are the latest, a currency's
    // rate is the one computed last. An order values every open position of the account (twice
    // when it adds exposure), with two rates each.
    const cached = this.rates.get(currency);
    if (cached && sameQuotes(route, cached.quotes, this.prices)) return cached.rate;
    const rate = rateAlong(route, (s) => this.mid(s));
    this.rates.set(currency, { quotes: route.map((step) => this.prices.latest(step.symbol)), rate });
    return rate;
  }

  /** The last valuation of position `id`, if one was kept. */
  lastValuation(id: number): Valuation | undefined {
    return this.valuations.get(id);
  }

  /** How many valuations are kept (docs/operations.md#memory): about the open positions valued on this node. */
  valuationCount(): number {
    return this.valuations.size;
  }

  /**
   * Position `id` closed: its valuation goes with it, so the cache holds open positions only
   * (docs/operations.md#memory). Called for every close this node hears of on the bus.
   */
  forgetValuation(id: number): void {
    this.valuations.delete(id);
  }

  /** Forgets every valuation: after a resync, a close this node did not hear of leaves none behind. */
  forgetValuations(): void {
    this.valuations.clear();
  }

  /**
   * Keeps `valuation` as position `id`'s last. A close removes it (`forgetValuation`), and only the
   * order path keeps (`valuePosition`), so the cap is a backstop that open positions alone never
   * reach on one node. At MAX_VALUATIONS the VALUATIONS_DROPPED_AT_ONCE
   * first kept make room (a Map iterates in insertion order), and an open one dropped is valued
   * afresh once. They go many at once because each walk from the
   * Map's start steps over the places earlier deletions left there (one at a time was measured
   * far slower past the cap: docs/decisions.md, bench/valuation.mjs).
   */
  keepValuation(id: number, valuation: Valuation): void {
    if (this.valuations.size >= MAX_VALUATIONS && !this.valuations.has(id)) {
      let dropping = VALUATIONS_DROPPED_AT_ONCE;
      for (const oldest of this.valuations.keys()) {
        this.valuations.delete(oldest);
        if (--dropping === 0) break;
      }
    }
    this.valuations.set(id, valuation);
  }

  private pairTerms() {
    return this.pairs.list().map((p) => ({ symbol: p.symbol, base_currency: p.baseCurrency, quote_currency: p.quoteCurrency }));
  }
}

/** Whether the latest quote of each step of `route` is still the one in `quotes`. */
function sameQuotes(route: readonly ConversionStep[], quotes: readonly (Quote | undefined)[], prices: PriceBook): boolean {
  for (let i = 0; i < route.length; i++) if (prices.latest(route[i]!.symbol) !== quotes[i]) return false;
  return true;
}

export interface PositionValue {
  /** Bid for a long, ask for a short; null without a price. */
  currentPrice: Dec | null;
  /** USD; 0 without the prices to value it. */
  unrealizedPnl: Dec;
  /** USD; 0 once closed or without a conversion rate. */
  margin: Dec;
}

/**
 * The one valuation of an open position (docs/trading-rules.md), into `out`: the order path's
 * (`valuePosition`); the live book works it out a figure at a time (the two functions below).
 * Each figure counts as 0 (null for the price) without its prices: margin = |units| × (base →
 * USD) ÷ leverage; current price = bid for a long, ask for a short; unrealized P&L = units ×
 * (current − entry), in the quote currency converted to USD.
 */
export function valueOpenPosition(
  out: PositionValue,
  signedUnits: Dec,
  entry: Dec,
  leverage: number,
  quote: ExactQuote | undefined,
  quoteRate: UsdRate | undefined,
  baseRate: UsdRate | undefined,
): PositionValue {
  out.margin = positionMargin(signedUnits, leverage, baseRate);
  if (!quote) {
    out.currentPrice = null;
    out.unrealizedPnl = Dec.ZERO;
    return out;
  }
  const currentPrice = signedUnits.sign() >= 0 ? quote.bid : quote.ask;
  out.currentPrice = currentPrice;
  out.unrealizedPnl = positionUnrealized(signedUnits, entry, currentPrice, quoteRate);
  return out;
}

/** A position's margin in USD; 0 without the base currency's rate. */
export function positionMargin(signedUnits: Dec, leverage: number, baseRate: UsdRate | undefined): Dec {
  return baseRate ? marginUsd(signedUnits, baseRate, leverage) : Dec.ZERO;
}

/** A position's unrealized P&L in USD at `currentPrice` (its side's price); 0 without the quote currency's rate. */
export function positionUnrealized(signedUnits: Dec, entry: Dec, currentPrice: Dec, quoteRate: UsdRate | undefined): Dec {
  return quoteRate ? quoteRate.convert(pnlInQuote(signedUnits, entry, currentPrice)) : Dec.ZERO;
}

/** A new valuation of nothing: no price, no P&L, no margin (`valueOpenPosition` fills it in). */
export function noValue(): PositionValue {
  return { currentPrice: null, unrealizedPnl: Dec.ZERO, margin: Dec.ZERO };
}

/**
 * A position's valuation and everything it was computed from. The tick and the rates are
 * compared by identity: `Pricing` hands out one object per tick (`quote`) and per tick of a
 * rate's route (`usdRate`), so the same objects mean the same prices.
 */
export interface Valuation {
  readonly pair: Pair;
  readonly quantityCentilots: number;
  readonly averageEntryPrice: string;
  readonly leverage: number;
  readonly quote: ExactQuote | undefined;
  readonly quoteRate: UsdRate | undefined;
  readonly baseRate: UsdRate | undefined;
  readonly value: Readonly<PositionValue>;
}

/** Open positions whose last valuation `Pricing` keeps at most: a school's worth, a few hundred bytes each. */
export const MAX_VALUATIONS = 100_000;
/** How many of the oldest valuations make room at once when MAX_VALUATIONS are kept (see `keepValuation`). */
export const VALUATIONS_DROPPED_AT_ONCE = 10_000;

/**
 * Values an open position at current prices: unrealized P&L and margin in USD
 * (`valueOpenPosition`). An order values every open position of its account after its fill
 * (and before it, when it adds exposure), then the filled one for its event; between two ticks
 * of its pair and rates nothing else changes a position's value but its quantity, its entry and
 * the leverage, so the last valuation is reused while all of its inputs are the same. A
 * position not yet stored (id 0) is valued afresh.
 * `keep`: only the order path, valuing inside its write transaction under the account's lock,
 * keeps what it valued. A position it values is open until a later transaction closes it, and
 * that close's event forgets it after; a read values from a snapshot that a close may already
 * have overtaken (its event heard first), so it only reuses (docs/operations.md#memory).
 */
export function valuePosition(state: PositionState, leverage: number, pricing: Pricing, keep = false): PositionValue {
  const pair = pricing.pair(state.symbol);
  if (!pair || state.quantityCentilots === 0) return noValue();
  const quote = pricing.quote(state.symbol);
  const quoteRate = pricing.usdRate(pair.quoteCurrency);
  const baseRate = pricing.usdRate(pair.baseCurrency);
  const last = pricing.lastValuation(state.id);
  if (
    last !== undefined &&
    last.pair === pair &&
    last.quantityCentilots === state.quantityCentilots &&
    last.averageEntryPrice === state.averageEntryPrice &&
    last.leverage === leverage &&
    last.quote === quote &&
    last.quoteRate === quoteRate &&
    last.baseRate === baseRate
  ) {
    return { ...last.value };
  }
  const value = valueOpenPosition(
    noValue(),
    lotsFromCentilots(state.quantityCentilots).times(pair.contractSize),
    Dec.from(state.averageEntryPrice),
    leverage,
    quote,
    quoteRate,
    baseRate,
  );
  if (keep && state.id > 0)
    pricing.keepValuation(state.id, {
      pair,
      quantityCentilots: state.quantityCentilots,
      averageEntryPrice: state.averageEntryPrice,
      leverage,
      quote,
      quoteRate,
      baseRate,
      value: { ...value },
    });
  return value;
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
 * Account figures of docs/trading-rules.md#account-figures at current prices, exact: equity = balance + Σ unrealized,
 * free margin = equity − margin used, margin level = equity ÷ margin used × 100.
 * Used for platform-data, the free-margin check at order time and the live streams.
 */
export function valueAccount(
  balanceMinor: number,
  leverage: number,
  positions: Iterable<PositionState>,
  pricing: Pricing,
  keep = false,
): AccountValue {
  const values = new Map<number, PositionValue>();
  for (const p of positions) if (p.status === 'OPEN') values.set(p.id, valuePosition(p, leverage, pricing, keep));
  const balance = Dec.scaled(balanceMinor, 2);
  return { balance, ...accountFigures(balance, values.values()), positions: values };
}
