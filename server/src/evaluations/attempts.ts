import {
  type AttemptDto,
  type AttemptFailureDto,
  type AttemptsStartRequest,
  type AttemptsStartResponse,
  Dec,
  type RosterRowDto,
} from '@pipdesk/contract';
import type { Kysely, Selectable } from 'kysely';
import { cohortForCaller } from '../academy/scope.js';
import { openExtraAccount } from '../accounts/index.js';
import type { AuthUser } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { Database } from '../db/schema.js';
import { writeTransaction } from '../db/transaction.js';
import { type AppError, errors } from '../errors.js';
import { dayOf } from './day.js';
import { type ProgramRow, phasesOf } from './programs.js';
import type { EvaluationAttemptsTable } from './tables.js';

type Q = Kysely<Database>;
export type AttemptRow = Selectable<EvaluationAttemptsTable>;
type Deps = Pick<AppContext, 'db' | 'clock' | 'bus'>;

/** The bus topic of every change of an attempt: each node's evaluation book reads the attempt again. */
export const ATTEMPT_CHANGED_TOPIC = 'evaluations.attempt_changed';

/** A failure as stored (cents). */
export interface StoredFailure {
  rule: AttemptFailureDto['rule'];
  at: number;
  equity_minor: number;
  floor_minor: number | null;
  balance_minor: number;
}

const usd = (minor: number) => Dec.scaled(minor, 2).toNumber(2);
const iso = (ms: number) => new Date(ms).toISOString();

export function failureDto(stored: string | null): AttemptFailureDto | null {
  if (stored === null) return null;
  const f = JSON.parse(stored) as StoredFailure;
  return {
    rule: f.rule,
    at: iso(f.at),
    equity: usd(f.equity_minor),
    floor: f.floor_minor === null ? null : usd(f.floor_minor),
    balance: usd(f.balance_minor),
  };
}

export function attemptDto(row: AttemptRow, user: { id: number; email: string; full_name: string }): AttemptDto {
  return {
    id: Number(row.id),
    program_id: Number(row.program_id),
    account_id: Number(row.account_id),
    user,
    phase_index: Number(row.phase_index),
    status: row.status,
    started_at: iso(Number(row.started_at)),
    phase_started_at: iso(Number(row.phase_started_at)),
    ended_at: row.ended_at === null ? null : iso(Number(row.ended_at)),
    failure: failureDto(row.failure),
  };
}

