import { ops } from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { operationRoutes } from '../http/operation-route.js';
import { type AuthService, userDto } from './service.js';

/** The bearer token of a request, if it sent one. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header) : null;
  return match?.[1];
}

export async function registerAuthRoutes(
  api: FastifyInstance,
  service: AuthService,
  authenticate: preHandlerAsyncHookHandler,
): Promise<void> {
  const route = operationRoutes(api, { authenticate });

  route(ops.login, async ({ body }, { request }) => service.login(body.email, body.password, request.ip));

  route(ops.refresh, async ({ body }) => service.refresh(body.refresh));

  // The client ignores logout's failure: a missing body is fine, and a malformed one still ends
  // the bearer's session (its entry's body is lenient; docs/api.md#auth-calls: logout always answers 200).
  route(ops.logout, async ({ body }, { request }) => {
    await service.logout(bearerToken(request), body?.refresh);
    return { logged_out: true as const };
  });

  route(ops.me, async (_input, { request }) => userDto(request.auth));

  // Open to a temporary password (the one call it is for): see ALLOWED_BEFORE_PASSWORD_CHANGE in index.ts.
  route(ops.changePassword, async ({ body }, { request }) => {
    const result = await service.changePassword(request.auth, body.current_password, body.new_password, request.ip);
    return { changed: true as const, ended_sessions: result.endedSessions };
  });
}
