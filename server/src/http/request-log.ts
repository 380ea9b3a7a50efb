import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthUser } from '../auth/index.js';
import type { Metrics } from '../metrics/index.js';

/**
 * One line per answered request (docs/operations.md#logs), in place of Fastify's two
 * (`disableRequestLogging`): method, route pattern, status, milliseconds and the signed-in
 * user's id. API calls at info; static files, /metrics and the health probes at debug,
 * so a load balancer probing every second does not drown the log. The line names the route's
 * pattern and the path, never the query string or a header, so no token can reach it.
 * The same hook records the request's duration for the metrics, by route pattern.
 */
export function installRequestLog(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const path = pathOf(request);
    // Unmatched paths share one label: a scan of random URLs must not grow the metrics.
    const route = request.routeOptions.url ?? 'unmatched';
    const ms = reply.elapsedTime;
    metrics.httpRequest(route, request.method, reply.statusCode, ms / 1000);
    const user = request.auth as AuthUser | undefined;
    const line = {
      method: request.method,
      route,
      path,
      status: reply.statusCode,
      ms: Math.round(ms * 10) / 10,
      ...(user ? { userId: user.userId } : {}),
    };
    if (path.startsWith('/api/') && !path.startsWith('/api/health/') && path !== '/api/health') request.log.info(line, 'request');
    else request.log.debug(line, 'request');
  });
}

function pathOf(request: FastifyRequest): string {
  const url = request.url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
