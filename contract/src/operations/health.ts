import { envelope } from '../common.js';
import { healthLiveSchema, healthReadySchema, healthReportSchema } from '../health.js';
import { error } from './answers.js';
import { defineOperation } from './define.js';

/** Probes (docs/operations.md#health). */
export const healthOperations = {
  health: defineOperation({
    method: 'GET',
    path: '/api/health/',
    operationId: 'health',
    summary: 'Every check, for people',
    description: 'The same shape at 200 (`ok`) and 503 (`degraded`). docs/operations.md#health.',
    tag: 'health',
    auth: false,
    writes: false,
    ok: { status: 200, description: 'Healthy.', data: healthReportSchema },
    errors: {
      503: { description: 'Degraded: the database, the bus or the price source.', json: envelope(healthReportSchema) },
    },
  }),
  healthLive: defineOperation({
    method: 'GET',
    path: '/api/health/live/',
    operationId: 'healthLive',
    summary: 'Liveness: the process answers',
    tag: 'health',
    auth: false,
    writes: false,
    ok: { status: 200, description: 'Alive.', data: healthLiveSchema },
  }),
  healthReady: defineOperation({
    method: 'GET',
    path: '/api/health/ready/',
    operationId: 'healthReady',
    summary: 'Readiness for a load balancer',
    tag: 'health',
    auth: false,
    writes: false,
    ok: { status: 200, description: 'Ready: database, bus and a price younger than 10 s.', data: healthReadySchema },
    errors: {
      503: error('`UNAVAILABLE` naming the failed checks; the report in `details`.'),
    },
  }),
} as const;
