import type { PerformanceDto } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import type { TradingDeps } from '../deps.js';
import { userId } from '../types.js';
import { performanceOfUser } from './service.js';

export async function registerPerformanceRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; trading: Pick<TradingDeps, 'db' | 'pricing'> },
): Promise<void> {
  api.get(
    '/trading/performance/',
    { preHandler: deps.auth.authenticate },
    async (request): Promise<{ success: true; data: PerformanceDto }> => ({
      success: true,
      data: await performanceOfUser(deps.trading, userId(request.auth.userId)),
    }),
  );
}
