import type { OperationSpec } from '@pipdesk/contract';

/** A route as Fastify registered it. */
export interface RegisteredRoute {
  method: string;
  url: string;
  websocket: boolean;
  /** The contract entry it was registered from (docs/api.md#how-a-call-is-declared), if any. */
  operationId?: string;
}

/**
 * Routes that are not API calls, each with the reason the document leaves them out
 * (docs/api.md#openapi). Everything else Fastify registers must have an operation.
 */
export const UNDOCUMENTED_ROUTES: ReadonlyArray<{ reason: string; matches(route: RegisteredRoute): boolean }> = [
  {
    reason: 'socket upgrades (/ws/trading/, /ws/prices/): OpenAPI describes no socket; docs/api.md#sockets does',
    matches: (r) => r.websocket,
  },
  {
    reason: 'outside /api: the web app’s files and its SPA fallback, and /metrics for Prometheus (docs/operations.md)',
    matches: (r) => !r.url.startsWith('/api/'),
  },
  {
    reason: 'the catch-all that answers 404 `NOT_FOUND` for any unknown /api call',
    matches: (r) => r.url === '/api/*',
  },
  {
    reason: 'the docs page’s own script and style sheet',
    matches: (r) => r.url.startsWith('/api/docs/') && r.url !== '/api/docs/',
  },
];

/** Why a route is left out of the document, or undefined when it must be documented. */
export function exclusionReason(route: RegisteredRoute): string | undefined {
  return UNDOCUMENTED_ROUTES.find((rule) => rule.matches(route))?.reason;
}

/** Routes that must be documented and are not, and operations whose route does not exist. */
export function compareWithRoutes(
  routes: readonly RegisteredRoute[],
  operations: readonly OperationSpec[],
): { undocumented: RegisteredRoute[]; withoutRoute: OperationSpec[] } {
  const key = (method: string, url: string) => `${method} ${url}`;
  const documented = new Set(operations.map((op) => key(op.method, op.path)));
  const registered = new Set(routes.map((r) => key(r.method, r.url)));
  return {
    undocumented: routes.filter((r) => !exclusionReason(r) && !documented.has(key(r.method, r.url))),
    withoutRoute: operations.filter((op) => !registered.has(key(op.method, op.path))),
  };
}
