import {
  type Candle,
  CHART_DEFAULT_LIMIT,
  CHART_MAX_LIMIT,
  CHART_RANGES,
  type ChartRange,
  type PairSnapshot,
  type Price,
  roundPrice,
  TIMEFRAME_MINUTES,
  type Timeframe,
} from '@pipdesk/contract';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
import {
  aggregateCandles,
  bucketStart,
  type LiveCandles,
  MINUTE_MS,
  mergeByTime,
  type ScaledCandle,
  toChartCandle,
} from './candles.js';
import { type Catalog, pairDto } from './catalogue.js';
import { FormingCandles } from './forming.js';
import { candlesIn } from './repo.js';
import { SETTLED_AFTER_MS, SettledCandles } from './settled-candles.js';
import type { AccountMarketView, AccountMarketViews, Pair, PriceBook, Quote } from './types.js';

/** The most closed one-minute candles one gap fill sends (a day of minutes). */
export const MAX_GAP_FILL = 1440;
/** The most closed candles of a larger timeframe one gap fill sends (a chart-data page at most). */
export const MAX_GAP_FILL_CANDLES = CHART_MAX_LIMIT;

/** The price answer of the calls: bid and ask at the pair's digits, the mid one decimal finer. */
export function priceDto(quote: Quote, digits: number): Price {
  const mid = roundPrice(quote.mid, digits + 1);
  return {
    bid: roundPrice(quote.bid, digits),
    ask: roundPrice(quote.ask, digits),
    mid,
    price: mid,
    timestamp: new Date(quote.timestamp).toISOString(),
  };
}

