import {
  type AcademyMeDto,
  type CohortDto,
  cohortCreateRequestSchema,
  cohortInstructorRequestSchema,
  cohortPatchRequestSchema,
} from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { parseInput } from '../core/validate.js';
import { errors } from '../errors.js';
import { pathId } from '../trading/routes.js';
import {
  academyMe,
  addInstructor,
  type CohortDeps,
  createCohort,
  listCohortsFor,
  removeInstructor,
  updateCohort,
} from './cohorts.service.js';
import { requireRole } from './scope.js';

type IdParams = { Params: { id: string } };
type Answer<T> = Promise<{ success: true; data: T }>;

/** Cohorts and their instructors, and academy/me/ (docs/api.md#academy). Scope rules live in scope.ts. */
export async function registerCohortRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; cohorts: CohortDeps },
): Promise<void> {
  const preHandler = deps.auth.authenticate;
  const d = deps.cohorts;
  const cohortId = (request: FastifyRequest<IdParams>) => pathId(request.params.id, errors.cohortNotFound);

  api.get(
    '/academy/me/',
    { preHandler },
    async (request): Answer<AcademyMeDto> => ({
      success: true,
      data: await academyMe(d, request.auth),
    }),
  );

  api.get(
    '/academy/cohorts/',
    { preHandler },
    async (request): Answer<CohortDto[]> => ({
      success: true,
      data: await listCohortsFor(d, request.auth),
    }),
  );

  api.post('/academy/cohorts/', { preHandler }, async (request, reply): Answer<CohortDto> => {
    // The role before the body: a trader learns the call is not theirs, not what a cohort needs.
    requireRole(request.auth, 'admin');
    const body = parseInput(cohortCreateRequestSchema, request.body);
    const data = await createCohort(d, request.auth, body);
    void reply.status(201);
    return { success: true, data };
  });

  api.patch<IdParams>('/academy/cohorts/:id/', { preHandler }, async (request): Answer<CohortDto> => {
    requireRole(request.auth, 'admin');
    const id = cohortId(request);
    const body = parseInput(cohortPatchRequestSchema, request.body);
    return { success: true, data: await updateCohort(d, request.auth, id, body) };
  });

  api.post<IdParams>('/academy/cohorts/:id/instructors/', { preHandler }, async (request): Answer<CohortDto> => {
    requireRole(request.auth, 'admin');
    const id = cohortId(request);
    const body = parseInput(cohortInstructorRequestSchema, request.body);
    return { success: true, data: await addInstructor(d, request.auth, id, body.email) };
  });

  api.delete<IdParams>('/academy/cohorts/:id/instructors/', { preHandler }, async (request): Answer<CohortDto> => {
    requireRole(request.auth, 'admin');
    const id = cohortId(request);
    const body = parseInput(cohortInstructorRequestSchema, request.body);
    return { success: true, data: await removeInstructor(d, request.auth, id, body.email) };
  });
}
