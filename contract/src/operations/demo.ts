import { z } from 'zod';
import { error } from './answers.js';
import { defineOperation, type HttpMethod } from './define.js';

/** Demo calls exist as the spec lists them and always answer 400 (docs/api.md#demo-calls). */
const demoCall = <const Id extends string>(
  method: Extract<HttpMethod, 'GET' | 'POST'>,
  path: string,
  operationId: Id,
  summary: string,
) =>
  defineOperation({
    method,
    path,
    operationId,
    summary,
    description: 'Demo trading mode is not implemented: always 400 `DEMO_NOT_IMPLEMENTED` once signed in.',
    tag: 'demo',
    auth: true,
    writes: false,
    // Any value: the call answers 400 whatever it names.
    ...(path.includes(':id') ? { params: z.object({ id: z.string() }) } : {}),
    ok: null,
    errors: { 400: error('`DEMO_NOT_IMPLEMENTED` "Demo trading mode not yet implemented".') },
  });

export const demoOperations = {
  demoAccountCreate: demoCall('POST', '/api/demo/account/create/', 'demoAccountCreate', 'Create a demo account'),
  demoAccountStatus: demoCall('GET', '/api/demo/account/status/', 'demoAccountStatus', 'The demo account'),
  demoAccountReset: demoCall('POST', '/api/demo/account/reset/', 'demoAccountReset', 'Reset the demo account'),
  demoOrderPlace: demoCall('POST', '/api/demo/order/place/', 'demoOrderPlace', 'Place a demo order'),
  demoPositionClose: demoCall('POST', '/api/demo/position/:id/close/', 'demoPositionClose', 'Close a demo position'),
  demoSimulationStart: demoCall('POST', '/api/demo/simulation/start/', 'demoSimulationStart', 'Start the demo simulation'),
  demoSimulationStop: demoCall('POST', '/api/demo/simulation/stop/', 'demoSimulationStop', 'Stop the demo simulation'),
  demoSimulationStatus: demoCall('GET', '/api/demo/simulation/status/', 'demoSimulationStatus', 'The demo simulation'),
};
