import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../db/schema.js';
import { lockForUpdate } from '../db/transaction.js';
import type { CohortsTable } from './tables.js';

/**
 * Queries of cohorts, their instructors and members. Any Kysely handle: the database or a
 * transaction; writes run inside `writeTransaction`. Other academy files (roster, leaderboard,
 * students) read these tables through the functions here.
 */
type Q = Kysely<Database>;

export type CohortRow = Selectable<CohortsTable>;

export async function findCohort(q: Q, cohortId: number): Promise<CohortRow | undefined> {
  return q.selectFrom('cohorts').selectAll().where('id', '=', cohortId).executeTakeFirst();
}

/** The cohort row, locked for the rest of the transaction on PostgreSQL (SQLite's BEGIN IMMEDIATE serializes writers). */
export async function lockCohort(trx: Q, cohortId: number, kind: 'sqlite' | 'postgres'): Promise<CohortRow | undefined> {
  return lockForUpdate(kind, trx.selectFrom('cohorts').selectAll().where('id', '=', cohortId)).executeTakeFirst();
}

export async function insertCohort(q: Q, cohort: Insertable<CohortsTable>): Promise<number> {
  const row = await q.insertInto('cohorts').values(cohort).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateCohort(q: Q, cohortId: number, changes: Updateable<CohortsTable>): Promise<void> {
  await q.updateTable('cohorts').set(changes).where('id', '=', cohortId).execute();
}

/** Every cohort, or those with these ids, oldest first. */
export async function listCohorts(q: Q, ids?: readonly number[]): Promise<CohortRow[]> {
  if (ids && ids.length === 0) return [];
  let query = q.selectFrom('cohorts').selectAll().orderBy('id');
  if (ids) query = query.where('id', 'in', [...ids]);
  return query.execute();
}

/** Ids of the cohorts a user teaches. */
export async function cohortIdsTaughtBy(q: Q, userId: number): Promise<number[]> {
  const rows = await q.selectFrom('cohort_instructors').select('cohort_id').where('user_id', '=', userId).execute();
  return rows.map((r) => r.cohort_id);
}

/** Ids of the cohorts a user is a member of (active or archived). */
export async function cohortIdsOfMember(q: Q, userId: number): Promise<number[]> {
  const rows = await q.selectFrom('cohort_members').select('cohort_id').where('user_id', '=', userId).execute();
  return rows.map((r) => r.cohort_id);
}

/** The user's active cohort, if any (a trader is in at most one). */
export async function activeCohortOfMember(q: Q, userId: number): Promise<CohortRow | undefined> {
  return q
    .selectFrom('cohort_members')
    .innerJoin('cohorts', 'cohorts.id', 'cohort_members.cohort_id')
    .selectAll('cohorts')
    .where('cohort_members.user_id', '=', userId)
    .where('cohort_members.active', '=', 1)
    .executeTakeFirst();
}

export async function isInstructorOf(q: Q, cohortId: number, userId: number): Promise<boolean> {
  const row = await q
    .selectFrom('cohort_instructors')
    .select('user_id')
    .where('cohort_id', '=', cohortId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function isMemberOf(q: Q, cohortId: number, userId: number): Promise<boolean> {
  const row = await q
    .selectFrom('cohort_members')
    .select('user_id')
    .where('cohort_id', '=', cohortId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** True when `instructorId` teaches one of the cohorts `studentId` is a member of. */
export async function teachesStudent(q: Q, instructorId: number, studentId: number): Promise<boolean> {
  const row = await q
    .selectFrom('cohort_members')
    .innerJoin('cohort_instructors', 'cohort_instructors.cohort_id', 'cohort_members.cohort_id')
    .select('cohort_members.cohort_id')
    .where('cohort_members.user_id', '=', studentId)
    .where('cohort_instructors.user_id', '=', instructorId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The instructors of these cohorts, by cohort, in the order they were added. */
export async function instructorsOf(q: Q, cohortIds: readonly number[]) {
  if (cohortIds.length === 0) return new Map<number, { id: number; full_name: string }[]>();
  const rows = await q
    .selectFrom('cohort_instructors')
    .innerJoin('users', 'users.id', 'cohort_instructors.user_id')
    .select(['cohort_instructors.cohort_id', 'users.id', 'users.full_name'])
    .where('cohort_instructors.cohort_id', 'in', [...cohortIds])
    .orderBy('cohort_instructors.added_at')
    .orderBy('users.id')
    .execute();
  const byCohort = new Map<number, { id: number; full_name: string }[]>();
  for (const r of rows) {
    const list = byCohort.get(r.cohort_id) ?? [];
    list.push({ id: r.id, full_name: r.full_name });
    byCohort.set(r.cohort_id, list);
  }
  return byCohort;
}

/** Member counts of these cohorts. */
export async function memberCounts(q: Q, cohortIds: readonly number[]): Promise<Map<number, number>> {
  if (cohortIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('cohort_members')
    .select(['cohort_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('cohort_id', 'in', [...cohortIds])
    .groupBy('cohort_id')
    .execute();
  // count(*) is an int8 on PostgreSQL, which db/database.ts reads as a number.
  return new Map(rows.map((r) => [r.cohort_id, r.n]));
}

/** User ids of a cohort's members, oldest member first (the roster and the leaderboard start here). */
export async function memberIds(q: Q, cohortId: number): Promise<number[]> {
  const rows = await q
    .selectFrom('cohort_members')
    .select('user_id')
    .where('cohort_id', '=', cohortId)
    .orderBy('added_at')
    .orderBy('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

export async function addInstructor(q: Q, cohortId: number, userId: number, now: number): Promise<void> {
  await q
    .insertInto('cohort_instructors')
    .values({ cohort_id: cohortId, user_id: userId, added_at: now })
    .onConflict((oc) => oc.columns(['cohort_id', 'user_id']).doNothing())
    .execute();
}

/** True when the user was an instructor of the cohort. */
export async function removeInstructor(q: Q, cohortId: number, userId: number): Promise<boolean> {
  const result = await q
    .deleteFrom('cohort_instructors')
    .where('cohort_id', '=', cohortId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertMember(q: Q, member: { cohortId: number; userId: number; active: boolean; now: number }) {
  await q
    .insertInto('cohort_members')
    .values({ cohort_id: member.cohortId, user_id: member.userId, added_at: member.now, active: member.active ? 1 : 0 })
    .execute();
}

/** True when the user was a member of the cohort. */
export async function removeMember(q: Q, cohortId: number, userId: number): Promise<boolean> {
  const result = await q
    .deleteFrom('cohort_members')
    .where('cohort_id', '=', cohortId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Marks a cohort's memberships active or not, as the cohort's status changes. */
export async function setMembershipsActive(q: Q, cohortId: number, active: boolean): Promise<void> {
  await q
    .updateTable('cohort_members')
    .set({ active: active ? 1 : 0 })
    .where('cohort_id', '=', cohortId)
    .execute();
}

/** Members of `cohortId` who are already in another active cohort (un-archiving it must not make two). */
export async function membersActiveElsewhere(q: Q, cohortId: number): Promise<number[]> {
  const rows = await q
    .selectFrom('cohort_members as mine')
    .innerJoin('cohort_members as other', 'other.user_id', 'mine.user_id')
    .select('mine.user_id')
    .where('mine.cohort_id', '=', cohortId)
    .where('other.cohort_id', '!=', cohortId)
    .where('other.active', '=', 1)
    .execute();
  return rows.map((r) => r.user_id);
}
