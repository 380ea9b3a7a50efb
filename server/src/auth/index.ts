import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
import { bearerToken, registerAuthRoutes } from './routes.js';
import { createAuthService } from './service.js';
import { resolveJwtSecret } from './shared-secret.js';
import type { AuthUser } from './types.js';

export type { AuthUser } from './types.js';

export interface AuthModule {
  /** preHandler for protected routes: verifies the bearer token and sets `request.auth`, else 401. */
  authenticate: preHandlerAsyncHookHandler;
  /** Verifies an access token (signature, algorithm, expiry, type, session not revoked, user active). Throws a 401 AppError. */
  verifyAccessToken(token: string): Promise<AuthUser>;
  /** Registers /auth/* under the /api prefix. */
  registerRoutes(api: FastifyInstance): Promise<void>;
}

/**
 * The authenticated calls a user with a temporary password may still make (refresh and logout
 * take no bearer check): who they are, their academy role, and the change itself.
 */
const ALLOWED_BEFORE_PASSWORD_CHANGE = new Set(['/api/auth/me/', '/api/auth/change-password/', '/api/academy/me/']);

export async function createAuthModule(ctx: AppContext): Promise<AuthModule> {
  const jwtSecret = await resolveJwtSecret(ctx);
  const service = createAuthService({ ...ctx, config: { ...ctx.config, jwtSecret } });
  const authenticate: preHandlerAsyncHookHandler = async (request) => {
    const token = bearerToken(request);
    if (!token) throw errors.unauthenticated();
    const user = await service.verifyAccessToken(token);
    // A temporary password opens only the calls that lead to changing it (docs/academy.md#temporary-passwords).
    if (user.mustChangePassword && !ALLOWED_BEFORE_PASSWORD_CHANGE.has(request.routeOptions.url ?? '')) {
      throw errors.passwordChangeRequired();
    }
    request.auth = user;
  };
  return {
    authenticate,
    // Sockets too: a session with a temporary password opens no trading socket until it is changed.
    verifyAccessToken: async (token) => {
      const user = await service.verifyAccessToken(token);
      if (user.mustChangePassword) throw errors.passwordChangeRequired();
      return user;
    },
    registerRoutes: (api) => registerAuthRoutes(api, service, authenticate),
  };
}
