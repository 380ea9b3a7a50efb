import { z } from 'zod';
import { newPasswordSchema, PASSWORD_MAX, userSchema } from './auth.js';
import { text } from './common.js';
import { journalCommentSchema, journalPageSchema, performanceSchema } from './performance.js';
import { ordersPageSchema, platformDataSchema, tradingAccountSchema } from './trading.js';

// Contract of the academy: roles, cohorts, instructors, members and the student import, the
// instructor's console (roster, leaderboard, a student's data, reset, comments) and the password
// change (docs/academy.md, docs/api.md#academy). Money in answers is a number rounded to 2
// decimals, percentages to 2; the server keeps them exact.

/** Who a user is to the academy; `trader` is the default and the only role outside the academy (docs/academy.md#roles). */
export const ROLES = ['trader', 'instructor', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

export const COHORT_STATUSES = ['active', 'archived'] as const;
export type CohortStatus = (typeof COHORT_STATUSES)[number];

/** At most this many students in one import (POST cohorts/{id}/members/). */
export const MEMBERS_IMPORT_MAX = 500;
/** An instructor's comment on a student's trade. */
export const COMMENT_MAX_LENGTH = 2000;
export const COHORT_NAME_MAX_LENGTH = 100;
export const COHORT_DESCRIPTION_MAX_LENGTH = 2000;
/** Leverage a cohort's accounts may have (the range of docs/academy.md, as accounts allow). */
export const COHORT_LEVERAGE_MIN = 1;
export const COHORT_LEVERAGE_MAX = 1000;
/** A cohort's starting balance in USD: more than 0, at most this, whole cents. */
export const COHORT_BALANCE_MAX = 1_000_000_000;

/** Flags of a roster row (docs/academy.md#the-roster). */
export const ROSTER_FLAGS = ['margin_call', 'no_stop_loss', 'high_exposure', 'inactive_7d'] as const;
export type RosterFlag = (typeof ROSTER_FLAGS)[number];

const isoTime = z.string();

// ---------------------------------------------------------------- answers

export const cohortInstructorSchema = z.object({ id: z.number().int(), full_name: z.string() });
export type CohortInstructorDto = z.infer<typeof cohortInstructorSchema>;

/** A cohort, as every cohorts/ call answers it. */
export const cohortSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  /** USD each new member's account starts with (and a reset restores). */
  starting_balance: z.number(),
  leverage: z.number().int(),
  starts_at: isoTime.nullable(),
  ends_at: isoTime.nullable(),
  /** Whether a member may reset their own account (POST students/{id}/reset/). */
  allow_self_reset: z.boolean(),
  status: z.enum(COHORT_STATUSES),
  instructors: z.array(cohortInstructorSchema),
  /** Members now in the cohort. */
  member_count: z.number().int(),
});
export type CohortDto = z.infer<typeof cohortSchema>;

/** GET cohorts/: admin every cohort, an instructor theirs, a trader their own (oldest first). */
export const cohortListSchema = z.array(cohortSchema);
export type CohortListDto = z.infer<typeof cohortListSchema>;

/** POST cohorts/{id}/members/: `row` is the student's 1-based position in the request's list. */
export const membersImportResponseSchema = z.object({
  /** New traders; `temporary_password` is shown here once and stored only as a hash. */
  created: z.array(
    z.object({ row: z.number().int(), email: z.string(), user_id: z.number().int(), temporary_password: z.string() }),
  ),
  /** Existing traders added to the cohort (or already in it). */
  added: z.array(z.object({ row: z.number().int(), email: z.string(), user_id: z.number().int() })),
  /** Rows not applied, each with why; every other row was applied. */
  errors: z.array(z.object({ row: z.number().int(), email: z.string(), error: z.string() })),
});
export type MembersImportResponse = z.infer<typeof membersImportResponseSchema>;

/** DELETE cohorts/{id}/members/{userId}/ and cohorts/{id}/instructors/. */
export const memberRemovedSchema = z.object({ cohort_id: z.number().int(), user_id: z.number().int() });
export type MemberRemovedDto = z.infer<typeof memberRemovedSchema>;

