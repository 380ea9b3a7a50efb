// The market module's types. Files inside market/ import them from here, never from the
// module's entry point (index.ts only composes), so the folder has no import circle.

import type { Candle } from '@pipdesk/contract';

/** Chart candles and ranges are the contract's: the answer the client parses is the type the server builds. */
export type { Candle, ChartRange } from '@pipdesk/contract';

/**
 * A price quote as the market knows it now. Prices are decimals at the pair's digits.
 * One object is one tick: a new tick is a new object, never a change to the last one, so
 * what is derived from a quote can be kept beside it (trading/math.ts `Pricing`).
 */
export interface Quote {
  readonly symbol: string;
  readonly bid: number;
  readonly ask: number;
  readonly mid: number;
  /** Epoch ms of the tick. */
  readonly timestamp: number;
}

/** A catalogue pair as the server uses it (the FxPair of docs/trading-rules.md#pairs). */
export interface Pair {
  id: number;
  symbol: string;
  name: string;
  baseCurrency: string;
  quoteCurrency: string;
  minLotSize: number;
  maxLotSize: number;
  contractSize: number;
  /** Typical spread in pips. */
  spread: number;
  pipSize: number;
  digits: number;
  isActive: boolean;
}

export interface PairCatalog {
  list(): Pair[];
  /** Case-insensitive. */
  get(symbol: string): Pair | undefined;
}

/** Latest prices in memory; ticks never touch the database per trader. */
export interface PriceBook {
  latest(symbol: string): Quote | undefined;
  all(): Quote[];
  /**
   * When this node received the symbol's latest quote, by its own clock (epoch ms): a quote is as
   * old as the time since it arrived, whatever the source stamped on it (docs/trading-rules.md#no-fill-on-a-stale-quote).
   */
  receivedAt(symbol: string): number | undefined;
  /** Called synchronously for every tick; returns an unsubscribe function. */
  onTick(listener: (quote: Quote) => void): () => void;
}

/** A source of ticks (simulator, replay, external feed, or a scripted one in tests). */
export interface PriceSource {
  readonly name: string;
  start(emit: (quote: Quote) => void): Promise<void>;
  stop(): Promise<void>;
  connected(): boolean;
  /** Called before start with the last stored mid of each pair, so a model can continue from them without a jump. */
  resume?(lastMids: ReadonlyMap<string, number>): void;
}

/**
 * A market of its own that an account is bound to (a replay session's,
 * docs/replay.md#the-accounts-market): what the market calls answer for `?account=` of such an
 * account instead of the live prices and candles.
 */
export interface AccountMarketView {
  /** The market's last quote of a pair at its clock (undefined: none). */
  quote(symbol: string): Quote | undefined;
  /** The pair's candles up to the market's clock, nothing after it (the chart-data window). */
  candles(pair: Pair, timeframeMinutes: number, window: { before?: number; limit: number }): Candle[];
}

/** The market of an account named with `?account=`: undefined when it trades on the live market. */
export type AccountMarketViews = (accountId: number) => Promise<AccountMarketView | undefined>;
