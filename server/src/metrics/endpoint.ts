import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { type AppError, errorEnvelope, errors } from '../errors.js';
import type { Metrics } from './types.js';

/**
 * Whether an Authorization header carries the metrics bearer. Both sides are hashed first, so
 * the comparison takes the same time whatever the guess and whatever its length.
 */
export function metricsTokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

/** `GET /metrics` on the main port, behind `METRICS_TOKEN` (docs/operations.md#metrics). */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  app.get('/metrics', async (request, reply) => {
    if (!metricsTokenMatches(request.headers.authorization, token)) {
      throw errors.unauthenticated('A valid metrics bearer token is required');
    }
    const { contentType, body } = await metrics.render();
    return reply.type(contentType).header('cache-control', 'no-store').send(body);
  });
}

/**
 * The separate listener of `METRICS_PORT` (docs/operations.md#metrics): it serves `/metrics`
 * and nothing else (with `METRICS_TOKEN` also set, behind the bearer too); every other path
 * answers 404 in the envelope.
 */
export async function startMetricsServer(
  metrics: Metrics,
  options: { port: number; host: string; token: string | undefined },
): Promise<{ port: number; close: () => Promise<void> }> {
  const answer = (res: import('node:http').ServerResponse, err: AppError) => {
    res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', ...err.headers });
    res.end(JSON.stringify(errorEnvelope(err)));
  };
  const server: Server = createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || pathname !== '/metrics') {
      answer(res, errors.routeNotFound(req.method ?? 'GET', pathname ?? '/'));
      return;
    }
    if (options.token !== undefined && !metricsTokenMatches(req.headers.authorization, options.token)) {
      answer(res, errors.unauthenticated('A valid metrics bearer token is required'));
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => answer(res, errors.internal()),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