/** One student of GET cohorts/{id}/roster/; account figures live, from memory. */
export const rosterRowSchema = z.object({
  user: userSchema,
  /** Null when the student has no trading account. */
  account: z
    .object({
      balance: z.number(),
      equity: z.number(),
      margin_used: z.number(),
      free_margin: z.number(),
      /** Percent; null with no margin used. */
      margin_level: z.number().nullable(),
    })
    .nullable(),
  open_positions: z.number().int(),
  pending_orders: z.number().int(),
  /** Open positions without a stop loss. */
  unprotected_positions: z.number().int(),
  today_pnl: z.number(),
  return_pct: z.number().nullable(),
  max_drawdown_pct: z.number(),
  closed_trades: z.number().int(),
  win_rate: z.number().nullable(),
  last_trade_at: isoTime.nullable(),
  flags: z.array(z.enum(ROSTER_FLAGS)),
  /**
   * The student's evaluation attempt in one of the cohort's programs (docs/evaluations.md): the
   * active one, else the latest; null without any.
   */
  attempt: z
    .object({
      id: z.number().int(),
      program_id: z.number().int(),
      program_name: z.string(),
      phase_index: z.number().int(),
      status: z.enum(['active', 'passed', 'failed']),
    })
    .nullable(),
});
export type RosterRowDto = z.infer<typeof rosterRowSchema>;
export const rosterSchema = z.array(rosterRowSchema);
export type RosterDto = z.infer<typeof rosterSchema>;

/** One row of GET cohorts/{id}/leaderboard/, ranked by return % (ties: lower drawdown, earlier period start). */
export const leaderboardRowSchema = z.object({
  rank: z.number().int(),
  user: z.object({ id: z.number().int(), display_name: z.string() }),
  return_pct: z.number().nullable(),
  equity: z.number(),
  max_drawdown_pct: z.number(),
  closed_trades: z.number().int(),
  win_rate: z.number().nullable(),
  profit_factor: z.number().nullable(),
});
export type LeaderboardRowDto = z.infer<typeof leaderboardRowSchema>;
export const leaderboardSchema = z.array(leaderboardRowSchema);
export type LeaderboardDto = z.infer<typeof leaderboardSchema>;

/** GET students/{id}/: the student's dashboard data, read-only (the shape of trading/platform-data/). */
export const studentDashboardSchema = platformDataSchema;
export type StudentDashboardDto = z.infer<typeof studentDashboardSchema>;
/** GET students/{id}/orders/: the shape and filters of trading/orders/ (no envelope). */
export const studentOrdersPageSchema = ordersPageSchema;
/** GET students/{id}/performance/: the shape of trading/performance/. */
export const studentPerformanceSchema = performanceSchema;
/** GET students/{id}/journal/: the shape of trading/journal/ (no envelope). */
export const studentJournalPageSchema = journalPageSchema;

/** POST students/{id}/reset/: the account after the reset and what the reset did. */
export const resetResponseSchema = z.object({
  account: tradingAccountSchema,
  /** When the new period started (the reset's time). */
  period_start: isoTime,
  /** Positions closed at market by the reset (orders with reason `reset`). */
  closed_positions: z.array(z.number().int()),
  /** Pending orders the reset cancelled. */
  cancelled_orders: z.array(z.number().int()),
});
export type ResetResponse = z.infer<typeof resetResponseSchema>;

/** POST students/{id}/comments/: the comment, as the student's journal shows it. */
export const commentResponseSchema = journalCommentSchema.extend({ trade_id: z.number().int() });
export type CommentResponse = z.infer<typeof commentResponseSchema>;

/** POST auth/change-password/. */
export const changePasswordResponseSchema = z.object({
  changed: z.literal(true),
  /** The caller's other sessions the change ended. */
  ended_sessions: z.number().int(),
});
export type ChangePasswordResponse = z.infer<typeof changePasswordResponseSchema>;

/** GET academy/me/ (beside auth/me/, whose shape in docs/api.md#auth-calls stays): the caller's role and cohort. */
export const academyMeSchema = z.object({
  id: z.number().int(),
  role: roleSchema,
  must_change_password: z.boolean(),
  /** The trader's active cohort (their Leaderboard link); null when in none. */
  cohort_id: z.number().int().nullable(),
});
export type AcademyMeDto = z.infer<typeof academyMeSchema>;

// ---------------------------------------------------------------- requests

const cohortName = text({ message: 'must be text' })
  .trim()
  .min(1, 'is required')
  .max(COHORT_NAME_MAX_LENGTH, `must be at most ${COHORT_NAME_MAX_LENGTH} characters`);
const cohortDescription = text({ message: 'must be text' })
  .trim()
  .max(COHORT_DESCRIPTION_MAX_LENGTH, `must be at most ${COHORT_DESCRIPTION_MAX_LENGTH} characters`);
/** USD with at most 2 decimals (a number in JSON; the server converts it to exact cents). */
const startingBalance = z
  .number('must be an amount in USD')
  .positive('must be more than 0')
  .max(COHORT_BALANCE_MAX, `must be at most ${COHORT_BALANCE_MAX}`)
  .refine((v) => /^\d+(\.\d{1,2})?$/.test(String(v)), 'must have at most 2 decimals');
