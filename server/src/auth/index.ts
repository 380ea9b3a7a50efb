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

export async function createAuthModule(ctx: AppContext): Promise<AuthModule> {
  const jwtSecret = await resolveJwtSecret(ctx);
  const service = createAuthService({ ...ctx, config: { ...ctx.config, jwtSecret } });
  const authenticate: preHandlerAsyncHookHandler = async (request) => {
    const token = bearerToken(request);
    if (!token) throw errors.unauthenticated();
    request.auth = await service.verifyAccessToken(token);
  };
  return {
    authenticate,
    verifyAccessToken: service.verifyAccessToken,
    registerRoutes: (api) => registerAuthRoutes(api, service, authenticate),
  };
}
