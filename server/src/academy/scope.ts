import type { Kysely } from 'kysely';
import type { AuthUser } from '../auth/index.js';
import * as users from '../auth/repo.js';
import { requireRole } from '../auth/roles.js';
import type { Database } from '../db/schema.js';
import { errors } from '../errors.js';
import * as cohorts from './cohorts.repo.js';

// Who may see what in the academy (docs/academy.md#scope). Outside the caller's scope is a 404,
// exactly as for a missing row, so ids cannot be probed; a call whose role the caller lacks is a
// 403: the route exists for them, they just may not make it. The role is checked first, then scope.

type Q = Kysely<Database>;

/** What a cohort call needs of the caller. */
export type CohortAccess =
  /** Admins only (create, edit, instructors). */
  | 'admin'
  /** Admin or one of the cohort's instructors (members, roster). */
  | 'teach'
  /** Admin, its instructors or its members (the leaderboard, reading the cohort). */
  | 'view';

/**
 * The cohort if the caller may make a call of kind `access` on it. 403 when the caller's role
 * can never make the call (a trader on a `teach` call, anyone but an admin on an `admin` call);
 * 404 when the cohort does not exist or is outside the caller's scope.
 */
export async function cohortForCaller(q: Q, user: AuthUser, cohortId: number, access: CohortAccess): Promise<cohorts.CohortRow> {
  if (access === 'admin') requireRole(user, 'admin');
  if (access === 'teach') requireRole(user, 'admin', 'instructor');
  const cohort = await cohorts.findCohort(q, cohortId);
  if (!cohort) throw errors.cohortNotFound();
  if (user.role === 'admin') return cohort;
  if (await cohorts.isInstructorOf(q, cohortId, user.userId)) return cohort;
  if (access === 'view' && (await cohorts.isMemberOf(q, cohortId, user.userId))) return cohort;
  throw errors.cohortNotFound();
}

/** The student a call is about, and their active cohort (null when in none). */
export interface ScopedStudent {
  userId: number;
  email: string;
  fullName: string;
  cohort: cohorts.CohortRow | null;
}

/**
 * The student `studentId` if the caller may make an instructor's call about them: an admin, or
 * an instructor of one of the cohorts the student is (or was) a member of. A trader is 403,
 * except on their own id when `self` allows it (a self-reset, when their cohort says so);
 * a student outside the caller's scope, or no such user, is 404.
 */
export async function studentForCaller(
  q: Q,
  user: AuthUser,
  studentId: number,
  options: { self?: (cohort: cohorts.CohortRow | null) => boolean } = {},
): Promise<ScopedStudent> {
  if (user.role === 'trader') {
    if (studentId !== user.userId || !options.self) throw errors.forbidden();
    const own = await loadStudent(q, studentId);
    if (!own) throw errors.studentNotFound();
    if (!options.self(own.cohort)) throw errors.forbidden('Your cohort does not allow you to do this yourself');
    return own;
  }
  const student = await loadStudent(q, studentId);
  if (!student) throw errors.studentNotFound();
  if (user.role === 'admin') return student;
  if (await cohorts.teachesStudent(q, user.userId, studentId)) return student;
  throw errors.studentNotFound();
}

async function loadStudent(q: Q, studentId: number): Promise<ScopedStudent | undefined> {
  const row = await users.findUserById(q, studentId);
  if (!row) return undefined;
  const cohort = await cohorts.activeCohortOfMember(q, studentId);
  return { userId: Number(row.id), email: row.email, fullName: row.full_name, cohort: cohort ?? null };
}
