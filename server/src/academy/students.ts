import type {
  CommentRequest,
  CommentResponse,
  LeaderboardDto,
  OrdersQuery,
  PerformanceDto,
  PlatformDataDto,
  ResetResponse,
  RosterDto,
} from '@pipdesk/contract';
import { findOwnAccount } from '../accounts/index.js';
import type { AuthUser } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
import { addComment } from '../trading/journal/comments.js';
import { type JournalPageData, journalOfUser } from '../trading/journal/service.js';
import type { LiveTrading } from '../trading/live/index.js';
import { performanceOfUser } from '../trading/performance/service.js';
import type { OrdersPageData, TradingServiceImpl } from '../trading/service.js';
import { optionalAccountId, userId } from '../trading/types.js';
import * as cohorts from './cohorts.repo.js';
import { leaderboard } from './leaderboard.js';
import { roster } from './roster.js';
import { cohortForCaller, type ScopedStudent, studentForCaller } from './scope.js';
import { cohortStandingsOf, type StandingsCache } from './standings.js';

/** What the instructor's console needs (docs/academy.md#the-instructors-console). */
export interface ConsoleDeps {
  db: AppContext['db'];
  clock: AppContext['clock'];
  config: Pick<AppContext['config'], 'marginCallLevel'>;
  trading: Pick<TradingServiceImpl, 'platformData' | 'listOrders' | 'resetAccount' | 'pricing'>;
  live: Pick<LiveTrading, 'accountSnapshot'>;
  /** The standings' cache, kept fresh by the bus (standings.ts). */
  cache?: StandingsCache;
  /**
   * Each student's evaluation attempt in a cohort's programs, by user id (the evaluations module's
   * `rosterAttempts`, handed in by the app: academy does not read that module's tables).
   */
  attempts?: { ofCohort(cohortId: number): Promise<Map<number, NonNullable<RosterDto[number]['attempt']>>> };
}

const studentUser = (s: ScopedStudent) => ({ id: s.userId, email: s.email, full_name: s.fullName });

/** GET cohorts/{id}/roster/: admin and the cohort's instructors; live figures from memory. */
export async function rosterOf(deps: ConsoleDeps, caller: AuthUser, cohortId: number): Promise<RosterDto> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'teach');
  const standings = await cohortStandingsOf(deps, cohortId);
  const rows = roster(standings, { marginCallLevel: deps.config.marginCallLevel, now: deps.clock.now() });
  const attempts = (await deps.attempts?.ofCohort(cohortId)) ?? new Map();
  return rows.map((row) => ({ ...row, attempt: attempts.get(row.user.id) ?? null }));
}

/** GET cohorts/{id}/leaderboard/: its members, its instructors and admins. */
export async function leaderboardOf(deps: ConsoleDeps, caller: AuthUser, cohortId: number): Promise<LeaderboardDto> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'view');
  return leaderboard(await cohortStandingsOf(deps, cohortId));
}

/** GET students/{id}/: the student's dashboard data, read-only. */
export async function studentDashboard(
  deps: ConsoleDeps,
  caller: AuthUser,
  studentId: number,
  account?: number,
): Promise<PlatformDataDto> {
  const student = await studentForCaller(deps.db.kysely, caller, studentId);
  await checkStudentAccount(deps, student.userId, account);
  return deps.trading.platformData(studentUser(student), account);
}

/**
 * The account a student call names (`?account=`, docs/accounts.md): after the caller's scope, it
 * must be the student's, else 404 `ACCOUNT_NOT_FOUND`; left out, the student's primary account.
 */
async function checkStudentAccount(deps: ConsoleDeps, studentUserId: number, account: number | undefined): Promise<void> {
  if (account === undefined) return;
  if (!(await findOwnAccount(deps.db.kysely, studentUserId, account))) throw errors.accountNotFound();
}

/** GET students/{id}/orders/: the orders page with the orders/ filters. */
export async function studentOrders(
  deps: ConsoleDeps,
  caller: AuthUser,
  studentId: number,
  query: OrdersQuery,
  account?: number,
): Promise<OrdersPageData> {
  const student = await studentForCaller(deps.db.kysely, caller, studentId);
  await checkStudentAccount(deps, student.userId, account);
  return deps.trading.listOrders(userId(student.userId), query, account);
}

/** GET students/{id}/performance/: the statistics of the student's current period. */
export async function studentPerformance(
  deps: ConsoleDeps,
  caller: AuthUser,
  studentId: number,
  account?: number,
): Promise<PerformanceDto> {
  const student = await studentForCaller(deps.db.kysely, caller, studentId);
  await checkStudentAccount(deps, student.userId, account);
  return performanceOfUser({ db: deps.db, pricing: deps.trading.pricing }, userId(student.userId), optionalAccountId(account));
}

/** GET students/{id}/journal/: the student's journal, comments included. */
export async function studentJournal(
  deps: ConsoleDeps,
  caller: AuthUser,
  studentId: number,
  query: Parameters<typeof journalOfUser>[2],
  account?: number,
): Promise<JournalPageData> {
  const student = await studentForCaller(deps.db.kysely, caller, studentId);
  await checkStudentAccount(deps, student.userId, account);
  return journalOfUser(
    { db: deps.db, pricing: deps.trading.pricing, clock: deps.clock },
    userId(student.userId),
    query,
    optionalAccountId(account),
  );
}

/**
 * POST students/{id}/comments/: the student's instructors only (docs/academy.md#comments); an
 * admin who does not teach is 403 like a trader, since the comment is a teacher's voice.
 */
export async function commentOnTrade(
  deps: ConsoleDeps,
  caller: AuthUser,
  studentId: number,
  input: CommentRequest,
): Promise<CommentResponse> {
  if (caller.role !== 'instructor') throw errors.forbidden('Only the student’s instructors comment on their trades');
  const student = await studentForCaller(deps.db.kysely, caller, studentId);
  return addComment(deps, {
    traderId: userId(student.userId),
    tradeId: input.trade_id,
    author: { id: caller.userId, full_name: caller.fullName },
    text: input.text,
  });
}

/**
 * POST students/{id}/reset/: admin and the student's instructors; the student themself when
 * their cohort allows self-reset (docs/academy.md#reset). The balance restored is the student's
 * active cohort's starting balance (their latest cohort when none is active).
 */
export async function resetStudent(
  deps: ConsoleDeps,
  caller: AuthUser,
  studentId: number,
  idempotencyKey: string | undefined,
): Promise<{ response: ResetResponse; replayed: boolean }> {
  const q = deps.db.kysely;
  const student = await studentForCaller(q, caller, studentId, { self: (cohort) => cohort?.allow_self_reset === 1 });
  let cohort = student.cohort;
  if (!cohort) {
    const latest = Math.max(0, ...(await cohorts.cohortIdsOfMember(q, student.userId)));
    cohort = latest > 0 ? ((await cohorts.findCohort(q, latest)) ?? null) : null;
  }
  // Not in any cohort: there is no starting balance to restore, so there is no such student.
  if (!cohort) throw errors.studentNotFound();
  return deps.trading.resetAccount(
    {
      userId: userId(student.userId),
      startingBalanceMinor: Number(cohort.starting_balance_minor),
      actorUserId: caller.userId,
    },
    idempotencyKey,
  );
}
