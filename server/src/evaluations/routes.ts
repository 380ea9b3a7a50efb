import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { operationRoutes } from '../http/operation-route.js';
import { createProgram, listPrograms, updateProgram } from './programs.js';

/** The evaluation calls (docs/evaluations.md, docs/api.md#evaluations); rules and scope are in programs.ts. */
export async function registerEvaluationRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; ctx: Pick<AppContext, 'db' | 'clock'> },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);
  route(ops.listPrograms, async ({ ids }, { request }) => listPrograms(deps.ctx, request.auth, ids.id));
  route(ops.createProgram, async ({ ids, body }, { request }) => createProgram(deps.ctx, request.auth, ids.id, body));
  route(ops.updateProgram, async ({ ids, body }, { request }) => updateProgram(deps.ctx, request.auth, ids.id, body));
}
