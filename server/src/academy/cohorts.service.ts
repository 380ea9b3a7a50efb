import { type AcademyMeDto, type CohortCreateRequest, type CohortDto, type CohortPatchRequest, Dec } from '@pipdesk/contract';
import type { Updateable } from 'kysely';
import type { AuthUser } from '../auth/index.js';
import * as users from '../auth/repo.js';
import { normalizeEmail } from '../auth/service.js';
import type { AppContext } from '../core/context.js';
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import * as cohorts from './cohorts.repo.js';
import { cohortForCaller } from './scope.js';
import type { CohortsTable } from './tables.js';

// Cohorts and their instructors (docs/academy.md#cohorts). Routes parse and call these; the
// scope rules are in scope.ts.

export type CohortDeps = Pick<AppContext, 'db' | 'clock' | 'log'>;

/** USD (at most 2 decimals, checked by the contract) to exact cents. */
export const centsFromUsd = (usd: number): number => Dec.from(String(usd)).toScaledNumber(2);
const usdFromCents = (cents: number): number => Dec.scaled(cents, 2).toNumber(2);
const msFromIso = (value: string | null): number | null => (value === null ? null : Date.parse(value));
const isoFromMs = (ms: number | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The cohorts as the API shows them, with their instructors and member counts. */
async function present(deps: CohortDeps, rows: cohorts.CohortRow[]): Promise<CohortDto[]> {
  const ids = rows.map((r) => Number(r.id));
  const [instructors, counts] = await Promise.all([
    cohorts.instructorsOf(deps.db.kysely, ids),
    cohorts.memberCounts(deps.db.kysely, ids),
  ]);
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    description: r.description,
    starting_balance: usdFromCents(Number(r.starting_balance_minor)),
    leverage: Number(r.leverage),
    starts_at: isoFromMs(r.starts_at),
    ends_at: isoFromMs(r.ends_at),
    allow_self_reset: Number(r.allow_self_reset) === 1,
    status: r.status,
    instructors: instructors.get(Number(r.id)) ?? [],
    member_count: counts.get(Number(r.id)) ?? 0,
  }));
}

async function presentOne(deps: CohortDeps, cohortId: number): Promise<CohortDto> {
  const row = await cohorts.findCohort(deps.db.kysely, cohortId);
  if (!row) throw errors.cohortNotFound();
  const [dto] = await present(deps, [row]);
  if (!dto) throw errors.cohortNotFound();
  return dto;
}

/** GET cohorts/: an admin sees every cohort, an instructor those they teach, a trader their own. */
export async function listCohortsFor(deps: CohortDeps, caller: AuthUser): Promise<CohortDto[]> {
  const q = deps.db.kysely;
  if (caller.role === 'admin') return present(deps, await cohorts.listCohorts(q));
  const ids =
    caller.role === 'instructor'
      ? await cohorts.cohortIdsTaughtBy(q, caller.userId)
      : await cohorts.cohortIdsOfMember(q, caller.userId);
  return present(deps, await cohorts.listCohorts(q, ids));
}

/** POST cohorts/ (admin). */
export async function createCohort(deps: CohortDeps, caller: AuthUser, input: CohortCreateRequest): Promise<CohortDto> {
  if (caller.role !== 'admin') throw errors.forbidden('This call is for admins');
  const now = deps.clock.now();
  const id = await writeTransaction(deps.db, (trx) =>
    cohorts.insertCohort(trx, {
      name: input.name,
      description: input.description,
      starting_balance_minor: centsFromUsd(input.starting_balance),
      leverage: input.leverage,
      starts_at: msFromIso(input.starts_at),
      ends_at: msFromIso(input.ends_at),
      allow_self_reset: input.allow_self_reset ? 1 : 0,
      status: 'active',
      created_at: now,
      updated_at: now,
    }),
  );
  deps.log.info({ cohortId: id, by: caller.userId }, 'cohort created');
  return presentOne(deps, id);
}

/**
 * PATCH cohorts/{id}/ (admin). Archiving frees the members to join another cohort; making an
 * archived cohort active again is refused (409) while one of its members is active elsewhere.
 * A new starting balance or leverage applies to members created or reset from now on.
 */
