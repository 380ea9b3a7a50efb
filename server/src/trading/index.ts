import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';
import { createLiveTrading, type LiveTrading } from './live/index.js';
import { registerTradingRoutes } from './routes.js';
import { createTradingService, type TradingServiceImpl } from './service.js';

export interface TradingModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  registerSockets(app: FastifyInstance): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Orders, positions, account figures (also used by the market's pair page). */
  service: TradingServiceImpl;
  live: LiveTrading;
}

const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Orders, executions, netting positions, history (service.ts), risk and the trading socket (live/). */
export async function createTradingModule(
  ctx: AppContext,
  deps: { auth: AuthModule; market: MarketModule },
): Promise<TradingModule> {
  const service = createTradingService(ctx, deps.market);
  const live = createLiveTrading(ctx, { auth: deps.auth, market: deps.market, service });
  // The market serves GET trading/pair/{symbol}/ ({pair, price}); the trader's part comes from here.
  deps.market.extendPairSnapshot(async (request, pair) => ({ ...(await service.pairTrading(request.auth.userId, pair.symbol)) }));
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
    registerRoutes: (api) => registerTradingRoutes(api, { auth: deps.auth, service }),
    registerSockets: (app) => live.registerSockets(app),
    start: async () => {
      await live.start();
      await purge();
      purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS);
      purgeTimer.unref();
    },
    stop: async () => {
      if (purgeTimer) clearInterval(purgeTimer);
      await live.stop();
    },
  };
}
