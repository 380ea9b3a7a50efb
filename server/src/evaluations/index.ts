import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { registerEvaluationRoutes } from './routes.js';

export interface EvaluationsModule {
  /** Registers the program calls under the /api prefix. */
  registerRoutes(api: FastifyInstance): Promise<void>;
}

/**
 * Evaluations (docs/evaluations.md): a cohort's programs with objective rules (programs.ts), the
 * rules themselves as pure functions of exact cents (rules.ts) and the evaluation day in the
 * program's time zone (day.ts).
 */
export function createEvaluationsModule(ctx: AppContext, deps: { auth: AuthModule }): EvaluationsModule {
  return {
    registerRoutes: (api) => registerEvaluationRoutes(api, { auth: deps.auth, ctx }),
  };
}
