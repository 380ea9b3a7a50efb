import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';
import { createOrderEngine, type OrderEngine } from './engine/index.js';
import { createLiveTrading, type LiveTrading } from './live/index.js';
import { registerTradingRoutes } from './routes.js';
import { createTradingService, type TradingServiceImpl } from './service.js';

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
}

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Orders, executions, netting positions, history and the pair page (service.ts, routes.ts),
 * risk and the trading socket (live/), the order engine (engine/).
 */
export async function createTradingModule(
  ctx: AppContext,
  deps: { auth: AuthModule; market: MarketModule },
): Promise<TradingModule> {
  const service = createTradingService(ctx, deps.market);
  const live = createLiveTrading(ctx, { auth: deps.auth, market: deps.market, service });
  const engine = createOrderEngine(ctx, { market: deps.market, executor: service.triggers });
  let purgeTimer: NodeJS.Timeout | undefined;

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
    registerRoutes: (api) => registerTradingRoutes(api, { auth: deps.auth, service, market: deps.market }),
    registerSockets: (app) => live.registerSockets(app),
    start: async () => {
      await live.start();
      // After the live book, so the executions the engine causes find it following the bus.
      await engine.start();
      await purge();
      purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS);
      purgeTimer.unref();
    },
    stop: async () => {
      if (purgeTimer) clearInterval(purgeTimer);
      // First, while this node still leads: running triggers finish and trailing stops are written.
      await engine.stop();
      await live.stop();
    },
  };
}
