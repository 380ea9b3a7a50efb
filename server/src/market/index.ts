import type { PairSnapshot, Price, PriceSourceHealthDto } from '@pipdesk/contract';
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
import { registerMarketRoutes } from './routes.js';
import { MarketService } from './service.js';
import { ExternalFeedSource } from './sources/external-feed.js';
import { ModelPriceSource } from './sources/model-source.js';
import type { AccountMarketViews, Candle, ChartRange, PairCatalog, PriceBook, PriceSource } from './types.js';

export { MINUTE_MS } from './candles.js';
export { pairDto } from './catalogue.js';
export { REFERENCE_USD_VALUE } from './legs.js';
export { isStaleQuote } from './price-book.js';
export { quoteAround } from './quotes.js';
export {
  type BarSeries,
  firstBarAtOrAfter,
  lastBarAtOrBefore,
  loadReplayData,
  WALK_KEYS_MS,
  walkKeys,
} from './replay-data.js';
export { seriesCandlesAt } from './series-candles.js';
export { priceDto } from './service.js';
export { ScriptedPriceSource } from './sources/scripted.js';
export type {
  AccountMarketView,
  AccountMarketViews,
  Candle,
  ChartRange,
  Pair,
  PairCatalog,
  PriceBook,
  PriceSource,
  Quote,
} from './types.js';

export interface MarketModule {
  pairs: PairCatalog;
  prices: PriceBook;
  /** The chart-data answer: 60 one-minute / 96 fifteen-minute / 168 hourly / 180 four-hour candles, oldest first, the last still forming. */
  chart(symbol: string, range: ChartRange): Promise<Candle[]>;
  registerRoutes(api: FastifyInstance): Promise<void>;
  registerSockets(app: FastifyInstance): Promise<void>;
  /** The feed's state and the pairs whose quotes are stale here (docs/operations.md#stale-quotes). */
  health(): PriceSourceHealthDto;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * The market part of `GET trading/pair/{symbol}/` (served by the trading module): `{pair, price}`
   * (price null before the first tick). Throws the 404 `Currency pair {symbol} not found` for an
   * unknown or inactive pair.
   */
  buildPairSnapshot(symbol: string): PairSnapshot;
  /** The `current-prices` answer: symbol → price of every active pair that has one. */
  currentPrices(): Record<string, Price>;
  /**
   * Who tells the market of an account bound to one of its own (a replay session's): the price,
   * current prices and chart calls with its `?account=` answer from it (docs/replay.md#the-accounts-market).
   */
  setAccountMarkets(views: AccountMarketViews): void;
  /**
   * The market of an account of its own moved (a replay session advanced): the price sockets that
   * follow it get its new quotes and candles (docs/replay.md#the-price-socket-of-a-practice-account).
   */
  accountMarketMoved(accountId: number): void;
  /** Whether this node runs the price source (docs/operations.md#one-process-or-many leader rule). */
  isLeader(): boolean;
  /** Writes closed one-minute candles now instead of at the next minute (tests). */
  flushCandles(): Promise<void>;
  /** Deletes sub-hourly candles older than CHART_HISTORY_DAYS now instead of at the hourly run (tests); returns the rows deleted. */
  pruneCandles(): Promise<number>;
}

export interface MarketOptions {
  /** Replaces the configured price source (tests drive prices with a scripted source). */
  priceSource?: PriceSource;
}

/** What the market module uses from other modules. */
export interface MarketDeps {
  /** Protects the market calls; without it they answer 401. */
  auth?: AuthModule;
  /** The owner of a trading account: a price socket may name only its trader's accounts. */
  accountOwner?: (accountId: number) => Promise<number | undefined>;
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
    registerRoutes: (api) => registerMarketRoutes(api, { service, authenticate }),
    registerSockets: async (app) => {
      hub = new PriceSocketHub({ ctx, catalog, book, service, feed, auth: deps.auth, accountOwner: deps.accountOwner });
      hub.register(app);
    },
    health: () => feed.health(),
    start: () => feed.start(),
    stop: async () => {
      hub?.close();
      await feed.stop();
    },
    buildPairSnapshot: (symbol) => service.pairSnapshot(symbol),
    currentPrices: () => service.currentPrices(),
    setAccountMarkets: (views) => service.setAccountMarkets(views),
    accountMarketMoved: (accountId) => hub?.accountMoved(accountId),
    isLeader: () => feed.isLeader(),
    flushCandles: () => feed.flush(),
    pruneCandles: () => feed.prune(),
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
