import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import { operationRoutes } from '../../http/operation-route.js';
import type { TradingDeps } from '../deps.js';
import { optionalAccountId, userId } from '../types.js';
import { performanceOfUser } from './service.js';

export async function registerPerformanceRoutes(
  api: FastifyInstance,
  deps: {
    auth: AuthModule;
    trading: Pick<TradingDeps, 'db' | 'pricing'>;
    /** The dependencies of a named account's calls: a practice account's equity is at its replay session's prices (docs/replay.md). */
    depsFor?: (account: number) => Promise<Pick<TradingDeps, 'db' | 'pricing'>>;
  },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);
  route(ops.performance, async ({ account }, { request }) => {
    const trading = account !== undefined && deps.depsFor ? await deps.depsFor(account) : deps.trading;
    return performanceOfUser(trading, userId(request.auth.userId), optionalAccountId(account));
  });
}
