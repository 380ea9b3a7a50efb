import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import { operationRoutes } from '../../http/operation-route.js';
import type { TradingDeps } from '../deps.js';
import { optionalAccountId, userId } from '../types.js';
import { performanceOfUser } from './service.js';

export async function registerPerformanceRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; trading: Pick<TradingDeps, 'db' | 'pricing'> },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);
  route(ops.performance, async ({ account }, { request }) =>
    performanceOfUser(deps.trading, userId(request.auth.userId), optionalAccountId(account)),
  );
}
