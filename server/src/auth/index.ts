import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
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

// Placeholder until the auth module lands (issue 2): every protected call answers 401.
export async function createAuthModule(_ctx: AppContext): Promise<AuthModule> {
  return {
    authenticate: async () => {
      throw errors.unauthenticated();
    },
    verifyAccessToken: async () => {
      throw errors.invalidToken();
    },
    registerRoutes: async () => {},
  };
}
