import { z } from 'zod';
import { COHORT_BALANCE_MAX, COHORT_LEVERAGE_MAX, COHORT_LEVERAGE_MIN } from './academy.js';
import { text } from './common.js';
import { performanceSchema } from './performance.js';

// Replay sessions (DESIGN §19, docs/replay.md): practice on real past markets, on a practice
// account bound to the session's own market and clock.

export const REPLAY_STATUSES = ['paused', 'playing', 'finished'] as const;
export type ReplayStatus = (typeof REPLAY_STATUSES)[number];
/** Play speeds: session time per real time. */
export const REPLAY_SPEEDS = [1, 10, 60, 300, 1000] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];
/** A step moves the clock 1 minute to 30 days (a seek goes anywhere forward in the data). */
export const REPLAY_STEP_MINUTES_MAX = 30 * 24 * 60;
/** A new session's balance when none is asked (USD) and its leverage. */
export const REPLAY_DEFAULT_BALANCE = 10_000;
export const REPLAY_DEFAULT_LEVERAGE = 100;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * An ISO 8601 date or date-time as epoch ms, UTC when it names no offset (a session's times are
 * UTC, as the data's); NaN when it is not one.
 */
export function parseReplayTime(value: string): number {
  const v = value.trim();
  if (!ISO_TIME.test(v)) return Number.NaN;
  const withOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(v) || v.length === 10 ? v : `${v}Z`;
  return Date.parse(withOffset.replace(' ', 'T'));
}

const isoTime = text({ message: 'must be an ISO 8601 date-time' })
  .trim()
  .refine((v) => !Number.isNaN(parseReplayTime(v)), 'must be an ISO 8601 date-time (UTC when no offset)');

/** POST trading/replays/. The pairs and the start are checked against the data by the server (400 naming the range). */
export const replayCreateRequestSchema = z.strictObject({
  symbols: z
    .array(text({ message: 'must be a pair symbol' }).trim().toUpperCase(), 'must be a list of 1 to 4 pairs')
    .min(1, 'choose 1 to 4 pairs')
    .max(4, 'choose 1 to 4 pairs'),
  start: isoTime,
  initial_balance: z
    .number('must be an amount in USD')
    .positive('must be more than 0')
    .max(COHORT_BALANCE_MAX, `must be at most ${COHORT_BALANCE_MAX}`)
    .refine((v) => /^\d+(\.\d{1,2})?$/.test(String(v)), 'must have at most 2 decimals')
    .optional(),
  leverage: z
    .number('must be a whole number')
    .int('must be a whole number')
    .min(COHORT_LEVERAGE_MIN, `must be ${COHORT_LEVERAGE_MIN} to ${COHORT_LEVERAGE_MAX}`)
    .max(COHORT_LEVERAGE_MAX, `must be ${COHORT_LEVERAGE_MIN} to ${COHORT_LEVERAGE_MAX}`)
    .optional(),
});
export type ReplayCreateRequest = z.infer<typeof replayCreateRequestSchema>;

/** POST trading/replays/{id}/play/. */
export const replayPlayRequestSchema = z.strictObject({
  speed: z
    .number(`must be one of ${REPLAY_SPEEDS.join(', ')}`)
    .refine(
      (v): v is ReplaySpeed => (REPLAY_SPEEDS as readonly number[]).includes(v),
      `must be one of ${REPLAY_SPEEDS.join(', ')}`,
    ),
});

/** POST trading/replays/{id}/step/. */
export const replayStepRequestSchema = z.strictObject({
  minutes: z
    .number('must be a whole number of minutes')
    .int('must be a whole number of minutes')
    .min(1, `must be 1 to ${REPLAY_STEP_MINUTES_MAX}`)
    .max(REPLAY_STEP_MINUTES_MAX, `must be 1 to ${REPLAY_STEP_MINUTES_MAX}`),
});

/** POST trading/replays/{id}/seek/: forward only, at most to the end of the data. */
export const replaySeekRequestSchema = z.strictObject({ to: isoTime });

export const replaySchema = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  symbols: z.array(z.string()),
  /** ISO times, UTC. */
  start: z.string(),
  clock: z.string(),
  speed: z.number().int(),
  status: z.enum(REPLAY_STATUSES),
  data_from: z.string(),
  data_to: z.string(),
  created_at: z.string(),
});
export type ReplayDto = z.infer<typeof replaySchema>;

/** POST trading/replays/ and the controls. */
export const replayAnswerSchema = z.object({ replay: replaySchema });

/** GET trading/replays/{id}/: the session and its account's statistics (DESIGN §13). */
export const replayDetailSchema = z.object({ replay: replaySchema, performance: performanceSchema });

/** GET trading/replays/: the trader's sessions, newest first. */
export const replayListSchema = z.object({ replays: z.array(replaySchema) });
export type ReplayDetailDto = z.infer<typeof replayDetailSchema>;

/**
 * Where a session over pairs with these data ranges (epoch ms, `to` exclusive) can run: from the
 * latest start to the earliest end, so no pair runs out before the others (docs/replay.md#the-range);
 * undefined for no pairs or ranges that do not overlap. The server's check and the form's hint.
 */
export function commonDataRange(ranges: ReadonlyArray<{ from: number; to: number }>): { from: number; to: number } | undefined {
  if (ranges.length === 0) return undefined;
  const from = Math.max(...ranges.map((r) => r.from));
  const to = Math.min(...ranges.map((r) => r.to));
  return from < to ? { from, to } : undefined;
}

/** One pair a session can play, with the range of its real data (ISO times, UTC; `data_to` is the end of its last minute). */
export const replayDataPairSchema = z.object({ symbol: z.string(), data_from: z.string(), data_to: z.string() });
export type ReplayDataPairDto = z.infer<typeof replayDataPairSchema>;

/** GET trading/replays/data/: the pairs with real data, by symbol (docs/replay.md#which-pairs-and-when). */
export const replayDataSchema = z.object({ pairs: z.array(replayDataPairSchema) });

/** GET academy/students/{id}/replays/: a student's sessions, each with its account's statistics, newest first. */
export const studentReplaysSchema = z.object({ replays: z.array(replayDetailSchema) });
