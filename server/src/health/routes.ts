import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';
import type { HealthService } from './service.js';

/**
 * The probes (docs/operations.md#health, docs/api.md#health): `health/live` for a process
 * supervisor, `health/ready` for a load balancer, and `health/` with every detail for people,
 * 503 when degraded. None needs sign-in.
 */
export async function registerHealthRoutes(api: FastifyInstance, health: HealthService): Promise<void> {
  api.get('/health/live/', async () => ({ success: true, data: { status: 'live' } }));

  api.get('/health/ready/', async () => {
    const report = await health.report();
    if (report.failed.length > 0) throw errors.notReady(report.failed, report);
    return { success: true, data: { status: 'ready', db: report.db, bus: report.bus, price_source: report.price_source } };
  });

  api.get('/health/', async (_request, reply) => {
    const { failed, ...report } = await health.report();
    // The shape is the one it always had; only the status code (and `status`) tell a degraded node.
    if (failed.length > 0) void reply.status(503);
    return { success: true, data: { status: failed.length > 0 ? 'degraded' : 'ok', ...report } };
  });
}
