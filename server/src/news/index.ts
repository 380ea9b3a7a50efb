import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';
import { FeedSource } from './feeds.js';
import { MarketWireSource } from './market-wire.js';
import { PolygonSource } from './polygon.js';
import { registerNewsRoutes } from './routes.js';
import { NewsService, type SourceHealth } from './service.js';
import { DEFAULT_SOURCE_LIMITS, type NewsSource, type SourceLimits } from './source.js';

export type { SourceHealth } from './service.js';
export type { NewsSource } from './source.js';

export interface NewsModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  /** Per-source state for /api/health/. */
  health(): Record<string, SourceHealth>;
  stop(): Promise<void>;
  /** The merged, cached news (what the routes call). */
  service: NewsService;
}

export interface NewsOptions {
  /** Replaces the configured sources (tests). */
  sources?: NewsSource[];
  /** Byte and item caps per answer (tests lower them). */
  limits?: SourceLimits;
}

/**
 * Sources, in order of preference for a story several of them carry: the Polygon-compatible
 * API when NEWS_API_KEY is set, each NEWS_FEEDS feed, then the built-in market wire (always on,
 * so news works offline).
 */
export async function createNewsModule(
  ctx: AppContext,
  deps: { auth: AuthModule; market: MarketModule },
  options: NewsOptions = {},
): Promise<NewsModule> {
  const { config } = ctx;
  const limits = options.limits ?? DEFAULT_SOURCE_LIMITS;
  const catalogue = deps.market.pairs;
  const sources: NewsSource[] = options.sources ?? [
    ...(config.newsApiKey
      ? [
          new PolygonSource({
            baseUrl: config.newsApiUrl,
            apiKey: config.newsApiKey,
            catalogue,
            limits,
            timeoutMs: config.newsSourceTimeoutMs,
          }),
        ]
      : []),
    ...[...new Set(config.newsFeeds)].map(
      (url) => new FeedSource(url, { catalogue, clock: ctx.clock, limits, timeoutMs: config.newsSourceTimeoutMs }),
    ),
    new MarketWireSource({ market: deps.market, clock: ctx.clock }),
  ];
  const service = new NewsService({
    sources,
    catalogue,
    clock: ctx.clock,
    log: ctx.log,
    cacheTtlMs: config.newsCacheTtlSeconds * 1000,
    sourceTimeoutMs: config.newsSourceTimeoutMs,
  });
  return {
    service,
    registerRoutes: (api) => registerNewsRoutes(api, { auth: deps.auth, service }),
    health: () => service.health(),
    stop: async () => service.stop(),
  };
}
