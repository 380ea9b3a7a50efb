import {
  type ChangePasswordResponse,
  changePasswordRequestSchema,
  type LoginResponse,
  type LogoutResponse,
  loginRequestSchema,
  logoutRequestSchema,
  refreshRequestSchema,
} from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { parseInput } from '../core/validate.js';
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
  api.post('/auth/login/', async (request) => {
    const body = parseInput(loginRequestSchema, request.body);
    const data: LoginResponse = await service.login(body.email, body.password, request.ip);
    return { success: true, data };
  });

  api.post('/auth/refresh/', async (request) => {
    const body = parseInput(refreshRequestSchema, request.body);
    return { success: true, data: await service.refresh(body.refresh) };
  });

  // The spec does not show logout's payload and the client ignores its failure: a missing body is
  // fine, and a malformed one still ends the bearer's session (docs/api.md#auth-calls: logout always answers 200).
  api.post('/auth/logout/', async (request) => {
    const body = logoutRequestSchema.safeParse(request.body ?? {});
    await service.logout(bearerToken(request), body.success ? body.data.refresh : undefined);
    const data: LogoutResponse = { logged_out: true };
    return { success: true, data };
  });

  api.get('/auth/me/', { preHandler: authenticate }, async (request) => ({ success: true, data: userDto(request.auth) }));

  // Open to a temporary password (the one call it is for): see ALLOWED_BEFORE_PASSWORD_CHANGE in index.ts.
  api.post('/auth/change-password/', { preHandler: authenticate }, async (request) => {
    const body = parseInput(changePasswordRequestSchema, request.body);
    const result = await service.changePassword(request.auth, body.current_password, body.new_password, request.ip);
    const data: ChangePasswordResponse = { changed: true, ended_sessions: result.endedSessions };
    return { success: true, data };
  });
}
