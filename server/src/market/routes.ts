import { chartDataQuerySchema } from '@pipdesk/contract';
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../core/validate.js';
import type { MarketService } from './service.js';

const symbolParams = z.object({ symbol: z.string().min(1).max(200) });

export interface MarketRouteDeps {
  service: MarketService;
  /** auth.authenticate; every market call requires a signed-in trader. */
  authenticate: preHandlerAsyncHookHandler;
}

/** The market calls of docs/api.md#market-calls, under /api. */
export async function registerMarketRoutes(api: FastifyInstance, deps: MarketRouteDeps): Promise<void> {
  const { service } = deps;
  const signedIn = { preHandler: deps.authenticate };

  api.get('/trading/current-prices/', signedIn, async () => ({ success: true, data: service.currentPrices() }));

  // GET trading/pair/{symbol}/ (the pair page) is the trading module's: it adds the trader's
  // part to `MarketModule.buildPairSnapshot`.

  api.get('/trading/pair/:symbol/price/', signedIn, async (request) => {
    const { symbol } = parseInput(symbolParams, request.params, 'params');
    return { success: true, data: service.pairPrice(symbol) };
  });

  api.get('/trading/pair/:symbol/chart-data/', signedIn, async (request) => {
    const { symbol } = parseInput(symbolParams, request.params, 'params');
    const pair = service.requirePair(symbol);
    const { range } = parseInput(chartDataQuerySchema, request.query, 'query');
    return { success: true, data: await service.chart(pair.symbol, range) };
  });
}