const cohortLeverage = z
  .number('must be a whole number')
  .int('must be a whole number')
  .min(COHORT_LEVERAGE_MIN, `must be ${COHORT_LEVERAGE_MIN} to ${COHORT_LEVERAGE_MAX}`)
  .max(COHORT_LEVERAGE_MAX, `must be ${COHORT_LEVERAGE_MIN} to ${COHORT_LEVERAGE_MAX}`);
/** An ISO 8601 date or date-time (UTC when no offset), or null for none. */
const cohortTime = text({ message: 'must be an ISO 8601 date or null' })
  .trim()
  .refine(
    (v) =>
      /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)),
    'must be an ISO 8601 date or date-time',
  )
  .nullable();

const endsAfterStart = (v: { starts_at?: string | null; ends_at?: string | null }) =>
  !v.starts_at || !v.ends_at || Date.parse(v.ends_at) >= Date.parse(v.starts_at);

/** POST cohorts/. */
export const cohortCreateRequestSchema = z
  .strictObject({
    name: cohortName,
    description: cohortDescription.default(''),
    starting_balance: startingBalance,
    leverage: cohortLeverage,
    starts_at: cohortTime.default(null),
    ends_at: cohortTime.default(null),
    allow_self_reset: z.boolean('must be true or false').default(false),
  })
  .refine(endsAfterStart, { message: 'must not be before starts_at', path: ['ends_at'] });
export type CohortCreateRequest = z.infer<typeof cohortCreateRequestSchema>;

/** PATCH cohorts/{id}/: fields left out keep their value. A changed balance applies to new members and resets. */
export const cohortPatchRequestSchema = z
  .strictObject({
    name: cohortName.optional(),
    description: cohortDescription.optional(),
    starting_balance: startingBalance.optional(),
    leverage: cohortLeverage.optional(),
    starts_at: cohortTime.optional(),
    ends_at: cohortTime.optional(),
    allow_self_reset: z.boolean('must be true or false').optional(),
    status: z.enum(COHORT_STATUSES, 'must be active or archived').optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'send at least one field to change')
  .refine(endsAfterStart, { message: 'must not be before starts_at', path: ['ends_at'] });
export type CohortPatchRequest = z.infer<typeof cohortPatchRequestSchema>;

/** POST and DELETE cohorts/{id}/instructors/. */
export const cohortInstructorRequestSchema = z.strictObject({
  email: text({ message: 'must be text' }).trim().min(1, 'is required').max(254).email('must be an e-mail address'),
});
export type CohortInstructorRequest = z.infer<typeof cohortInstructorRequestSchema>;

/**
 * One student of an import. Kept loose on purpose: a bad e-mail or a missing name is an error
 * of that row in the answer, not a 400 of the whole import (docs/academy.md#importing-students).
 */
export const memberImportRowSchema = z.strictObject({
  email: text({ message: 'must be text' }).max(320, 'must be at most 320 characters'),
  /** Needed for a new trader; ignored for an existing one. */
  full_name: text({ message: 'must be text' }).max(200, 'must be at most 200 characters').default(''),
});
export type MemberImportRow = z.infer<typeof memberImportRowSchema>;

/** POST cohorts/{id}/members/: 1 to 500 students. */
export const membersImportRequestSchema = z.strictObject({
  students: z
    .array(memberImportRowSchema, 'must be a list of students')
    .min(1, 'must list at least one student')
    .max(MEMBERS_IMPORT_MAX, `must list at most ${MEMBERS_IMPORT_MAX} students`),
});
export type MembersImportRequest = z.infer<typeof membersImportRequestSchema>;

/** POST students/{id}/comments/. */
export const commentRequestSchema = z.strictObject({
  trade_id: z.number('must be a trade id').int('must be a trade id').positive('must be a trade id'),
  text: text({ message: 'must be text' })
    .trim()
    .min(1, 'is required')
    .max(COMMENT_MAX_LENGTH, `must be at most ${COMMENT_MAX_LENGTH} characters`),
});
export type CommentRequest = z.infer<typeof commentRequestSchema>;

/** POST auth/change-password/: the new password follows the password policy (docs/operations.md#passwords). */
export const changePasswordRequestSchema = z
  .strictObject({
    current_password: text({ message: 'must be text' })
      .min(1, 'is required')
      .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`),
    new_password: newPasswordSchema,
  })
  .refine((v) => v.new_password !== v.current_password, {
    message: 'must differ from the current password',
    path: ['new_password'],
  });
export type ChangePasswordRequest = z.infer<typeof changePasswordRequestSchema>;
