import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';
import { operationRoutes } from '../http/operation-route.js';
import type { HealthService } from './service.js';

/**
 * The probes (docs/operations.md#health, docs/api.md#health): `health/live` for a process
 * supervisor, `health/ready` for a load balancer, and `health/` with every detail for people,
 * 503 when degraded. None needs sign-in.
 */
export async function registerHealthRoutes(api: FastifyInstance, health: HealthService): Promise<void> {
  // No call here signs in (their entries say `auth: false`).
  const route = operationRoutes(api);

  route(ops.healthLive, async () => ({ status: 'live' as const }));

  route(ops.healthReady, async () => {
    const report = await health.report();
    if (report.failed.length > 0) throw errors.notReady(report.failed, report);
    return { status: 'ready' as const, db: report.db, bus: report.bus, price_source: report.price_source };
  });

  route(ops.health, async (_input, { reply }) => {
    const { failed, ...report } = await health.report();
    // The shape is the one it always had; only the status code (and `status`) tell a degraded node.
    if (failed.length > 0) void reply.status(503);
    return { status: failed.length > 0 ? ('degraded' as const) : ('ok' as const), ...report };
  });
}
