import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';
import type { ChallengeRulesSource } from './challenge.js';
import { createOrderEngine, type OrderEngine } from './engine/index.js';
import { createLiveTrading, type LiveTrading } from './live/index.js';
import { createPerformanceModule, type PerformanceModule } from './performance/index.js';
import { type AccountAttempts, type AccountReplays, listAccounts } from './queries/accounts-list.js';
import { registerTradingRoutes } from './routes.js';
import { createTradingService, type TradingServiceImpl } from './service.js';

// What other modules use of trading (docs/ARCHITECTURE.md#modules): they import it from here.
export type {
  AccountMarketLoader,
  AccountMarketSource,
  AccountMarkets,
  BoundAccountMarket,
} from './account-markets.js';
export type { ChallengeOrderRules, ChallengeRulesSource } from './challenge.js';
export type { LiveAccount } from './live/book.js';
export { type EquityWatch, equityWatch } from './live/equity-watch.js';
export type { LiveTrading } from './live/index.js';
export type { TradingServiceImpl } from './service.js';
export { accountId, userId } from './types.js';

export interface TradingModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  registerSockets(app: FastifyInstance): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Orders, positions, account figures. */
  service: TradingServiceImpl;
  live: LiveTrading;
  /** Pending orders, protection, trailing stops and expiry (docs/order-engine.md). */
  engine: OrderEngine;
  /** Statistics, equity curve and journal (docs/performance.md). */
  performance: PerformanceModule;
}

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Orders, executions, netting positions, history and the pair page (service.ts, routes.ts),
 * risk and the trading socket (live/), the order engine (engine/).
 */
export async function createTradingModule(
  ctx: AppContext,
  deps: {
    auth: AuthModule;
    market: MarketModule;
    challengeRules?: ChallengeRulesSource;
    accountAttempts?: AccountAttempts;
    accountReplays?: AccountReplays;
  },
): Promise<TradingModule> {
  const service = createTradingService(ctx, deps.market, deps.challengeRules);
  const live = createLiveTrading(ctx, { auth: deps.auth, market: deps.market, service, markets: service.markets });
  const engine = createOrderEngine(ctx, { market: deps.market, executor: service.triggers });
  const performance = createPerformanceModule(
    { db: ctx.db, clock: ctx.clock, pricing: service.pricing, log: ctx.log },
    { auth: deps.auth, isLeader: () => deps.market.isLeader(), depsFor: (account) => service.markets.depsFor(account) },
  );
  let purgeTimer: NodeJS.Timeout | undefined;
  let unsubscribers: Array<() => void> = [];

  const purge = async () => {
    try {
      await service.purgeIdempotencyKeys();
    } catch (err) {
      ctx.log.warn({ err }, 'purging old idempotency keys failed');
    }
  };

  return {
    service,
    live,
    engine,
    performance,
    registerRoutes: async (api) => {
      await registerTradingRoutes(api, {
        auth: deps.auth,
        service,
        market: deps.market,
        listAccounts: (user) =>
          listAccounts(
            {
              db: ctx.db,
              live,
              ...(deps.accountAttempts ? { attempts: deps.accountAttempts } : {}),
              ...(deps.accountReplays ? { replays: deps.accountReplays } : {}),
              markets: service.markets,
            },
            user,
          ),
      });
      await performance.registerRoutes(api);
    },
    registerSockets: (app) => live.registerSockets(app),
    start: async () => {
      // A closed position leaves the valuation cache with its close, on every node; after a
      // resync, closes missed meanwhile must not stay behind (docs/operations.md#memory).
      unsubscribers = [
        ctx.bus.subscribe('execution', ({ payload }) => {
          if (payload.position_state?.status === 'CLOSED') service.pricing.forgetValuation(payload.position_state.id);
        }),
        ctx.bus.subscribe('resync', () => service.pricing.forgetValuations()),
      ];
      await live.start();
      // After the live book, so the executions the engine causes find it following the bus.
      await engine.start();
      await purge();
      purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS);
      purgeTimer.unref();
      performance.start();
    },
    stop: async () => {
      if (purgeTimer) clearInterval(purgeTimer);
      for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
      await performance.stop();
      // First, while this node still leads: running triggers finish and trailing stops are written.
      await engine.stop();
      await live.stop();
    },
  };
}