export async function updateCohort(
  deps: CohortDeps,
  caller: AuthUser,
  cohortId: number,
  input: CohortPatchRequest,
): Promise<CohortDto> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'admin');
  await writeTransaction(deps.db, async (trx) => {
    const cohort = await cohorts.lockCohort(trx, cohortId, deps.db.kind);
    if (!cohort) throw errors.cohortNotFound();
    const startsAt = input.starts_at === undefined ? cohort.starts_at : msFromIso(input.starts_at);
    const endsAt = input.ends_at === undefined ? cohort.ends_at : msFromIso(input.ends_at);
    if (startsAt !== null && endsAt !== null && Number(endsAt) < Number(startsAt)) {
      throw errors.validation('ends_at: must not be before starts_at', [
        { field: 'ends_at', message: 'must not be before starts_at' },
      ]);
    }
    const changes: Updateable<CohortsTable> = { updated_at: deps.clock.now() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.starting_balance !== undefined) changes.starting_balance_minor = centsFromUsd(input.starting_balance);
    if (input.leverage !== undefined) changes.leverage = input.leverage;
    if (input.starts_at !== undefined) changes.starts_at = startsAt;
    if (input.ends_at !== undefined) changes.ends_at = endsAt;
    if (input.allow_self_reset !== undefined) changes.allow_self_reset = input.allow_self_reset ? 1 : 0;
    if (input.status !== undefined && input.status !== cohort.status) {
      changes.status = input.status;
      if (input.status === 'active') {
        const elsewhere = await cohorts.membersActiveElsewhere(trx, cohortId);
        if (elsewhere.length > 0) {
          throw errors.alreadyInCohort(
            `Cannot make the cohort active: ${elsewhere.length} of its members ${elsewhere.length === 1 ? 'is' : 'are'} in another active cohort`,
          );
        }
      }
      await cohorts.setMembershipsActive(trx, cohortId, input.status === 'active');
    }
    await cohorts.updateCohort(trx, cohortId, changes);
  });
  return presentOne(deps, cohortId);
}

/** POST cohorts/{id}/instructors/ (admin): the user becomes an instructor of the cohort (and gets the role if a trader). */
export async function addInstructor(deps: CohortDeps, caller: AuthUser, cohortId: number, email: string): Promise<CohortDto> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'admin');
  const normalized = normalizeEmail(email);
  await writeTransaction(deps.db, async (trx) => {
    const user = await users.findUserByEmail(trx, normalized);
    if (!user) throw errors.traderNotFound(normalized);
    // A member teaching their own cohort would grade themselves; an instructor is not a student.
    if (await cohorts.isMemberOf(trx, cohortId, user.id)) {
      throw errors.alreadyInCohort(`${normalized} is a member of this cohort, not an instructor`);
    }
    const now = deps.clock.now();
    if (user.role === 'trader') await users.setUserRole(trx, user.id, 'instructor', now);
    await cohorts.addInstructor(trx, cohortId, user.id, now);
  });
  return presentOne(deps, cohortId);
}

/** DELETE cohorts/{id}/instructors/ (admin); 404 when the user does not teach the cohort. Their role stays. */
export async function removeInstructor(deps: CohortDeps, caller: AuthUser, cohortId: number, email: string): Promise<CohortDto> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'admin');
  const normalized = normalizeEmail(email);
  await writeTransaction(deps.db, async (trx) => {
    const user = await users.findUserByEmail(trx, normalized);
    if (!user || !(await cohorts.removeInstructor(trx, cohortId, user.id))) {
      throw errors.notFound(`${normalized} is not an instructor of this cohort`);
    }
  });
  return presentOne(deps, cohortId);
}

/** GET academy/me/: the caller's role, the temporary-password flag and their active cohort. */
export async function academyMe(deps: CohortDeps, caller: AuthUser): Promise<AcademyMeDto> {
  const cohort = await cohorts.activeCohortOfMember(deps.db.kysely, caller.userId);
  return {
    id: caller.userId,
    role: caller.role,
    must_change_password: caller.mustChangePassword,
    cohort_id: cohort ? Number(cohort.id) : null,
  };
}
