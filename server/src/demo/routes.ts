import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { errors } from '../errors.js';
import { operationRoutes } from '../http/operation-route.js';

// docs/api.md#demo-calls: the demo calls exist but demo mode has no implementation; each answers the
// spec's text so a client that tries them gets a clear, stable error.
const DEMO_CALLS = [
  ops.demoAccountCreate,
  ops.demoAccountStatus,
  ops.demoAccountReset,
  ops.demoOrderPlace,
  ops.demoPositionClose,
  ops.demoSimulationStart,
  ops.demoSimulationStop,
  ops.demoSimulationStatus,
];

export async function registerDemoRoutes(api: FastifyInstance, auth: AuthModule): Promise<void> {
  const route = operationRoutes(api, auth);
  for (const op of DEMO_CALLS) {
    route(op, async () => {
      throw errors.demoNotImplemented();
    });
  }
}
