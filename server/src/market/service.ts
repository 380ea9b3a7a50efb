import { type Candle, CHART_RANGES, type ChartRange, type PairSnapshot, type Price, roundPrice } from '@pipdesk/contract';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
import { aggregateCandles, bucketStart, type LiveCandles, MINUTE_MS, mergeByTime, toChartCandle } from './candles.js';
import { type Catalog, pairDto } from './catalogue.js';
import { candlesIn } from './repo.js';
import type { Pair, PriceBook, Quote } from './types.js';

/** The most closed candles one gap fill sends (a day of minutes). */
export const MAX_GAP_FILL = 1440;

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
  constructor(
    private readonly ctx: AppContext,
    private readonly catalog: Catalog,
    private readonly book: PriceBook,
    private readonly candles: LiveCandles,
  ) {}

  /** An active pair by symbol (any case), else 404 `Currency pair {symbol} not found`. */
  requirePair(symbol: string): Pair {
    const pair = this.catalog.get(symbol);
    if (!pair?.isActive) throw errors.pairNotFound(symbol.toUpperCase().slice(0, 20));
    return pair;
  }

  currentPrices(): Record<string, Price> {
    const out: Record<string, Price> = {};
    for (const pair of this.catalog.active()) {
      const quote = this.book.latest(pair.symbol);
      if (quote) out[pair.symbol] = priceDto(quote, pair.digits);
    }
    return out;
  }

  pairSnapshot(symbol: string): PairSnapshot {
    const pair = this.requirePair(symbol);
    const quote = this.book.latest(pair.symbol);
    return { pair: pairDto(pair), price: quote ? priceDto(quote, pair.digits) : null };
  }

  pairPrice(symbol: string): Price {
    const pair = this.requirePair(symbol);
    const quote = this.book.latest(pair.symbol);
    if (!quote) throw errors.unavailable(`No price available for ${pair.symbol} yet`);
    return priceDto(quote, pair.digits);
  }

  /**
   * The chart answer: the `count` newest candles of the range's size, oldest first, the
   * last one still forming. Older candles are read as stored aggregates (one short index
   * scan); the window that memory still holds is rebuilt from one-minute candles.
   */
  async chart(symbol: string, range: ChartRange): Promise<Candle[]> {
    const pair = this.requirePair(symbol);
    const { timeframeMinutes: tf, count } = CHART_RANGES[range];
    const now = this.ctx.clock.now();
    const memory = this.candles.candles(pair.symbol);
    const recentStart = bucketStart(Math.min(memory[0]?.time ?? now, now), tf);
    const db = this.ctx.db.kysely;
    const [older, storedRecent] = await Promise.all([
      candlesIn(db, pair.id, tf, { before: recentStart, newest: count }),
      candlesIn(db, pair.id, 1, { from: recentStart }),
    ]);
    const recentMinutes = mergeByTime(storedRecent, memory);
    const recent = tf === 1 ? recentMinutes : aggregateCandles(recentMinutes, tf);
    return [...older, ...recent].slice(-count).map(toChartCandle);
  }

  /**
   * Closed one-minute candles from `since` (inclusive: the client's copy of that candle may
   * have been still forming) up to the current minute, at most a day of them.
   */
  async closedCandlesSince(pair: Pair, since: number): Promise<Candle[]> {
    const nowMinute = bucketStart(this.ctx.clock.now(), 1);
    const from = Math.max(bucketStart(since, 1), nowMinute - MAX_GAP_FILL * MINUTE_MS);
    if (from >= nowMinute) return [];
    const stored = await candlesIn(this.ctx.db.kysely, pair.id, 1, { from, before: nowMinute });
    const memory = this.candles.candles(pair.symbol).filter((c) => c.time >= from && c.time < nowMinute);
    return mergeByTime(stored, memory).map(toChartCandle);
  }

  /** The live one-minute candle of a pair, if it ticked this minute. */
  liveCandle(pair: Pair): Candle | undefined {
    const live = this.candles.liveCandle(pair.symbol);
    return live ? toChartCandle(live) : undefined;
  }
}
