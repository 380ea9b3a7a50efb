import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.js';

/** A price quote as the market knows it now. Prices are decimals at the pair's digits. */
export interface Quote {
  symbol: string;
  bid: number;
  ask: number;
  mid: number;
  /** Epoch ms of the tick. */
  timestamp: number;
}

/** A catalogue pair as the server uses it (the FxPair of DESIGN §2). */
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
  /** Called synchronously for every tick; returns an unsubscribe function. */
  onTick(listener: (quote: Quote) => void): () => void;
}

/** A source of ticks (simulator, replay, external feed, or a scripted one in tests). */
export interface PriceSource {
  readonly name: string;
  start(emit: (quote: Quote) => void): Promise<void>;
  stop(): Promise<void>;
  connected(): boolean;
}

/** A chart candle of mid prices; `time` is the candle's open time in epoch ms, volume = tick count. */
export interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export type ChartRange = '1h' | '24h' | '1w' | '1m';

export interface MarketModule {
  pairs: PairCatalog;
  prices: PriceBook;
  /** The chart-data answer: 60 one-minute / 96 fifteen-minute / 168 hourly / 180 four-hour candles, oldest first, the last still forming. */
  chart(symbol: string, range: ChartRange): Promise<Candle[]>;
  registerRoutes(api: FastifyInstance): Promise<void>;
  registerSockets(app: FastifyInstance): Promise<void>;
  health(): { name: string; connected: boolean; last_tick_age_ms: number | null };
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface MarketOptions {
  /** Replaces the configured price source (tests drive prices with a scripted source). */
  priceSource?: PriceSource;
}

// Placeholder until the market module lands (issue 3): no pairs, no prices.
export async function createMarketModule(_ctx: AppContext, _options: MarketOptions = {}): Promise<MarketModule> {
  return {
    pairs: { list: () => [], get: () => undefined },
    prices: { latest: () => undefined, all: () => [], onTick: () => () => {} },
    chart: async () => [],
    registerRoutes: async () => {},
    registerSockets: async () => {},
    health: () => ({ name: 'none', connected: false, last_tick_age_ms: null }),
    start: async () => {},
    stop: async () => {},
  };
}
