import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

type Q = Kysely<Database>;

/** The members of a cohort with their names, by user id (the members' key order: no sort). */
export function cohortMembers(q: Q, cohortId: number) {
  return q
    .selectFrom('cohort_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'u.full_name'])
    .where('m.cohort_id', '=', cohortId)
    .orderBy('m.user_id')
    .execute();
}

/**
 * What tells a cohort's membership apart cheaply (one covering-index scan): a cached read of the
 * standings is kept only while this is unchanged (docs/academy.md#the-roster).
 */
export async function membershipFingerprint(q: Q, cohortId: number): Promise<string> {
  const row = await q
    .selectFrom('cohort_members')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.coalesce(eb.fn.sum<number | string>('user_id'), eb.lit(0)).as('ids'),
      eb.fn.coalesce(eb.fn.max('added_at'), eb.lit(0)).as('latest'),
    ])
    .where('cohort_id', '=', cohortId)
    .executeTakeFirstOrThrow();
  return `${row.n}:${row.ids}:${row.latest}`;
}
