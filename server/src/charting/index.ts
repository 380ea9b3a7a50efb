import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';
import type { TradingModule } from '../trading/index.js';
import { registerChartingRoutes } from './routes.js';

export interface ChartingModule {
  /** Registers the drawings, chart-layout and position-size calls under the /api prefix. */
  registerRoutes(api: FastifyInstance): Promise<void>;
}

/**
 * The chart tools kept on the server (docs/charting.md): drawings per trader and pair, the chart
 * layout with its indicators and settings, and position size from risk. Prices, rates and live
 * equity come from the market and trading modules, in memory.
 */
export function createChartingModule(
  ctx: AppContext,
  deps: { auth: AuthModule; market: Pick<MarketModule, 'pairs'>; trading: Pick<TradingModule, 'service' | 'live'> },
): ChartingModule {
  const charting = {
    db: ctx.db,
    clock: ctx.clock,
    pairs: deps.market.pairs,
    pricing: deps.trading.service.pricing,
    live: deps.trading.live,
  };
  return { registerRoutes: (api) => registerChartingRoutes(api, { auth: deps.auth, charting }) };
}