/** Reads of the market: pairs with their prices and charts. Candles come from the database plus what memory has not written yet. */
export class MarketService {
  private readonly forming: FormingCandles;
  private readonly settled: SettledCandles;
  private accountMarkets: AccountMarketViews | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly catalog: Catalog,
    private readonly book: PriceBook,
    private readonly candles: LiveCandles,
  ) {
    this.forming = new FormingCandles(candles, ctx.clock, (pair, tf, from, before) => this.aggregateOf(pair, tf, from, before));
    this.settled = new SettledCandles(
      (pairId, tf, window) => candlesIn(ctx.db.kysely, pairId, tf, window),
      () => ctx.clock.now(),
    );
  }

  /** Who tells the market of an account bound to one of its own (the replay module, at start). */
  setAccountMarkets(views: AccountMarketViews): void {
    this.accountMarkets = views;
  }

  /**
   * The market of the account a call names with `?account=` (docs/replay.md#the-accounts-market):
   * undefined for a call that names none (nothing is looked up) and for an account on the live market.
   */
  async accountMarket(account: number | undefined): Promise<AccountMarketView | undefined> {
    if (account === undefined || !this.accountMarkets) return undefined;
    return this.accountMarkets(account);
  }

  /** An active pair by symbol (any case), else 404 `Currency pair {symbol} not found`. */
  requirePair(symbol: string): Pair {
    const pair = this.catalog.get(symbol);
    if (!pair?.isActive) throw errors.pairNotFound(symbol.toUpperCase().slice(0, 20));
    return pair;
  }

  /** Every active pair's price: the live one, or that of the account's own market (`own`). */
  currentPrices(own?: AccountMarketView): Record<string, Price> {
    const out: Record<string, Price> = {};
    for (const pair of this.catalog.active()) {
      const quote = own ? own.quote(pair.symbol) : this.book.latest(pair.symbol);
      if (quote) out[pair.symbol] = priceDto(quote, pair.digits);
    }
    return out;
  }

  pairSnapshot(symbol: string): PairSnapshot {
    const pair = this.requirePair(symbol);
    const quote = this.book.latest(pair.symbol);
    return { pair: pairDto(pair), price: quote ? priceDto(quote, pair.digits) : null };
  }

  pairPrice(symbol: string, own?: AccountMarketView): Price {
    const pair = this.requirePair(symbol);
    const quote = own ? own.quote(pair.symbol) : this.book.latest(pair.symbol);
    if (!quote) throw errors.unavailable(`No price available for ${pair.symbol} yet`);
    return priceDto(quote, pair.digits);
  }

  /**
   * The chart answer of a spec range: the `count` newest candles of the range's size, oldest
   * first, the last one still forming.
   */
  async chart(symbol: string, range: ChartRange, own?: AccountMarketView): Promise<Candle[]> {
    const pair = this.requirePair(symbol);
    const { timeframeMinutes, count } = CHART_RANGES[range];
    if (own) return own.candles(pair, timeframeMinutes, { limit: count });
    return (await this.candlesOf(pair, timeframeMinutes, { limit: count })).map(toChartCandle);
  }

  /**
   * The chart answer with a timeframe (docs/api.md#chart-data): the `limit` newest candles that
   * open before `before` (up to now, the forming one included, without it), oldest first.
   */
  async chartOf(
    pair: Pair,
    timeframe: Timeframe,
    window: { before?: number; limit?: number },
    own?: AccountMarketView,
  ): Promise<Candle[]> {
    const limit = window.limit ?? CHART_DEFAULT_LIMIT;
    if (own)
      return own.candles(pair, TIMEFRAME_MINUTES[timeframe], {
        ...(window.before === undefined ? {} : { before: window.before }),
        limit,
      });
    const candles = await this.candlesOf(pair, TIMEFRAME_MINUTES[timeframe], { before: window.before, limit });
    return candles.map(toChartCandle);
  }

  /**
   * Settled candles (their bucket ended over SETTLED_AFTER_MS ago) are stored aggregates: the
   * newest thousand of each pair and timeframe come from memory (`SettledCandles`), older pages
   * from one short index range. The buckets from the settled edge on are rebuilt from what is
   * stored and what memory holds.
   */
  private async candlesOf(pair: Pair, tf: number, window: { before?: number; limit: number }): Promise<ScaledCandle[]> {
    const now = this.ctx.clock.now();
    const memory = this.candles.candles(pair.symbol);
    const memoryStart = Math.min(memory[0]?.time ?? now, now);
    const edge = bucketStart(Math.min(memoryStart, now - SETTLED_AFTER_MS), tf);
    const end = window.before ?? Number.POSITIVE_INFINITY;
    if (end <= edge) return candlesIn(this.ctx.db.kysely, pair.id, tf, { before: end, newest: window.limit });
    const [older, base] = await Promise.all([
      this.settled.newest(pair.id, tf, edge, window.limit),
      this.baseCandles(pair, edge, undefined, memory),
    ]);
    const recent = tf === 1 ? base : aggregateCandles(base, tf);
    return [...older, ...recent.filter((c) => c.time < end)].slice(-window.limit);
  }

  /**
   * The pieces of [from, before) to aggregate, oldest first: stored hourly candles for the whole
   * hours before the hour of memory's oldest minute (at most 23 of them for a day), then
   * one-minute candles, stored and in memory (memory wins on the same minute). `from` is aligned
   * to the timeframe being built, so it is hour-aligned whenever hours are used.
   */
  private async baseCandles(
    pair: Pair,
    from: number,
    before: number | undefined,
    memory: readonly ScaledCandle[],
  ): Promise<ScaledCandle[]> {
    const now = this.ctx.clock.now();
    const memoryStart = Math.min(memory[0]?.time ?? now, now, before ?? now);
    // Hourly candles stand in for whole hours only: from a `from` inside an hour (a timeframe under
    // an hour, whose settled edge is ten minutes back) every minute is read, or the minutes between
    // it and the hour of memory's oldest minute would be lost (a node started early in an hour).
    const minutesFrom = from % (60 * MINUTE_MS) === 0 ? Math.max(from, bucketStart(memoryStart, 60)) : from;
    const db = this.ctx.db.kysely;
    const [hours, storedMinutes] = await Promise.all([
      minutesFrom > from ? candlesIn(db, pair.id, 60, { from, before: minutesFrom }) : [],
      candlesIn(db, pair.id, 1, { from: minutesFrom, ...(before === undefined ? {} : { before }) }),
    ]);
    const inMemory = memory.filter((c) => c.time >= minutesFrom && (before === undefined || c.time < before));
    return [...hours, ...mergeByTime(storedMinutes, inMemory)];
  }

  /**
   * Closed candles of `tf` minutes from `since` (inclusive: the client's copy of that candle may
   * have been still forming) up to the current one: at most a day of minutes, or MAX_GAP_FILL_CANDLES.
   */
  async closedCandlesSince(pair: Pair, since: number, tf = 1): Promise<Candle[]> {
    if (tf === 1) {
      const nowMinute = bucketStart(this.ctx.clock.now(), 1);
      const from = Math.max(bucketStart(since, 1), nowMinute - MAX_GAP_FILL * MINUTE_MS);
      if (from >= nowMinute) return [];
      const stored = await candlesIn(this.ctx.db.kysely, pair.id, 1, { from, before: nowMinute });
      const memory = this.candles.candles(pair.symbol).filter((c) => c.time >= from && c.time < nowMinute);
      return mergeByTime(stored, memory).map(toChartCandle);
    }
    const current = bucketStart(this.ctx.clock.now(), tf);
    const from = bucketStart(since, tf);
    if (from >= current) return [];
    const closed = await this.candlesOf(pair, tf, { before: current, limit: MAX_GAP_FILL_CANDLES });
    return closed.filter((c) => c.time >= from).map(toChartCandle);
  }

  /** The live one-minute candle of a pair, if it ticked this minute. */
  liveCandle(pair: Pair): Candle | undefined {
    const live = this.candles.liveCandle(pair.symbol);
    return live ? toChartCandle(live) : undefined;
  }

  /** Reads what the live candle of `tf` minutes needs from the database (on subscribe, never per tick). */
  prepareFormingCandle(pair: Pair, tf: number): Promise<void> {
    return tf === 1 ? Promise.resolve() : this.forming.prepare(pair, tf);
  }

  /** The live candle of `tf` minutes from memory (after `prepareFormingCandle`), if its bucket has a price. */
  formingCandle(pair: Pair, tf: number): Candle | undefined {
    if (tf === 1) return this.liveCandle(pair);
    const candle = this.forming.candle(pair, tf);
    return candle ? toChartCandle(candle) : undefined;
  }

  /**
   * The one candle of `tf` minutes built from what is stored and in memory for [from, before)
   * (the closed part of a forming candle, forming.ts), or undefined when no minute has a price.
   */
  private async aggregateOf(pair: Pair, tf: number, from: number, before: number): Promise<ScaledCandle | undefined> {
    const base = await this.baseCandles(pair, from, before, this.candles.candles(pair.symbol));
    return aggregateCandles(base, tf).find((c) => c.time === from);
  }
}
