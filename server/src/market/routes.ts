import { chartDataQuerySchema } from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../core/validate.js';
import type { Pair } from './index.js';
import type { MarketService } from './service.js';

/** Adds fields to the `trading/pair/{symbol}/` answer (the trading module adds positions, orders and the account). */
export type PairSnapshotExtension = (request: FastifyRequest, pair: Pair) => Promise<Record<string, unknown>>;

const symbolParams = z.object({ symbol: z.string().min(1).max(200) });

export interface MarketRouteDeps {
  service: MarketService;
  /** auth.authenticate; every market call requires a signed-in trader. */
  authenticate: preHandlerAsyncHookHandler;
  extensions: readonly PairSnapshotExtension[];
}

/** The market calls of DESIGN §4, under /api. */
export async function registerMarketRoutes(api: FastifyInstance, deps: MarketRouteDeps): Promise<void> {
  const { service } = deps;
  const signedIn = { preHandler: deps.authenticate };

  api.get('/trading/current-prices/', signedIn, async () => ({ success: true, data: service.currentPrices() }));

  api.get('/trading/pair/:symbol/', signedIn, async (request) => {
    const { symbol } = parseInput(symbolParams, request.params, 'params');
    const pair = service.requirePair(symbol);
    const snapshot: Record<string, unknown> = { ...service.pairSnapshot(pair.symbol) };
    for (const extend of deps.extensions) Object.assign(snapshot, await extend(request, pair));
    return { success: true, data: snapshot };
  });

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
