import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { operationRoutes } from '../http/operation-route.js';
import {
  academyMe,
  addInstructor,
  type CohortDeps,
  createCohort,
  listCohortsFor,
  removeInstructor,
  updateCohort,
} from './cohorts.service.js';

/**
 * Cohorts and their instructors, and academy/me/ (docs/api.md#academy). Scope rules live in
 * scope.ts; the admin-only calls check the role before the body (their entries' `roles`), so a
 * trader learns the call is not theirs, not what a cohort needs.
 */
export async function registerCohortRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; cohorts: CohortDeps },
): Promise<void> {
  const d = deps.cohorts;
  const route = operationRoutes(api, deps.auth);

  route(ops.academyMe, async (_input, { request }) => academyMe(d, request.auth));
  route(ops.listCohorts, async (_input, { request }) => listCohortsFor(d, request.auth));
  route(ops.createCohort, async ({ body }, { request }) => createCohort(d, request.auth, body));
  route(ops.updateCohort, async ({ ids, body }, { request }) => updateCohort(d, request.auth, ids.id, body));
  route(ops.addCohortInstructor, async ({ ids, body }, { request }) => addInstructor(d, request.auth, ids.id, body.email));
  route(ops.removeCohortInstructor, async ({ ids, body }, { request }) => removeInstructor(d, request.auth, ids.id, body.email));
}
