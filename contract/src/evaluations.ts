import { z } from 'zod';
import { COHORT_BALANCE_MAX, COHORT_LEVERAGE_MAX, COHORT_LEVERAGE_MIN } from './academy.js';
import { text } from './common.js';
import { attemptSchema, DAILY_LOSS_BASES, MAX_LOSS_MODES, meterSchema, phaseSchema } from './evaluation-meter.js';
import { isLotStep } from './trading-math.js';

export * from './evaluation-meter.js';

// Evaluation programs (docs/evaluations.md): a school's challenge with objective rules, in 1 to 3
// phases, as prop-trading firms run them.

export const PROGRAM_STATUSES = ['active', 'archived'] as const;
export const PROGRAM_NAME_MAX_LENGTH = 100;
export const PHASE_NAME_MAX_LENGTH = 60;
export const PROGRAM_PHASES_MAX = 3;
/** Days a phase may last at most, and trading days it may ask for. */
export const PHASE_DAYS_MAX = 365;
export const DEFAULT_PROGRAM_TIME_ZONE = 'Europe/Prague';

/** Whether the platform knows an IANA time zone name. */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Whether a day start is "HH:MM", 00:00 to 23:59. */
export function isDayStart(value: string): boolean {
  return /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
}

/** A percentage above 0 and at most 100, with at most 2 decimals. */
const pct = z
  .number('must be a percentage')
  .gt(0, 'must be more than 0')
  .max(100, 'must be at most 100')
  .refine((v) => /^\d+(\.\d{1,2})?$/.test(String(v)), 'must have at most 2 decimals');

const days = (min: number) =>
  z
    .number('must be a whole number of days')
    .int('must be a whole number of days')
    .min(min, `must be ${min} to ${PHASE_DAYS_MAX}`)
    .max(PHASE_DAYS_MAX, `must be ${min} to ${PHASE_DAYS_MAX}`);

/** One phase of a program: its rules (docs/evaluations.md#the-rules). */
export const phaseRequestSchema = z
  .strictObject({
    name: text({ message: 'must be text' })
      .trim()
      .min(1, 'is required')
      .max(PHASE_NAME_MAX_LENGTH, `must be at most ${PHASE_NAME_MAX_LENGTH} characters`),
    profit_target_pct: pct,
    max_daily_loss_pct: pct.nullable().default(null),
    daily_loss_basis: z.enum(DAILY_LOSS_BASES, 'must be balance or max_balance_equity').default('balance'),
    max_loss_pct: pct,
    max_loss_mode: z.enum(MAX_LOSS_MODES, 'must be static or trailing_eod').default('static'),
    min_trading_days: days(0).default(0),
    max_days: days(1).nullable().default(null),
    best_day_pct: pct.nullable().default(null),
    require_stop_loss: z.boolean('must be true or false').default(false),
    max_lots: z
      .number('must be a number of lots')
      .refine(isLotStep, 'must be a positive multiple of 0.01')
      .nullable()
      .default(null),
  })
  .refine((p) => p.max_days === null || p.min_trading_days <= p.max_days, {
    message: 'must not be more than max_days',
    path: ['min_trading_days'],
  })
  .refine((p) => p.max_daily_loss_pct === null || p.max_daily_loss_pct <= p.max_loss_pct, {
    message: 'must not be more than max_loss_pct',
    path: ['max_daily_loss_pct'],
  });
export type PhaseRequest = z.infer<typeof phaseRequestSchema>;

const programName = text({ message: 'must be text' })
  .trim()
  .min(1, 'is required')
  .max(PROGRAM_NAME_MAX_LENGTH, `must be at most ${PROGRAM_NAME_MAX_LENGTH} characters`);

/** POST academy/cohorts/{id}/programs/. */
export const programCreateRequestSchema = z.strictObject({
  name: programName,
  initial_balance: z
    .number('must be an amount in USD')
    .positive('must be more than 0')
    .max(COHORT_BALANCE_MAX, `must be at most ${COHORT_BALANCE_MAX}`)
    .refine((v) => /^\d+(\.\d{1,2})?$/.test(String(v)), 'must have at most 2 decimals'),
  leverage: z
    .number('must be a whole number')
    .int('must be a whole number')
    .min(COHORT_LEVERAGE_MIN, `must be ${COHORT_LEVERAGE_MIN} to ${COHORT_LEVERAGE_MAX}`)
    .max(COHORT_LEVERAGE_MAX, `must be ${COHORT_LEVERAGE_MIN} to ${COHORT_LEVERAGE_MAX}`),
  time_zone: text({ message: 'must be text' })
    .trim()
    .refine(isKnownTimeZone, 'must be an IANA time zone, like Europe/Prague')
    .default(DEFAULT_PROGRAM_TIME_ZONE),
  day_start: text({ message: 'must be text' }).refine(isDayStart, 'must be HH:MM, 00:00 to 23:59').default('00:00'),
  allow_self_start: z.boolean('must be true or false').default(false),
  phases: z
    .array(phaseRequestSchema, 'must be a list of phases')
    .min(1, 'must have 1 to 3 phases')
    .max(PROGRAM_PHASES_MAX, 'must have 1 to 3 phases'),
});
export type ProgramCreateRequest = z.infer<typeof programCreateRequestSchema>;

/**
 * PATCH academy/programs/{id}/: the name, self-start and status. The money and the rules stay as
 * created (docs/evaluations.md#programs): a school that wants other rules creates another program.
 */
export const programPatchRequestSchema = z
  .strictObject({
    name: programName.optional(),
    allow_self_start: z.boolean('must be true or false').optional(),
    status: z.enum(PROGRAM_STATUSES, 'must be active or archived').optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'send at least one field to change');
export type ProgramPatchRequest = z.infer<typeof programPatchRequestSchema>;

export const programSchema = z.object({
  id: z.number().int(),
  cohort_id: z.number().int(),
  name: z.string(),
  initial_balance: z.number(),
  leverage: z.number().int(),
  time_zone: z.string(),
  day_start: z.string(),
  allow_self_start: z.boolean(),
  status: z.enum(PROGRAM_STATUSES),
  phases: z.array(phaseSchema),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProgramDto = z.infer<typeof programSchema>;
export const programListSchema = z.array(programSchema);

// ---------------------------------------------------------------- attempts

/** How many students one start call names at most. */
export const ATTEMPTS_START_MAX = 500;

/** POST academy/programs/{id}/attempts/: chosen members, or all of them. */
export const attemptsStartRequestSchema = z.union(
  [
    z.strictObject({
      user_ids: z
        .array(z.number('must be user ids').int('must be user ids').positive('must be user ids'), 'must be a list of user ids')
        .min(1, 'name at least one student')
        .max(ATTEMPTS_START_MAX, `name at most ${ATTEMPTS_START_MAX} students`),
    }),
    z.strictObject({ all_members: z.literal(true, 'must be true') }),
  ],
  'send {user_ids: [...]} or {all_members: true}',
);
export type AttemptsStartRequest = z.infer<typeof attemptsStartRequestSchema>;

export const attemptsStartResponseSchema = z.object({
  started: z.array(attemptSchema),
  errors: z.array(z.object({ user_id: z.number().int(), error: z.string() })),
});
export type AttemptsStartResponse = z.infer<typeof attemptsStartResponseSchema>;

export const attemptBoardSchema = z.array(meterSchema);
