import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { operationRoutes } from '../http/operation-route.js';
import type { LiveTrading } from '../trading/index.js';
import { selfStartAttempt, startAttempts } from './attempts.js';
import type { EvaluationBook } from './book.js';
import { attemptBoard, challengeMeter } from './meter.js';
import { createProgram, listPrograms, updateProgram } from './programs.js';

/** The evaluation calls (docs/evaluations.md, docs/api.md#evaluations); rules and scope are in the services. */
export async function registerEvaluationRoutes(
  api: FastifyInstance,
  deps: {
    auth: Pick<AuthModule, 'authenticate'>;
    ctx: Pick<AppContext, 'db' | 'clock' | 'bus'>;
    live: Pick<LiveTrading, 'accountFigures'>;
    book: Pick<EvaluationBook, 'get'>;
  },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);
  const withLive = { ...deps.ctx, live: deps.live };
  route(ops.listPrograms, async ({ ids }, { request }) => listPrograms(deps.ctx, request.auth, ids.id));
  route(ops.createProgram, async ({ ids, body }, { request }) => createProgram(deps.ctx, request.auth, ids.id, body));
  route(ops.updateProgram, async ({ ids, body }, { request }) => updateProgram(deps.ctx, request.auth, ids.id, body));
  route(ops.startAttempts, async ({ ids, body }, { request }) => startAttempts(deps.ctx, request.auth, ids.id, body));
  route(ops.listAttempts, async ({ ids }, { request }) => attemptBoard(withLive, request.auth, ids.id));
  route(ops.selfStartAttempt, async ({ ids }, { request }) => selfStartAttempt(deps.ctx, request.auth, ids.id));
  route(ops.challengeMeter, async ({ account }, { request }) =>
    challengeMeter({ ...withLive, book: deps.book }, request.auth, account),
  );
}
