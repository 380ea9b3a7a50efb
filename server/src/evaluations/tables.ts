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

export interface EvaluationsTables {
  evaluation_programs: EvaluationProgramsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends EvaluationsTables {}
}
