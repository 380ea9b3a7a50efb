import { z } from 'zod';

// The answers of evaluations that the trading socket carries (`challenge_update`), apart from the
// programs' requests: the web's first load decodes socket messages, and needs only these
// (docs/evaluations.md#the-meter).

export const DAILY_LOSS_BASES = ['balance', 'max_balance_equity'] as const;
export const MAX_LOSS_MODES = ['static', 'trailing_eod'] as const;
export const ATTEMPT_STATUSES = ['active', 'passed', 'failed'] as const;
export const FAILURE_RULES = ['daily_loss', 'max_loss', 'time_limit'] as const;

export const phaseSchema = z.object({
  name: z.string(),
  profit_target_pct: z.number(),
  max_daily_loss_pct: z.number().nullable(),
  daily_loss_basis: z.enum(DAILY_LOSS_BASES),
  max_loss_pct: z.number(),
  max_loss_mode: z.enum(MAX_LOSS_MODES),
  min_trading_days: z.number().int(),
  max_days: z.number().int().nullable(),
  best_day_pct: z.number().nullable(),
  require_stop_loss: z.boolean(),
  max_lots: z.number().nullable(),
});
export type PhaseDto = z.infer<typeof phaseSchema>;

/** Why an attempt ended in failure: the rule, when, and the account then (money in USD). */
export const attemptFailureSchema = z.object({
  rule: z.enum(FAILURE_RULES),
  at: z.string(),
  equity: z.number(),
  floor: z.number().nullable(),
  balance: z.number(),
});
export type AttemptFailureDto = z.infer<typeof attemptFailureSchema>;

export const attemptSchema = z.object({
  id: z.number().int(),
  program_id: z.number().int(),
  account_id: z.number().int(),
  user: z.object({ id: z.number().int(), email: z.string(), full_name: z.string() }),
  phase_index: z.number().int(),
  status: z.enum(ATTEMPT_STATUSES),
  started_at: z.string(),
  phase_started_at: z.string(),
  ended_at: z.string().nullable(),
  failure: attemptFailureSchema.nullable(),
});
export type AttemptDto = z.infer<typeof attemptSchema>;

/**
 * The meter (docs/evaluations.md#the-meter): where a challenge account stands against every rule
 * of its phase. Money in USD with 2 decimals; `*_left` is the room before the floor (0 once at it).
 */
export const meterSchema = z.object({
  attempt: attemptSchema,
  phase: phaseSchema.extend({ index: z.number().int() }),
  initial_balance: z.number(),
  balance: z.number(),
  equity: z.number(),
  day_basis: z.number(),
  daily_loss_floor: z.number().nullable(),
  daily_loss_left: z.number().nullable(),
  max_loss_floor: z.number(),
  max_loss_left: z.number(),
  profit_target_balance: z.number(),
  /** Of the way from the initial balance to the target, 0 to 100 (0 while at or below the initial balance). */
  profit_progress_pct: z.number(),
  trading_days: z.number().int(),
  best_day_pnl: z.number(),
  best_day_ok: z.boolean(),
  day_ends_at: z.string(),
  phase_ends_at: z.string().nullable(),
  status: z.enum(ATTEMPT_STATUSES),
  failure: attemptFailureSchema.nullable(),
});
export type MeterDto = z.infer<typeof meterSchema>;
