import { type MemberRemovedDto, type MembersImportResponse, membersImportRequestSchema } from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { parseInput } from '../core/validate.js';
import { errors } from '../errors.js';
import { pathId } from '../trading/routes.js';
import { importMembers, type MembersDeps, removeMember } from './members.service.js';
import { requireRole } from './scope.js';

type IdParams = { Params: { id: string } };
type MemberParams = { Params: { id: string; userId: string } };

/** The student import and removing a member (docs/academy.md#importing-students). */
export async function registerMemberRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; members: MembersDeps },
): Promise<void> {
  const preHandler = deps.auth.authenticate;
  const d = deps.members;
  const cohortId = (request: FastifyRequest<IdParams>) => pathId(request.params.id, errors.cohortNotFound);

  api.post<IdParams>(
    '/academy/cohorts/:id/members/',
    { preHandler },
    async (request): Promise<{ success: true; data: MembersImportResponse }> => {
      const id = cohortId(request);
      // The role before the body (a trader is told 403 whatever they send; docs/academy.md#scope).
      requireRole(request.auth, 'admin', 'instructor');
      const body = parseInput(membersImportRequestSchema, request.body);
      return { success: true, data: await importMembers(d, request.auth, id, body.students) };
    },
  );

  api.delete<MemberParams>(
    '/academy/cohorts/:id/members/:userId/',
    { preHandler },
    async (request): Promise<{ success: true; data: MemberRemovedDto }> => {
      const id = cohortId(request);
      const userId = pathId(request.params.userId, errors.studentNotFound);
      return { success: true, data: await removeMember(d, request.auth, id, userId) };
    },
  );
}
