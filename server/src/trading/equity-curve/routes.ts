import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import { operationRoutes } from '../../http/operation-route.js';
import type { TradingDeps } from '../deps.js';
import { optionalAccountId, userId } from '../types.js';
import { equityCurveOfUser } from './service.js';

export async function registerEquityCurveRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; trading: Pick<TradingDeps, 'db' | 'clock'> },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);
  route(ops.equityCurve, async ({ query, account }, { request }) =>
    equityCurveOfUser(deps.trading, userId(request.auth.userId), query.range, optionalAccountId(account)),
  );
}
