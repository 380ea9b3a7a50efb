import type { MemberImportRow, MemberRemovedDto, MembersImportResponse } from '@pipdesk/contract';
import { z } from 'zod';
import { findAccountByUser, openAccount } from '../accounts/index.js';
import type { AuthUser } from '../auth/index.js';
import { generateTemporaryPassword, hashTemporaryPassword } from '../auth/passwords.js';
import * as users from '../auth/repo.js';
import { normalizeEmail } from '../auth/service.js';
import type { AppContext } from '../core/context.js';
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import * as cohorts from './cohorts.repo.js';
import { cohortForCaller } from './scope.js';

// Importing students into a cohort and removing them (docs/academy.md#importing-students).

export type MembersDeps = Pick<AppContext, 'db' | 'clock' | 'log'>;

// A row's own checks: a bad row is reported in the answer, the others go on (not a 400 of the whole import).
const emailSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(254, 'must be at most 254 characters')
  .email('must be an e-mail address');
const fullNameSchema = z.string().trim().min(1, 'is required for a new trader').max(100, 'must be at most 100 characters');

interface CheckedRow {
  row: number;
  /** As typed, for the answer. */
  typed: string;
  email: string;
  fullName: string;
}

type Outcome =
  | { kind: 'created'; row: number; email: string; userId: number; temporaryPassword: string }
  | { kind: 'added'; row: number; email: string; userId: number }
  | { kind: 'error'; row: number; email: string; error: string };

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const issue = (field: string, err: z.ZodError) => `${field}: ${err.issues[0]?.message ?? 'is invalid'}`;

/**
 * POST cohorts/{id}/members/ (admin or the cohort's instructors). Each row is applied whole or
 * not at all and reported; every row applied is committed in one transaction, so a failure the
 * rows did not cause (the database, a race on an e-mail) leaves nothing of the import behind.
 * - a new e-mail: a trader with an account at the cohort's balance and leverage, a temporary
 *   password (returned here once, stored as a hash) they must change at first sign-in;
 * - an existing trader: added (an account is opened at the cohort's terms if they had none);
 *   one already in the cohort is reported as added, so a repeated import changes nothing;
 * - an instructor or admin, a trader in another active cohort, a bad e-mail, a new trader
 *   without a name, an e-mail listed twice: an error of that row.
 */
