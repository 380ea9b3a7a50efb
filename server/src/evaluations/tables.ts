import type { Generated } from 'kysely';

export type ProgramStatus = 'active' | 'archived';

/** A cohort's evaluation program (docs/evaluations.md#programs). */
export interface EvaluationProgramsTable {
  id: Generated<number>;
  cohort_id: number;
  name: string;
  /** Cents each attempt's challenge account opens with. */
  initial_balance_minor: number;
  leverage: number;
  /** IANA name; the evaluation day runs from `day_start` to the next in this zone. */
  time_zone: string;
  /** "HH:MM". */
  day_start: string;
  /** 1: a member may start an attempt themselves. */
  allow_self_start: number;
  status: ProgramStatus;
  /**
   * The phases and their rules as JSON (1 to 3, `StoredPhase` in programs.ts): read with the
   * program, never queried by a field, and fixed once created.
   */
  phases: string;
  created_by: number;
  created_at: number;
  updated_at: number;
}

export type AttemptStatus = 'active' | 'passed' | 'failed';

/** One student's attempt of a program, on a challenge account of its own (docs/evaluations.md#attempts). */
export interface EvaluationAttemptsTable {
  id: Generated<number>;
  program_id: number;
  user_id: number;
  account_id: number;
  /** 0-based. */
  phase_index: number;
  status: AttemptStatus;
  started_at: number;
  phase_started_at: number;
  ended_at: number | null;
  /** JSON `{rule, at, equity_minor, floor_minor, balance_minor}` once failed; null otherwise. */
  failure: string | null;
  /**
   * The day the basis below is for (its start, epoch ms), the day basis in cents and the highest
   * balance at a day end of this phase: written by the leader once per day start
   * (docs/evaluations.md#the-day), so they survive a restart.
   */
  day_start_at: number;
  day_basis_minor: number;
  highest_day_end_minor: number;
  started_by: number;
  updated_at: number;
}

export interface EvaluationsTables {
  evaluation_programs: EvaluationProgramsTable;
  evaluation_attempts: EvaluationAttemptsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends EvaluationsTables {}
}
