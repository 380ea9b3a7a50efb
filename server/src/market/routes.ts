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

  // With `?account=` of an account on a market of its own (a replay session's), its prices and
  // candles, cut at its clock (docs/replay.md#the-accounts-market); the live ones otherwise.
  route(ops.currentPrices, async ({ account }) => service.currentPrices(await service.accountMarket(account)));

  // GET trading/pair/{symbol}/ (the pair page) is the trading module's: it adds the trader's
  // part to `MarketModule.buildPairSnapshot`.

  route(ops.pairPrice, async ({ params, account }) => service.pairPrice(params.symbol, await service.accountMarket(account)));

  // `before` and `limit` page a timeframe's candles; without `timeframe` they are ignored and the
  // spec's range answers as it always did (docs/decisions.md).
  route(ops.chartData, async ({ params, query, account }) => {
    const pair = service.requirePair(params.symbol);
    const own = await service.accountMarket(account);
    if (!query.timeframe) return service.chart(pair.symbol, query.range, own);
    return service.chartOf(pair, query.timeframe, { before: query.before, limit: query.limit }, own);
  });
}
