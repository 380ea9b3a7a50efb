import { z } from 'zod';
import {
  commentRequestSchema,
  commentResponseSchema,
  leaderboardSchema,
  resetResponseSchema,
  rosterSchema,
  studentDashboardSchema,
  studentJournalPageSchema,
  studentOrdersPageSchema,
  studentPerformanceSchema,
} from '../academy.js';
import { journalQuerySchema } from '../performance.js';
import { ordersQuerySchema } from '../trading-requests.js';
import { cohort404, error, forbidden403, noAccount409, student404, validation400 } from './answers.js';
import { defineOperation } from './define.js';

/** A read of one student's data: for admins and their instructors (docs/academy.md#scope). */
const studentRead = { tag: 'academy', auth: true, writes: false, ids: { id: 'student' } } as const;
/** A read of one cohort's standings. */
const cohortRead = { tag: 'academy', auth: true, writes: false, ids: { id: 'cohort' } } as const;

/** The instructor’s console (docs/academy.md#the-instructors-console). */
export const consoleOperations = {
  cohortRoster: defineOperation({
    method: 'GET',
    path: '/api/academy/cohorts/:id/roster/',
    operationId: 'cohortRoster',
    summary: 'The live roster of a cohort (admin, its instructors)',
    description:
      'One row per member; account figures from memory, statistics of the current period (docs/academy.md#the-roster).',
    ...cohortRead,
    ok: { status: 200, description: 'The roster.', data: rosterSchema },
    errors: { 403: forbidden403, 404: cohort404 },
  }),
  cohortLeaderboard: defineOperation({
    method: 'GET',
    path: '/api/academy/cohorts/:id/leaderboard/',
    operationId: 'cohortLeaderboard',
    summary: 'The leaderboard of a cohort (its members, its instructors, admin)',
    description: 'Ranked by return %; ties: lower max drawdown, then earlier period start (docs/academy.md#the-leaderboard).',
    ...cohortRead,
    ok: { status: 200, description: 'The ranking.', data: leaderboardSchema },
    errors: { 404: cohort404 },
  }),
  studentDashboard: defineOperation({
    method: 'GET',
    path: '/api/academy/students/:id/',
    operationId: 'studentDashboard',
    summary: 'A student’s dashboard data, read-only (admin, their instructors)',
    description: 'The shape of trading/platform-data/.',
    ...studentRead,
    account: 'student',
    ok: { status: 200, description: 'The student’s dashboard data.', data: studentDashboardSchema },
    errors: {
      403: forbidden403,
      404: student404,
    },
  }),
  studentOrders: defineOperation({
    method: 'GET',
    path: '/api/academy/students/:id/orders/',
    operationId: 'studentOrders',
    summary: 'A student’s orders, a page at a time (admin, their instructors)',
    description: 'The filters and the page shape of trading/orders/, **no envelope**.',
    ...studentRead,
    account: 'student',
    query: ordersQuerySchema,
    ok: { status: 200, description: '`{count, next, previous, results}`.', data: studentOrdersPageSchema, envelope: false },
    errors: {
      400: validation400,
      403: forbidden403,
      404: student404,
    },
  }),
  studentPerformance: defineOperation({
    method: 'GET',
    path: '/api/academy/students/:id/performance/',
    operationId: 'studentPerformance',
    summary: 'A student’s statistics of the current period (admin, their instructors)',
    ...studentRead,
    account: 'student',
    ok: { status: 200, description: 'The statistics.', data: studentPerformanceSchema },
    errors: {
      403: forbidden403,
      404: student404,
      409: noAccount409,
    },
  }),
  studentJournal: defineOperation({
    method: 'GET',
    path: '/api/academy/students/:id/journal/',
    operationId: 'studentJournal',
    summary: 'A student’s journal with the instructors’ comments (admin, their instructors)',
    description: 'The filters and the page shape of trading/journal/, **no envelope**.',
    ...studentRead,
    account: 'student',
    query: journalQuerySchema,
    ok: { status: 200, description: '`{count, next, previous, results}`.', data: studentJournalPageSchema, envelope: false },
    errors: {
      400: validation400,
      403: forbidden403,
      404: student404,
      409: noAccount409,
    },
  }),
  resetStudent: defineOperation({
    method: 'POST',
    path: '/api/academy/students/:id/reset/',
    operationId: 'resetStudent',
    summary: 'Reset a student’s account (admin, their instructors; the student when the cohort allows it)',
    description:
      'Closes every position at market (reason `reset`), cancels pending orders, restores the cohort’s starting balance by one `reset` ledger entry and starts a new period, all or nothing (docs/academy.md#reset).',
    tag: 'academy',
    auth: true,
    writes: true,
    ids: { id: 'student' },
    body: { schema: z.strictObject({}), required: false },
    idempotent: true,
    ok: { status: 200, description: 'The account after the reset.', data: resetResponseSchema },
    errors: {
      400: validation400,
      403: forbidden403,
      404: student404,
      409: error('`NO_TRADING_ACCOUNT`, or `IDEMPOTENCY_KEY_IN_FLIGHT`.'),
      422: error('`IDEMPOTENCY_KEY_REUSED`.'),
      503: error('`UNAVAILABLE`: a position has no price; nothing was reset.'),
    },
  }),
  commentOnTrade: defineOperation({
    method: 'POST',
    path: '/api/academy/students/:id/comments/',
    operationId: 'commentOnTrade',
    summary: 'Comment on a student’s closed trade (their instructors)',
    description: 'The comment shows in the student’s journal, oldest first.',
    tag: 'academy',
    auth: true,
    writes: true,
    ids: { id: 'student' },
    body: { schema: commentRequestSchema, required: true },
    ok: { status: 201, description: 'The comment.', data: commentResponseSchema },
    errors: {
      400: validation400,
      403: forbidden403,
      404: error('`STUDENT_NOT_FOUND`, or `NOT_FOUND`: not one of the student’s closed trades.'),
    },
  }),
} as const;
