import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { operationRoutes } from '../http/operation-route.js';
import { importMembers, type MembersDeps, removeMember } from './members.service.js';

/** The student import and removing a member (docs/academy.md#importing-students). */
export async function registerMemberRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; members: MembersDeps },
): Promise<void> {
  const d = deps.members;
  const route = operationRoutes(api, deps.auth);

  // The role before the body (its entry's `roles`): a trader is told 403 whatever they send (docs/academy.md#scope).
  route(ops.importCohortMembers, async ({ ids, body }, { request }) => importMembers(d, request.auth, ids.id, body.students));
  route(ops.removeCohortMember, async ({ ids }, { request }) => removeMember(d, request.auth, ids.id, ids.userId));
}
