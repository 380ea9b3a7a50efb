import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { errors } from '../errors.js';

// docs/api.md#demo-calls: the demo calls exist but demo mode has no implementation; each answers the
// spec's text so a client that tries them gets a clear, stable error.
const DEMO_CALLS: Array<['GET' | 'POST', string]> = [
  ['POST', '/demo/account/create/'],
  ['GET', '/demo/account/status/'],
  ['POST', '/demo/account/reset/'],
  ['POST', '/demo/order/place/'],
  ['POST', '/demo/position/:id/close/'],
  ['POST', '/demo/simulation/start/'],
  ['POST', '/demo/simulation/stop/'],
  ['GET', '/demo/simulation/status/'],
];

export async function registerDemoRoutes(api: FastifyInstance, auth: AuthModule): Promise<void> {
  for (const [method, url] of DEMO_CALLS) {
    api.route({
      method,
      url,
      preHandler: auth.authenticate,
      handler: async () => {
        throw errors.demoNotImplemented();
      },
    });
  }
}
