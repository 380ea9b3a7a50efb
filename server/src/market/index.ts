import type { PairSnapshot, Price } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
import { CandleStore } from './candle-store.js';
import { LiveCandles } from './candles.js';
import { Catalog, PAIR_SEEDS, seedRow } from './catalogue.js';
import { MarketFeed } from './feed.js';
import { createLeadership } from './leader.js';
import { MemoryPriceBook } from './price-book.js';
import { PriceSocketHub } from './price-socket.js';
import { loadReplayData } from './replay-data.js';
import { listPairs, seedPairs } from './repo.js';
import { type PairSnapshotExtension, registerMarketRoutes } from './routes.js';
import { MarketService } from './service.js';
import { ExternalFeedSource } from './sources/external-feed.js';
import { ModelPriceSource } from './sources/model-source.js';

export { pairDto } from './catalogue.js';
export type { PairSnapshotExtension } from './routes.js';
export { priceDto } from './service.js';
export { ScriptedPriceSource } from './sources/scripted.js';

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
  /** Called before start with the last stored mid of each pair, so a model can continue from them without a jump. */
  resume?(lastMids: ReadonlyMap<string, number>): void;
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
  /**
   * The market part of `GET trading/pair/{symbol}/`: `{pair, price}` (price null before the
   * first tick). Throws the 404 `Currency pair {symbol} not found` for an unknown or inactive pair.
   */
  buildPairSnapshot(symbol: string): PairSnapshot;
  /**
   * Adds fields to the `trading/pair/{symbol}/` answer, which this module serves: the trading
   * module registers one extension returning `{positions, recent_orders, trading_account}` for
   * the signed-in trader (`request.auth`). Extensions run in registration order after the pair
   * was found; call this any time before the first request.
   */
  extendPairSnapshot(extension: PairSnapshotExtension): void;
  /** The `current-prices` answer: symbol → price of every active pair that has one. */
  currentPrices(): Record<string, Price>;
  /** Whether this node runs the price source (DESIGN §1 leader rule). */
  isLeader(): boolean;
  /** Writes closed one-minute candles now instead of at the next minute (tests). */
  flushCandles(): Promise<void>;
}

export interface MarketOptions {
  /** Replaces the configured price source (tests drive prices with a scripted source). */
  priceSource?: PriceSource;
}

/** What the market module uses from other modules. */
export interface MarketDeps {
  /** Protects the market calls; without it they answer 401. */
  auth?: AuthModule;
}

/**
 * The market module: seeds and loads the catalogue, builds the configured price source,
 * and serves prices, charts and the price socket. Call `start()` to backfill history (on a
 * new database) and start the source on the leader node.
 */
export async function createMarketModule(
  ctx: AppContext,
  options: MarketOptions = {},
  deps: MarketDeps = {},
): Promise<MarketModule> {
  await seedPairs(ctx.db.kysely, PAIR_SEEDS.map(seedRow));
  const catalog = new Catalog(await listPairs(ctx.db.kysely));
  const book = new MemoryPriceBook((err) => ctx.log.error({ err }, 'price listener failed'));
  const candles = new LiveCandles();
  const service = new MarketService(ctx, catalog, book, candles);
  const source = options.priceSource ?? createConfiguredSource(ctx, catalog);
  const feed = new MarketFeed({
    ctx,
    catalog,
    book,
    candles,
    store: new CandleStore(ctx),
    source,
    leadership: createLeadership(ctx),
  });
  const extensions: PairSnapshotExtension[] = [];
  let hub: PriceSocketHub | undefined;
  const authenticate =
    deps.auth?.authenticate ??
    (async () => {
      throw errors.unauthenticated();
    });

  return {
    pairs: catalog,
    prices: book,
    chart: (symbol, range) => service.chart(symbol, range),
    registerRoutes: (api) => registerMarketRoutes(api, { service, authenticate, extensions }),
    registerSockets: async (app) => {
      hub = new PriceSocketHub({ ctx, catalog, book, service, feed, auth: deps.auth });
      hub.register(app);
    },
    health: () => feed.health(),
    start: () => feed.start(),
    stop: async () => {
      hub?.close();
      await feed.stop();
    },
    buildPairSnapshot: (symbol) => service.pairSnapshot(symbol),
    extendPairSnapshot: (extension) => {
      extensions.push(extension);
    },
    currentPrices: () => service.currentPrices(),
    isLeader: () => feed.isLeader(),
    flushCandles: () => feed.flush(),
  };
}

function createConfiguredSource(ctx: AppContext, catalog: Catalog): PriceSource {
  const { config, clock } = ctx;
  const pairs = catalog.active();
  const onError = (err: unknown) => ctx.log.error({ err }, 'price step failed');
  switch (config.priceSource) {
    case 'replay':
      return new ModelPriceSource({ pairs, seed: config.priceSeed, clock, replay: loadReplayData(), onError });
    case 'external':
      // config.ts makes EXTERNAL_FEED_URL required for this source.
      return new ExternalFeedSource({
        url: config.externalFeedUrl ?? '',
        pairs,
        clock,
        staleMs: config.externalFeedStaleMs,
        log: ctx.log,
      });
    default:
      return new ModelPriceSource({ pairs, seed: config.priceSeed, clock, onError });
  }
}
