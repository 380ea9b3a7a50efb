import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { TradingModule } from '../trading/index.js';
import type { EvaluationBook } from './book.js';
import { EvaluationEngine } from './engine.js';
import { registerEvaluationRoutes } from './routes.js';

export { attemptsOfAccounts, rosterAttempts } from './attempts.js';
export { EvaluationBook } from './book.js';

export interface EvaluationsModule {
  /** Registers the program, attempt and meter calls under the /api prefix. */
  registerRoutes(api: FastifyInstance): Promise<void>;
  /** Loads the active attempts and starts following ticks, fills and day starts. */
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly engine: EvaluationEngine;
}

/**
 * Evaluations (docs/evaluations.md): a cohort's programs (programs.ts), attempts on challenge
 * accounts (attempts.ts), the rules as pure functions of exact cents (rules.ts), the day in the
 * program's time zone (day.ts), the in-memory book of active attempts on every node (book.ts) and
 * the engine that applies breaches, day starts and passes on the leader (engine.ts). The book is
 * made first (`new EvaluationBook`), since trading reads its order rules.
 */
export function createEvaluationsModule(
  ctx: AppContext,
  deps: { auth: AuthModule; trading: TradingModule; book: EvaluationBook; isLeader: () => boolean },
): EvaluationsModule {
  const engine = new EvaluationEngine({
    ...ctx,
    book: deps.book,
    live: deps.trading.live,
    trading: deps.trading.service,
    isLeader: deps.isLeader,
  });
  return {
    engine,
    registerRoutes: (api) => registerEvaluationRoutes(api, { auth: deps.auth, ctx, live: deps.trading.live, book: deps.book }),
    start: async () => {
      await engine.start();
      await engine.checkDays();
    },
    stop: () => engine.stop(),
  };
}
