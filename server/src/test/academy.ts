import type { CohortDto, Role } from '@pipdesk/contract';
import { setRole } from '../auth/service.js';
import type { TestApp } from './helpers.js';
import { signedInTrader } from './traders.js';

/** A signed-in user with a role (the role applies at once: every request reads it). */
export async function signedInWithRole(t: TestApp, role: Role, overrides: { email?: string; fullName?: string } = {}) {
  const user = await signedInTrader(t, overrides);
  if (role !== 'trader') await setRole(t.ctx, user.email, role);
  return user;
}

export type SignedIn = Awaited<ReturnType<typeof signedInWithRole>>;

/** Calls the API as `who` (headers), failing the test with the body when the status is not `expected`. */
export async function api(
  t: TestApp,
  who: { headers: Record<string, string> } | undefined,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  return t.app.inject({
    method,
    url,
    headers: who?.headers ?? {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/**
 * The academy's cast (docs/academy.md#scope): an admin; cohort A with its instructor and a
 * member; cohort B with its own instructor and member; a trader in no cohort.
 */
export async function academyCast(t: TestApp) {
  const admin = await signedInWithRole(t, 'admin', { fullName: 'Ada Admin' });
  const instructorA = await signedInWithRole(t, 'instructor', { fullName: 'Ian A' });
  const instructorB = await signedInWithRole(t, 'instructor', { fullName: 'Ivy B' });
  const memberA = await signedInWithRole(t, 'trader', { fullName: 'Mia A' });
  const memberB = await signedInWithRole(t, 'trader', { fullName: 'Max B' });
  const outsider = await signedInWithRole(t, 'trader', { fullName: 'Otto' });

  const create = async (name: string) => {
    const res = await api(t, admin, 'POST', '/api/academy/cohorts/', { name, starting_balance: 5000, leverage: 50 });
    if (res.statusCode !== 201) throw new Error(`creating ${name}: ${res.statusCode} ${res.body}`);
    return res.json().data as CohortDto;
  };
  const cohortA = await create('Cohort A');
  const cohortB = await create('Cohort B');
  for (const [cohort, instructor, member] of [
    [cohortA, instructorA, memberA],
    [cohortB, instructorB, memberB],
  ] as const) {
    const added = await api(t, admin, 'POST', `/api/academy/cohorts/${cohort.id}/instructors/`, { email: instructor.email });
    if (added.statusCode !== 200) throw new Error(`instructor: ${added.statusCode} ${added.body}`);
    const imported = await api(t, admin, 'POST', `/api/academy/cohorts/${cohort.id}/members/`, {
      students: [{ email: member.email, full_name: member.fullName }],
    });
    if (imported.statusCode !== 200 || imported.json().data.added.length !== 1) {
      throw new Error(`member: ${imported.statusCode} ${imported.body}`);
    }
  }
  return { admin, instructorA, instructorB, memberA, memberB, outsider, cohortA, cohortB };
}
