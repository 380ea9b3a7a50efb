import { programCreateRequestSchema, programListSchema, programPatchRequestSchema, programSchema } from '../evaluations.js';
import { cohort404, error, forbidden403, validation400 } from './answers.js';
import { defineOperation } from './define.js';

const program404 = error('`PROGRAM_NOT_FOUND`: no such program, or outside the caller’s scope.');

/** Evaluation programs of a cohort (docs/evaluations.md#programs). */
export const evaluationsOperations = {
  listPrograms: defineOperation({
    method: 'GET',
    path: '/api/academy/cohorts/:id/programs/',
    operationId: 'listPrograms',
    summary: 'A cohort’s evaluation programs (admin, its instructors and members)',
    description: 'Active ones first, then archived; newest first within each.',
    tag: 'academy',
    auth: true,
    writes: false,
    ids: { id: 'cohort' },
    ok: { status: 200, description: 'The programs.', data: programListSchema },
    errors: { 404: cohort404 },
  }),
  createProgram: defineOperation({
    method: 'POST',
    path: '/api/academy/cohorts/:id/programs/',
    operationId: 'createProgram',
    summary: 'Create an evaluation program for a cohort (admin, its instructors)',
    description: 'One to three phases, each with its rules (docs/evaluations.md#the-rules).',
    tag: 'academy',
    auth: true,
    roles: ['admin', 'instructor'],
    writes: true,
    ids: { id: 'cohort' },
    body: { schema: programCreateRequestSchema, required: true },
    ok: { status: 201, description: 'The program.', data: programSchema },
    errors: {
      400: validation400,
      403: forbidden403,
      404: cohort404,
    },
  }),
  updateProgram: defineOperation({
    method: 'PATCH',
    path: '/api/academy/programs/:id/',
    operationId: 'updateProgram',
    summary: 'Rename a program, allow or stop self-start, archive it (admin, the cohort’s instructors)',
    description: 'Its money and rules stay as created; fields left out keep their value.',
    tag: 'academy',
    auth: true,
    roles: ['admin', 'instructor'],
    writes: true,
    ids: { id: 'program' },
    body: { schema: programPatchRequestSchema, required: true },
    ok: { status: 200, description: 'The program.', data: programSchema },
    errors: {
      400: validation400,
      403: forbidden403,
      404: program404,
    },
  }),
} as const;
