import type { Generated } from 'kysely';

export interface FxPairsTable {
  id: Generated<number>;
  /** Six upper-case letters, unique. */
  symbol: string;
  name: string;
  base_currency: string;
  quote_currency: string;
  /** Decimal strings: configuration values that must stay exact ("0.01", "100", "1.2", "0.0001"). */
  min_lot_size: string;
  max_lot_size: string;
  contract_size: number;
  spread: string;
  pip_size: string;
  digits: number;
  /** 1 or 0. */
  is_active: number;
}

/**
 * One-minute candles and their 15-minute, hourly and four-hour aggregates, keyed by
 * (pair, timeframe in minutes, open time in epoch ms). Prices are mids scaled by
 * PRICE_SCALE (1e6) so they stay exact integers; volume is the number of ticks.
 */
export interface MarketCandlesTable {
  pair_id: number;
  timeframe: number;
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** Tables of the market module. */
export interface MarketTables {
  fx_pairs: FxPairsTable;
  market_candles: MarketCandlesTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends MarketTables {}
}
