import type { FastifyInstance, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { errors } from '../errors.js';

/**
 * A plain HTTP request to a socket address (`GET /ws/trading/` without `Upgrade: websocket`)
 * would get @fastify/websocket's bare 404 with no body; it gets a 426 in the envelope instead
 * (docs/api.md#hostile-input). Install before the socket routes are registered: it adds a
 * check to each route declared with `websocket: true`.
 */
export function installSocketRoutesGuard(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions & { websocket?: boolean }) => {
    if (!route.websocket) return;
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [...existing, requireUpgrade as onRequestHookHandler];
  });
}

async function requireUpgrade(request: FastifyRequest): Promise<void> {
  if (String(request.headers.upgrade ?? '').toLowerCase() !== 'websocket')
    throw errors.badRequest('This address takes WebSocket connections only', 426);
}