export async function importMembers(
  deps: MembersDeps,
  caller: AuthUser,
  cohortId: number,
  students: readonly MemberImportRow[],
): Promise<MembersImportResponse> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'teach');

  const outcomes: Outcome[] = [];
  const checked: CheckedRow[] = [];
  const seen = new Map<string, number>();
  students.forEach((student, index) => {
    const row = index + 1;
    const email = emailSchema.safeParse(student.email);
    if (!email.success) {
      outcomes.push({ kind: 'error', row, email: student.email, error: issue('email', email.error) });
      return;
    }
    const normalized = normalizeEmail(email.data);
    const first = seen.get(normalized);
    if (first !== undefined) {
      outcomes.push({ kind: 'error', row, email: student.email, error: `email: is listed twice (first in row ${first})` });
      return;
    }
    seen.set(normalized, row);
    checked.push({ row, typed: student.email, email: normalized, fullName: student.full_name.trim() });
  });

  // Temporary passwords are drawn and hashed before the transaction, which must not wait on scrypt.
  const existing = new Set(
    await users.existingEmails(
      deps.db.kysely,
      checked.map((r) => r.email),
    ),
  );
  const fresh = new Map<string, { password: string; hash: string }>();
  await Promise.all(
    checked
      .filter((r) => !existing.has(r.email) && fullNameSchema.safeParse(r.fullName).success)
      .map(async (r) => {
        const password = generateTemporaryPassword();
        fresh.set(r.email, { password, hash: await hashTemporaryPassword(password) });
      }),
  );

  const now = deps.clock.now();
  const applied = await writeTransaction(deps.db, async (trx): Promise<Outcome[]> => {
    const cohort = await cohorts.lockCohort(trx, cohortId, deps.db.kind);
    if (!cohort) throw errors.cohortNotFound();
    const cohortActive = cohort.status === 'active';
    const terms = { balanceMinor: Number(cohort.starting_balance_minor), leverage: Number(cohort.leverage) };
    const results: Outcome[] = [];
    for (const r of checked) {
      const fail = (error: string) => results.push({ kind: 'error', row: r.row, email: r.typed, error });
      const user = await users.findUserByEmail(trx, r.email);
      if (!user) {
        const name = fullNameSchema.safeParse(r.fullName);
        if (!name.success) {
          fail(issue('full_name', name.error));
          continue;
        }
        const temporary = fresh.get(r.email);
        // Created by someone else between the look-up and now, then deleted: rare enough to ask for a retry.
        if (!temporary) {
          fail('email: changed during the import; import this row again');
          continue;
        }
        const userId = await users.insertUser(trx, {
          email: r.email,
          passwordHash: temporary.hash,
          fullName: name.data,
          now,
          mustChangePassword: true,
        });
        await openAccount(trx, { userId, ...terms, now });
        await cohorts.insertMember(trx, { cohortId, userId, active: cohortActive, now });
        results.push({ kind: 'created', row: r.row, email: r.email, userId, temporaryPassword: temporary.password });
        continue;
      }
      const userId = Number(user.id);
      if (user.role !== 'trader') {
        fail(`email: ${r.email} is an ${user.role}, not a trader`);
        continue;
      }
      if (await cohorts.isMemberOf(trx, cohortId, userId)) {
        results.push({ kind: 'added', row: r.row, email: r.email, userId });
        continue;
      }
      if (cohortActive) {
        const other = await cohorts.activeCohortOfMember(trx, userId);
        if (other) {
          fail(`email: ${r.email} is already in the active cohort "${other.name}"`);
          continue;
        }
      }
      if (user.is_active !== 1) {
        fail(`email: ${r.email} is disabled`);
        continue;
      }
      if (!(await findAccountByUser(trx, userId))) await openAccount(trx, { userId, ...terms, now });
      await cohorts.insertMember(trx, { cohortId, userId, active: cohortActive, now });
      results.push({ kind: 'added', row: r.row, email: r.email, userId });
    }
    return results;
  }).catch((err: unknown) => {
    // Another import or sign-up took one of these e-mails or memberships between our checks and
    // the write (PostgreSQL runs them side by side): the database refused, the whole import rolled back.
    if (isUniqueViolation(err)) {
      throw errors.alreadyInCohort('These students changed while importing them; nothing was imported. Try again.');
    }
    throw err;
  });
  outcomes.push(...applied);
  outcomes.sort((a, b) => a.row - b.row);

  const answer: MembersImportResponse = { created: [], added: [], errors: [] };
  for (const o of outcomes) {
    if (o.kind === 'created') {
      answer.created.push({ row: o.row, email: o.email, user_id: o.userId, temporary_password: o.temporaryPassword });
    } else if (o.kind === 'added') answer.added.push({ row: o.row, email: o.email, user_id: o.userId });
    else answer.errors.push({ row: o.row, email: o.email, error: o.error });
  }
  // Never the temporary passwords: counts only (docs/operations.md#logs).
  deps.log.info(
    { cohortId, by: caller.userId, created: answer.created.length, added: answer.added.length, errors: answer.errors.length },
    'students imported',
  );
  return answer;
}

/** DELETE cohorts/{id}/members/{userId}/ (admin or the cohort's instructors); the account stays as it is. */
export async function removeMember(
  deps: MembersDeps,
  caller: AuthUser,
  cohortId: number,
  userId: number,
): Promise<MemberRemovedDto> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'teach');
  const removed = await writeTransaction(deps.db, (trx) => cohorts.removeMember(trx, cohortId, userId));
  if (!removed) throw errors.studentNotFound();
  return { cohort_id: cohortId, user_id: userId };
}