export function findProgram(q: Q, id: number) {
  return q.selectFrom('evaluation_programs').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findAttemptByAccount(q: Q, accountId: number) {
  return q.selectFrom('evaluation_attempts').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

export function findAttempt(q: Q, id: number) {
  return q.selectFrom('evaluation_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The program, if the caller teaches its cohort (or is the admin); outside that scope it is not found. */
export async function programForTeacher(q: Q, caller: AuthUser, programId: number): Promise<ProgramRow> {
  const program = await findProgram(q, programId);
  if (!program) throw errors.programNotFound();
  try {
    await cohortForCaller(q, caller, Number(program.cohort_id), 'teach');
  } catch (err) {
    if ((err as AppError).code === 'COHORT_NOT_FOUND') throw errors.programNotFound();
    throw err;
  }
  return program;
}

async function activeMemberIds(q: Q, cohortId: number): Promise<Set<number>> {
  const rows = await q
    .selectFrom('cohort_members')
    .select('user_id')
    .where('cohort_id', '=', cohortId)
    .where('active', '=', 1)
    .execute();
  return new Set(rows.map((r) => Number(r.user_id)));
}

/**
 * One attempt in its own transaction: a challenge account funded with the program's balance, phase
 * 1, active, its first day's basis the initial balance. Null with the reason when the student
 * cannot start one (no trading profile, or an attempt of this program under way).
 */
async function startOne(
  deps: Deps,
  program: ProgramRow,
  userId: number,
  startedBy: number,
): Promise<{ row: AttemptRow } | { error: string }> {
  const now = deps.clock.now();
  const initial = Number(program.initial_balance_minor);
  const day = dayOf(now, { timeZone: program.time_zone, dayStart: program.day_start });
  try {
    const row = await writeTransaction(deps.db, async (trx) => {
      const active = await trx
        .selectFrom('evaluation_attempts')
        .select('id')
        .where('program_id', '=', program.id)
        .where('user_id', '=', userId)
        .where('status', '=', 'active')
        .executeTakeFirst();
      if (active) return 'ATTEMPT_ACTIVE' as const;
      const opened = await openExtraAccount(trx, {
        userId,
        kind: 'challenge',
        name: program.name,
        balanceMinor: initial,
        leverage: Number(program.leverage),
        now,
      });
      if (!opened) return 'NO_TRADING_ACCOUNT' as const;
      return trx
        .insertInto('evaluation_attempts')
        .values({
          program_id: program.id,
          user_id: userId,
          account_id: opened.accountId,
          phase_index: 0,
          status: 'active',
          started_at: now,
          phase_started_at: now,
          ended_at: null,
          failure: null,
          day_start_at: day.start,
          day_basis_minor: initial,
          highest_day_end_minor: initial,
          started_by: startedBy,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    if (typeof row === 'string') return { error: row };
    deps.bus.publish('message', { topic: ATTEMPT_CHANGED_TOPIC, payload: { attemptId: Number(row.id) } });
    return { row };
  } catch (err) {
    // Two starts racing for one student: the partial unique index lets one through.
    if (/unique|duplicate/i.test(String((err as Error).message))) return { error: 'ATTEMPT_ACTIVE' };
    throw err;
  }
}

async function usersById(q: Q, ids: readonly number[]) {
  if (ids.length === 0) return new Map<number, { id: number; email: string; full_name: string }>();
  const rows = await q.selectFrom('users').select(['id', 'email', 'full_name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), email: r.email, full_name: r.full_name }]));
}

/** POST academy/programs/{id}/attempts/: the admin and the cohort's instructors, for chosen active members or all. */
export async function startAttempts(
  deps: Deps,
  caller: AuthUser,
  programId: number,
  input: AttemptsStartRequest,
): Promise<AttemptsStartResponse> {
  const program = await programForTeacher(deps.db.kysely, caller, programId);
  if (program.status !== 'active') throw errors.programArchived();
  const members = await activeMemberIds(deps.db.kysely, Number(program.cohort_id));
  const chosen = 'all_members' in input ? [...members] : [...new Set(input.user_ids)];
  const started: AttemptRow[] = [];
  const failed: AttemptsStartResponse['errors'] = [];
  for (const userId of chosen) {
    if (!members.has(userId)) {
      failed.push({ user_id: userId, error: 'NOT_A_MEMBER' });
      continue;
    }
    const outcome = await startOne(deps, program, userId, caller.userId);
    if ('error' in outcome) failed.push({ user_id: userId, error: outcome.error });
    else started.push(outcome.row);
  }
  const users = await usersById(
    deps.db.kysely,
    started.map((r) => Number(r.user_id)),
  );
  return { started: started.map((r) => attemptDto(r, users.get(Number(r.user_id))!)), errors: failed };
}

/** POST trading/programs/{id}/attempts/: a member of the program's cohort, when it allows self-start. */
export async function selfStartAttempt(deps: Deps, caller: AuthUser, programId: number): Promise<AttemptDto> {
  const program = await findProgram(deps.db.kysely, programId);
  const members = program ? await activeMemberIds(deps.db.kysely, Number(program.cohort_id)) : new Set<number>();
  // Another cohort's program does not exist for this trader.
  if (!program || !members.has(caller.userId)) throw errors.programNotFound();
  if (program.status !== 'active') throw errors.programArchived();
  if (Number(program.allow_self_start) !== 1) throw errors.selfStartNotAllowed();
  const outcome = await startOne(deps, program, caller.userId, caller.userId);
  if ('error' in outcome) throw outcome.error === 'ATTEMPT_ACTIVE' ? errors.attemptActive() : errors.noTradingAccount();
  return attemptDto(outcome.row, { id: caller.userId, email: caller.email, full_name: caller.fullName });
}

/** Every attempt of a program, newest first, with each student. */
export async function attemptsOfProgram(q: Q, programId: number) {
  const rows = await q
    .selectFrom('evaluation_attempts')
    .selectAll()
    .where('program_id', '=', programId)
    .orderBy('id', 'desc')
    .execute();
  const users = await usersById(
    q,
    rows.map((r) => Number(r.user_id)),
  );
  return rows.map((row) => ({ row, user: users.get(Number(row.user_id))! }));
}

/** The phase an attempt is in, from its program. */
export function phaseOf(program: ProgramRow, attempt: Pick<AttemptRow, 'phase_index'>) {
  return phasesOf(program)[Number(attempt.phase_index)]!;
}

/**
 * Each student's evaluation attempt in a cohort's programs (docs/evaluations.md), for the academy's
 * roster: the active one, else the latest. One read per roster call, of this cohort's programs only.
 */
export async function rosterAttempts(q: Q, cohortId: number) {
  const rows = await q
    .selectFrom('evaluation_attempts')
    .innerJoin('evaluation_programs', 'evaluation_programs.id', 'evaluation_attempts.program_id')
    .select([
      'evaluation_attempts.id',
      'evaluation_attempts.user_id',
      'evaluation_attempts.program_id',
      'evaluation_attempts.phase_index',
      'evaluation_attempts.status',
      'evaluation_programs.name',
    ])
    .where('evaluation_programs.cohort_id', '=', cohortId)
    .orderBy('evaluation_attempts.id')
    .execute();
  const byUser = new Map<number, NonNullable<RosterRowDto['attempt']>>();
  for (const r of rows) {
    const current = byUser.get(Number(r.user_id));
    // Oldest first: a later attempt replaces an earlier one, unless the earlier is still active.
    if (current?.status === 'active' && r.status !== 'active') continue;
    byUser.set(Number(r.user_id), {
      id: Number(r.id),
      program_id: Number(r.program_id),
      program_name: r.name,
      phase_index: Number(r.phase_index),
      status: r.status,
    });
  }
  return byUser;
}

/** The attempt of each of a trader's challenge accounts (`GET trading/accounts/`'s `challenge`), by account id. */
export async function attemptsOfAccounts(q: Q, userId: number) {
  const rows = await q
    .selectFrom('evaluation_attempts')
    .select(['id', 'account_id', 'status'])
    .where('user_id', '=', userId)
    .execute();
  return new Map(rows.map((a) => [Number(a.account_id), { attempt_id: Number(a.id), status: a.status }]));
}
