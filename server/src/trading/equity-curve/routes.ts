import { type EquityCurveDto, equityCurveQuerySchema } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import { parseInput } from '../../core/validate.js';
import type { TradingDeps } from '../deps.js';
import { userId } from '../types.js';
import { equityCurveOfUser } from './service.js';

export async function registerEquityCurveRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; trading: Pick<TradingDeps, 'db' | 'clock'> },
): Promise<void> {
  api.get(
    '/trading/equity-curve/',
    { preHandler: deps.auth.authenticate },
    async (request): Promise<{ success: true; data: EquityCurveDto }> => {
      const { range } = parseInput(equityCurveQuerySchema, request.query, 'query');
      return { success: true, data: await equityCurveOfUser(deps.trading, userId(request.auth.userId), range) };
    },
  );
}
