import {
  academyMeSchema,
  cohortCreateRequestSchema,
  cohortInstructorRequestSchema,
  cohortListSchema,
  cohortPatchRequestSchema,
  cohortSchema,
  memberRemovedSchema,
  membersImportRequestSchema,
  membersImportResponseSchema,
} from '../academy.js';
import { cohort404, error, forbidden403, validation400 } from './answers.js';
import { defineOperation } from './define.js';

/** A change to a cohort only an admin may make (docs/academy.md#scope). */
const adminCohortChange = { tag: 'academy', auth: true, roles: ['admin'], writes: true, ids: { id: 'cohort' } } as const;
/** Adding or removing an instructor: the same path, body and answer. */
const instructorChange = {
  ...adminCohortChange,
  path: '/api/academy/cohorts/:id/instructors/',
  body: { schema: cohortInstructorRequestSchema, required: true },
  ok: { status: 200, description: 'The cohort.', data: cohortSchema },
} as const;

/** Cohorts, their instructors and members (docs/academy.md). */
export const cohortsOperations = {
  academyMe: defineOperation({
    method: 'GET',
    path: '/api/academy/me/',
    operationId: 'academyMe',
    summary: 'The caller’s role, temporary-password flag and active cohort',
    tag: 'academy',
    auth: true,
    writes: false,
    ok: { status: 200, description: 'The caller.', data: academyMeSchema },
  }),
  listCohorts: defineOperation({
    method: 'GET',
    path: '/api/academy/cohorts/',
    operationId: 'listCohorts',
    summary: 'The cohorts the caller may see',
    description: 'An admin every cohort, an instructor those they teach, a trader their own (docs/academy.md#scope).',
    tag: 'academy',
    auth: true,
    writes: false,
    ok: { status: 200, description: 'The cohorts, oldest first.', data: cohortListSchema },
  }),
  createCohort: defineOperation({
    method: 'POST',
    path: '/api/academy/cohorts/',
    operationId: 'createCohort',
    summary: 'Create a cohort (admin)',
    tag: 'academy',
    auth: true,
    roles: ['admin'],
    writes: true,
    body: { schema: cohortCreateRequestSchema, required: true },
    ok: { status: 201, description: 'The cohort.', data: cohortSchema },
    errors: {
      400: validation400,
      403: forbidden403,
    },
  }),
  updateCohort: defineOperation({
    method: 'PATCH',
    path: '/api/academy/cohorts/:id/',
    operationId: 'updateCohort',
    summary: 'Change a cohort (admin)',
    description: 'Fields left out keep their value. Archiving frees its members to join another cohort.',
    ...adminCohortChange,
    body: { schema: cohortPatchRequestSchema, required: true },
    ok: { status: 200, description: 'The cohort.', data: cohortSchema },
    errors: {
      400: validation400,
      403: forbidden403,
      404: cohort404,
      409: error('`ALREADY_IN_COHORT`: made active while a member is in another active cohort.'),
    },
  }),
  addCohortInstructor: defineOperation({
    method: 'POST',
    operationId: 'addCohortInstructor',
    summary: 'Add an instructor to a cohort (admin)',
    description: 'A trader named here becomes an instructor.',
    ...instructorChange,
    errors: {
      400: validation400,
      403: forbidden403,
      404: error('`COHORT_NOT_FOUND`, or `TRADER_NOT_FOUND`: no user with that e-mail.'),
      409: error('`ALREADY_IN_COHORT`: the user is a member of the cohort.'),
    },
  }),
  removeCohortInstructor: defineOperation({
    method: 'DELETE',
    operationId: 'removeCohortInstructor',
    summary: 'Remove an instructor from a cohort (admin)',
    ...instructorChange,
    errors: {
      400: validation400,
      403: forbidden403,
      404: error('`COHORT_NOT_FOUND`, or `NOT_FOUND`: not an instructor of the cohort.'),
    },
  }),
  importCohortMembers: defineOperation({
    method: 'POST',
    path: '/api/academy/cohorts/:id/members/',
    operationId: 'importCohortMembers',
    summary: 'Import students into a cohort (admin, its instructors)',
    description:
      'Creates the missing traders (an account at the cohort’s balance and leverage, a temporary password shown once), adds existing ones; a bad row is reported in `errors` and the others are applied (docs/academy.md#importing-students).',
    tag: 'academy',
    auth: true,
    roles: ['admin', 'instructor'],
    writes: true,
    ids: { id: 'cohort' },
    body: { schema: membersImportRequestSchema, required: true },
    ok: { status: 200, description: 'Each row created, added or refused.', data: membersImportResponseSchema },
    errors: {
      400: validation400,
      403: forbidden403,
      404: cohort404,
    },
  }),
  removeCohortMember: defineOperation({
    method: 'DELETE',
    path: '/api/academy/cohorts/:id/members/:userId/',
    operationId: 'removeCohortMember',
    summary: 'Remove a student from a cohort (admin, its instructors)',
    description: 'The student’s account stays as it is.',
    tag: 'academy',
    auth: true,
    writes: true,
    ids: { id: 'cohort', userId: 'student' },
    ok: { status: 200, description: 'Removed.', data: memberRemovedSchema },
    errors: {
      403: forbidden403,
      404: error('`COHORT_NOT_FOUND`, or `STUDENT_NOT_FOUND`: not a member of the cohort.'),
    },
  }),
} as const;
