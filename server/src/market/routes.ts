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

  // `before` and `limit` page a timeframe's candles; without `timeframe` they are ignored and the
  // spec's range answers as it always did (docs/decisions.md).
  route(ops.chartData, async ({ params, query }) => {
    const pair = service.requirePair(params.symbol);
    if (!query.timeframe) return service.chart(pair.symbol, query.range);
    return service.chartOf(pair, query.timeframe, { before: query.before, limit: query.limit });
  });
}
