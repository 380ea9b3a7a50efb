import { ops } from '@pipdesk/contract';
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { operationRoutes } from '../http/operation-route.js';
import type { MarketService } from './service.js';

export interface MarketRouteDeps {
  service: MarketService;
  /** auth.authenticate; every market call requires a signed-in trader. */
  authenticate: preHandlerAsyncHookHandler;
}

/** The market calls of docs/api.md#market-calls, under /api. */
export async function registerMarketRoutes(api: FastifyInstance, deps: MarketRouteDeps): Promise<void> {
  const { service } = deps;
  const route = operationRoutes(api, deps);

  route(ops.currentPrices, async () => service.currentPrices());

  // GET trading/pair/{symbol}/ (the pair page) is the trading module's: it adds the trader's
  // part to `MarketModule.buildPairSnapshot`.

  route(ops.pairPrice, async ({ params }) => service.pairPrice(params.symbol));

  route(ops.chartData, async ({ params, query }) => service.chart(service.requirePair(params.symbol).symbol, query.range));
}
