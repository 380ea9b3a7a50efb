import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { TradingModule } from '../trading/index.js';
import { registerCohortRoutes } from './cohorts.routes.js';
import { registerMemberRoutes } from './members.routes.js';
import { registerConsoleRoutes } from './student-routes.js';
import type { ConsoleDeps } from './students.js';

export interface AcademyModule {
  /** Registers /academy/* under the /api prefix. */
  registerRoutes(api: FastifyInstance): Promise<void>;
}

/**
 * Roles, cohorts, instructors and members, the student import (cohorts*, members*), the
 * instructor's console (roster, leaderboard, students, reset, comments) and the scope rules of
 * every call (scope.ts). See docs/academy.md.
 */
export function createAcademyModule(
  ctx: AppContext,
  deps: { auth: AuthModule; trading: TradingModule; attempts?: ConsoleDeps['attempts'] },
): AcademyModule {
  const base = { db: ctx.db, clock: ctx.clock, log: ctx.log };
  return {
    registerRoutes: async (api) => {
      await registerCohortRoutes(api, { auth: deps.auth, cohorts: base });
      await registerMemberRoutes(api, { auth: deps.auth, members: base });
      await registerConsoleRoutes(api, {
        auth: deps.auth,
        console: {
          db: ctx.db,
          clock: ctx.clock,
          config: ctx.config,
          trading: deps.trading.service,
          live: deps.trading.live,
          ...(deps.attempts ? { attempts: deps.attempts } : {}),
        },
        bus: ctx.bus,
      });
    },
  };
}
