import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';

export interface TradingModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  registerSockets(app: FastifyInstance): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

// Placeholder until the trading module lands (issue 4).
export async function createTradingModule(
  _ctx: AppContext,
  _deps: { auth: AuthModule; market: MarketModule },
): Promise<TradingModule> {
  return { registerRoutes: async () => {}, registerSockets: async () => {}, start: async () => {}, stop: async () => {} };
}
