import { Dec, type MeterDto } from '@pipdesk/contract';
import { findAccountById } from '../accounts/index.js';
import type { AuthUser } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { errors } from '../errors.js';
import type { LiveTrading } from '../trading/index.js';
import {
  type AttemptRow,
  attemptDto,
  attemptsOfProgram,
  findAttemptByAccount,
  findProgram,
  programForTeacher,
} from './attempts.js';
import type { EvaluationBook } from './book.js';
import { dayOf } from './day.js';
import { daysOf, type PhaseDays, phaseDays, phaseEndsAt, specOf } from './phase.js';
import { type ProgramRow, phaseDto, phaseRules, phasesOf } from './programs.js';
import { dailyLossFloor, maxLossFloor, passingCheck } from './rules.js';

type Deps = Pick<AppContext, 'db' | 'clock'> & { live: Pick<LiveTrading, 'accountFigures'> };

const usd = (minor: number) => Dec.scaled(minor, 2).toNumber(2);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The meter of an attempt (docs/evaluations.md#the-meter): every rule of its phase, where the account
 * stands and the room left, from the attempt's recorded day and the live book's equity.
 */
export async function meterOf(
  deps: Deps,
  attempt: AttemptRow,
  program: ProgramRow,
  user: { id: number; email: string; full_name: string },
  /** The phase's trading days: an active attempt's come from its book entry (`daysOf`). */
  days: () => Promise<PhaseDays> = () => phaseDays(deps, { program, attempt }),
): Promise<MeterDto> {
  const accountId = Number(attempt.account_id);
  const phase = phasesOf(program)[Number(attempt.phase_index)]!;
  const rules = phaseRules(phase);
  const initialMinor = Number(program.initial_balance_minor);
  const live = deps.live.accountFigures(accountId);
  const row = live ? undefined : await findAccountById(deps.db.kysely, accountId);
  const balance = live?.balance ?? Dec.scaled(Number(row?.balance_minor ?? 0), 2);
  const equity = live?.equity ?? balance;
  const dailyFloor = dailyLossFloor(rules, initialMinor, Number(attempt.day_basis_minor));
  const maxFloor = maxLossFloor(rules, initialMinor, Number(attempt.highest_day_end_minor));
  const room = (floor: number) => Dec.max(equity.minus(Dec.scaled(floor, 2)), Dec.ZERO).toNumber(2);
  const { tradingDays, dayPnlsMinor } = await days();
  const check = passingCheck(rules, {
    initialMinor,
    balanceMinor: balance.toScaledNumber(2),
    openPositions: 0,
    tradingDays,
    dayPnlsMinor,
  });
  const gained = balance.minus(Dec.scaled(initialMinor, 2));
  const needed = Dec.scaled(check.targetBalanceMinor - initialMinor, 2);
  const progress = gained.lte(0) ? 0 : Math.min(100, gained.div(needed).times(100).toNumber(2));
  const ends = phaseEndsAt({ program, attempt, rules });
  const dto = attemptDto(attempt, user);
  return {
    attempt: dto,
    phase: { ...phaseDto(phase), index: Number(attempt.phase_index) },
    initial_balance: usd(initialMinor),
    balance: balance.toNumber(2),
    equity: equity.round(2).toNumber(2),
    day_basis: usd(Number(attempt.day_basis_minor)),
    daily_loss_floor: dailyFloor === null ? null : usd(dailyFloor),
    daily_loss_left: dailyFloor === null ? null : room(dailyFloor),
    max_loss_floor: usd(maxFloor),
    max_loss_left: room(maxFloor),
    profit_target_balance: usd(check.targetBalanceMinor),
    profit_progress_pct: progress,
    trading_days: tradingDays,
    best_day_pnl: usd(check.bestDayMinor),
    best_day_ok: check.bestDayOk,
    day_ends_at: iso(dayOf(deps.clock.now(), specOf({ program })).end),
    phase_ends_at: ends === null ? null : iso(ends),
    status: attempt.status,
    failure: dto.failure,
  };
}

/** GET trading/challenge/?account=: the meter of the caller's challenge account (the gate checked it is theirs). */
export async function challengeMeter(
  deps: Deps & { book: Pick<EvaluationBook, 'get'> },
  caller: AuthUser,
  accountId: number | undefined,
): Promise<MeterDto> {
  if (accountId === undefined) throw errors.attemptNotFound();
  const user = { id: caller.userId, email: caller.email, full_name: caller.fullName };
  // An active attempt is in every node's book: its meter reads no row, and its trading days only after a fill.
  const entry = deps.book.get(accountId);
  if (entry && Number(entry.attempt.user_id) === caller.userId)
    return meterOf(deps, entry.attempt, entry.program, user, () => daysOf(deps, entry));
  const attempt = await findAttemptByAccount(deps.db.kysely, accountId);
  if (!attempt || Number(attempt.user_id) !== caller.userId) throw errors.attemptNotFound();
  const program = await findProgram(deps.db.kysely, Number(attempt.program_id));
  if (!program) throw errors.attemptNotFound();
  return meterOf(deps, attempt, program, user);
}

/** GET academy/programs/{id}/attempts/: every attempt with its meter, newest first. */
export async function attemptBoard(deps: Deps, caller: AuthUser, programId: number): Promise<MeterDto[]> {
  const program = await programForTeacher(deps.db.kysely, caller, programId);
  const attempts = await attemptsOfProgram(deps.db.kysely, Number(program.id));
  const board: MeterDto[] = [];
  for (const { row, user } of attempts) board.push(await meterOf(deps, row, program, user));
  return board;
}
