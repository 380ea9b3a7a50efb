import {
  Dec,
  type PhaseDto,
  type PhaseRequest,
  type ProgramCreateRequest,
  type ProgramDto,
  type ProgramPatchRequest,
} from '@pipdesk/contract';
import type { Kysely, Selectable } from 'kysely';
import { cohortForCaller } from '../academy/scope.js';
import type { AuthUser } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { Database } from '../db/schema.js';
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import type { PhaseRules } from './rules.js';
import type { EvaluationProgramsTable } from './tables.js';

type Q = Kysely<Database>;
type Deps = Pick<AppContext, 'db' | 'clock'>;
export type ProgramRow = Selectable<EvaluationProgramsTable>;

/**
 * A phase as stored (the program's `phases` JSON): percentages in hundredths of a percent and
 * lots in centilots, the exact integers the rules compute with (rules.ts).
 */
export interface StoredPhase {
  name: string;
  profit_target: number;
  max_daily_loss: number | null;
  daily_loss_basis: PhaseRules['dailyLossBasis'];
  max_loss: number;
  max_loss_mode: PhaseRules['maxLossMode'];
  min_trading_days: number;
  max_days: number | null;
  best_day: number | null;
  require_stop_loss: boolean;
  max_lots_centilots: number | null;
}

/** 5.25 (%) → 525: the request's 2 decimals, exactly. */
const hundredths = (pct: number) => Dec.from(pct).toScaledNumber(2);
const fromHundredths = (n: number) => Dec.scaled(n, 2).toNumber(2);

function storedPhase(p: PhaseRequest): StoredPhase {
  return {
    name: p.name,
    profit_target: hundredths(p.profit_target_pct),
    max_daily_loss: p.max_daily_loss_pct === null ? null : hundredths(p.max_daily_loss_pct),
    daily_loss_basis: p.daily_loss_basis,
    max_loss: hundredths(p.max_loss_pct),
    max_loss_mode: p.max_loss_mode,
    min_trading_days: p.min_trading_days,
    max_days: p.max_days,
    best_day: p.best_day_pct === null ? null : hundredths(p.best_day_pct),
    require_stop_loss: p.require_stop_loss,
    max_lots_centilots: p.max_lots === null ? null : Dec.from(p.max_lots).toScaledNumber(2),
  };
}

/** The phases of a stored program, in order. */
export function phasesOf(row: Pick<ProgramRow, 'phases'>): StoredPhase[] {
  return JSON.parse(row.phases) as StoredPhase[];
}

/** A stored phase as the rules read it (rules.ts). */
export function phaseRules(p: StoredPhase): PhaseRules {
  return {
    profitTargetPct: p.profit_target,
    maxDailyLossPct: p.max_daily_loss,
    dailyLossBasis: p.daily_loss_basis,
    maxLossPct: p.max_loss,
    maxLossMode: p.max_loss_mode,
    minTradingDays: p.min_trading_days,
    maxDays: p.max_days,
    bestDayPct: p.best_day,
    requireStopLoss: p.require_stop_loss,
    maxLotsCentilots: p.max_lots_centilots,
  };
}

export function phaseDto(p: StoredPhase): PhaseDto {
  return {
    name: p.name,
    profit_target_pct: fromHundredths(p.profit_target),
    max_daily_loss_pct: p.max_daily_loss === null ? null : fromHundredths(p.max_daily_loss),
    daily_loss_basis: p.daily_loss_basis,
    max_loss_pct: fromHundredths(p.max_loss),
    max_loss_mode: p.max_loss_mode,
    min_trading_days: p.min_trading_days,
    max_days: p.max_days,
    best_day_pct: p.best_day === null ? null : fromHundredths(p.best_day),
    require_stop_loss: p.require_stop_loss,
    max_lots: p.max_lots_centilots === null ? null : Dec.scaled(p.max_lots_centilots, 2).toNumber(2),
  };
}

export function programDto(row: ProgramRow): ProgramDto {
  return {
    id: Number(row.id),
    cohort_id: Number(row.cohort_id),
    name: row.name,
    initial_balance: Dec.scaled(Number(row.initial_balance_minor), 2).toNumber(2),
    leverage: Number(row.leverage),
    time_zone: row.time_zone,
    day_start: row.day_start,
    allow_self_start: Number(row.allow_self_start) === 1,
    status: row.status,
    phases: phasesOf(row).map(phaseDto),
    created_at: new Date(Number(row.created_at)).toISOString(),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
  };
}

function findProgram(q: Q, id: number) {
  return q.selectFrom('evaluation_programs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** GET cohorts/{id}/programs/: the admin, the cohort's instructors and its members. Active first, newest first. */
export async function listPrograms(deps: Deps, caller: AuthUser, cohortId: number): Promise<ProgramDto[]> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'view');
  const rows = await deps.db.kysely
    .selectFrom('evaluation_programs')
    .selectAll()
    .where('cohort_id', '=', cohortId)
    .orderBy('status')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(programDto);
}

/** POST cohorts/{id}/programs/: the admin and the cohort's instructors. */
export async function createProgram(
  deps: Deps,
  caller: AuthUser,
  cohortId: number,
  input: ProgramCreateRequest,
): Promise<ProgramDto> {
  await cohortForCaller(deps.db.kysely, caller, cohortId, 'teach');
  const now = deps.clock.now();
  const row = await writeTransaction(deps.db, (trx) =>
    trx
      .insertInto('evaluation_programs')
      .values({
        cohort_id: cohortId,
        name: input.name,
        initial_balance_minor: Dec.from(input.initial_balance).toScaledNumber(2),
        leverage: input.leverage,
        time_zone: input.time_zone,
        day_start: input.day_start,
        allow_self_start: input.allow_self_start ? 1 : 0,
        status: 'active',
        phases: JSON.stringify(input.phases.map(storedPhase)),
        created_by: caller.userId,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return programDto(row);
}

/**
 * PATCH programs/{id}/: the admin and the program's cohort's instructors; a program outside the
 * caller's scope is not found. Only its name, self-start and status change.
 */
export async function updateProgram(
  deps: Deps,
  caller: AuthUser,
  programId: number,
  input: ProgramPatchRequest,
): Promise<ProgramDto> {
  const found = await findProgram(deps.db.kysely, programId);
  if (!found) throw errors.programNotFound();
  try {
    await cohortForCaller(deps.db.kysely, caller, Number(found.cohort_id), 'teach');
  } catch (err) {
    // Whose cohort it is says nothing to someone outside it: the program is simply not found.
    if ((err as { code?: string }).code === 'COHORT_NOT_FOUND') throw errors.programNotFound();
    throw err;
  }
  const row = await writeTransaction(deps.db, (trx) =>
    trx
      .updateTable('evaluation_programs')
      .set({
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.allow_self_start === undefined ? {} : { allow_self_start: input.allow_self_start ? 1 : 0 }),
        ...(input.status === undefined ? {} : { status: input.status }),
        updated_at: deps.clock.now(),
      })
      .where('id', '=', programId)
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return programDto(row);
}
