import type { Role } from '@pipdesk/contract';
import type { Generated } from 'kysely';

export type CohortStatus = 'active' | 'archived';

export interface CohortsTable {
  id: Generated<number>;
  name: string;
  description: string;
  /** Cents each new member's account opens with and a reset restores. */
  starting_balance_minor: number;
  leverage: number;
  /** Epoch ms; null when open-ended. */
  starts_at: number | null;
  ends_at: number | null;
  /** 1: a member may reset their own account. */
  allow_self_reset: number;
  status: CohortStatus;
  created_at: number;
  updated_at: number;
}

export interface CohortInstructorsTable {
  cohort_id: number;
  user_id: number;
  added_at: number;
}

export interface CohortMembersTable {
  cohort_id: number;
  user_id: number;
  added_at: number;
  /** 1 while the cohort is active: a unique partial index keeps a trader in one active cohort. */
  active: number;
}

/** Tables of the academy module (cohorts, their instructors and members). */
export interface AcademyTables {
  cohorts: CohortsTable;
  cohort_instructors: CohortInstructorsTable;
  cohort_members: CohortMembersTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends AcademyTables {}
}

export type { Role };
