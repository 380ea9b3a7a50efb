import { programListSchema, programSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { academyCast, api } from '../test/academy.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { phaseRules, phasesOf } from './programs.js';

/** Evaluation programs of a cohort (docs/evaluations.md#programs): who may do what, and every rule's validation. */
let t: TestApp;
let cast: Awaited<ReturnType<typeof academyCast>>;

const twoPhase = {
  name: 'Two-step challenge',
  initial_balance: 100000,
  leverage: 30,
  time_zone: 'Europe/Prague',
  day_start: '00:00',
  allow_self_start: true,
  phases: [
    { name: 'Challenge', profit_target_pct: 10, max_daily_loss_pct: 5, max_loss_pct: 10, min_trading_days: 4, max_days: 30 },
    {
      name: 'Verification',
      profit_target_pct: 5,
      max_daily_loss_pct: 5,
      daily_loss_basis: 'max_balance_equity',
      max_loss_pct: 10,
      max_loss_mode: 'trailing_eod',
      min_trading_days: 4,
      max_days: 60,
      best_day_pct: 50,
      require_stop_loss: true,
      max_lots: 5.5,
    },
  ],
};

beforeAll(async () => {
  t = await startTestApp();
  cast = await academyCast(t);
});
afterAll(async () => {
  await t?.close();
});

const programsOf = (cohortId: number) => `/api/academy/cohorts/${cohortId}/programs/`;

describe('creating and listing programs', () => {
  it('lets the cohort’s instructor create a two-phase program, with every rule kept exactly', async () => {
    const res = await api(t, cast.instructorA, 'POST', programsOf(cast.cohortA.id), twoPhase);
    expect(res.statusCode).toBe(201);
    const program = programSchema.parse(res.json().data);
    expect(program).toMatchObject({
      cohort_id: cast.cohortA.id,
      name: 'Two-step challenge',
      initial_balance: 100000,
      leverage: 30,
      time_zone: 'Europe/Prague',
      day_start: '00:00',
      allow_self_start: true,
      status: 'active',
    });
    expect(program.phases[0]).toEqual({
      name: 'Challenge',
      profit_target_pct: 10,
      max_daily_loss_pct: 5,
      daily_loss_basis: 'balance',
      max_loss_pct: 10,
      max_loss_mode: 'static',
      min_trading_days: 4,
      max_days: 30,
      best_day_pct: null,
      require_stop_loss: false,
      max_lots: null,
    });
    expect(program.phases[1]).toMatchObject({
      daily_loss_basis: 'max_balance_equity',
      max_loss_mode: 'trailing_eod',
      best_day_pct: 50,
      require_stop_loss: true,
      max_lots: 5.5,
    });
    // Stored as the exact integers the rules compute with.
    const row = await t.ctx.db.kysely
      .selectFrom('evaluation_programs')
      .selectAll()
      .where('id', '=', program.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.initial_balance_minor)).toBe(10_000_000);
    expect(phaseRules(phasesOf(row)[1]!)).toMatchObject({ profitTargetPct: 500, bestDayPct: 5000, maxLotsCentilots: 550 });
  });

  it('shows a cohort’s programs to its members and the admin, and to no one outside it', async () => {
    const created = await api(t, cast.admin, 'POST', programsOf(cast.cohortB.id), { ...twoPhase, name: 'B only' });
    expect(created.statusCode).toBe(201);
    for (const who of [cast.memberB, cast.instructorB, cast.admin]) {
      const res = await api(t, who, 'GET', programsOf(cast.cohortB.id));
      expect(res.statusCode).toBe(200);
      expect(programListSchema.parse(res.json().data).map((p) => p.name)).toContain('B only');
    }
    for (const who of [cast.memberA, cast.instructorA, cast.outsider]) {
      const res = await api(t, who, 'GET', programsOf(cast.cohortB.id));
      expect([res.statusCode, res.json().code]).toEqual([404, 'COHORT_NOT_FOUND']);
    }
  });

  it('refuses a trader (403), and another cohort’s instructor (404), and stores nothing', async () => {
    const before = await t.ctx.db.kysely.selectFrom('evaluation_programs').select('id').execute();
    expect((await api(t, cast.memberA, 'POST', programsOf(cast.cohortA.id), twoPhase)).json().code).toBe('FORBIDDEN');
    expect((await api(t, cast.instructorB, 'POST', programsOf(cast.cohortA.id), twoPhase)).json().code).toBe('COHORT_NOT_FOUND');
    expect(await t.ctx.db.kysely.selectFrom('evaluation_programs').select('id').execute()).toEqual(before);
  });
});

describe('validation: every rule names its field, and nothing is stored', () => {
  const phase0 = twoPhase.phases[0]!;
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no phase', { phases: [] }, 'phases'],
    ['four phases', { phases: [phase0, phase0, phase0, phase0] }, 'phases'],
    ['a target of 0 %', { phases: [{ ...phase0, profit_target_pct: 0 }] }, 'phases.0.profit_target_pct'],
    ['a target above 100 %', { phases: [{ ...phase0, profit_target_pct: 100.01 }] }, 'phases.0.profit_target_pct'],
    ['3 decimals', { phases: [{ ...phase0, max_loss_pct: 10.125 }] }, 'phases.0.max_loss_pct'],
    ['a daily loss above the max loss', { phases: [{ ...phase0, max_daily_loss_pct: 11 }] }, 'phases.0.max_daily_loss_pct'],
    ['more trading days than days', { phases: [{ ...phase0, min_trading_days: 31 }] }, 'phases.0.min_trading_days'],
    ['max lots not a 0.01 step', { phases: [{ ...phase0, max_lots: 0.005 }] }, 'phases.0.max_lots'],
    ['an unknown basis', { phases: [{ ...phase0, daily_loss_basis: 'equity' }] }, 'phases.0.daily_loss_basis'],
    ['an unknown time zone', { time_zone: 'Europe/Atlantis' }, 'time_zone'],
    ['a day start of 24:00', { day_start: '24:00' }, 'day_start'],
    ['a balance of 0', { initial_balance: 0 }, 'initial_balance'],
    ['an unknown field', { phases: [{ ...phase0, max_drawdown: 5 }] }, 'max_drawdown'],
  ];
  for (const [what, change, field] of cases) {
    it(`${what} → 400 on ${field}`, async () => {
      const res = await api(t, cast.instructorA, 'POST', programsOf(cast.cohortA.id), { ...twoPhase, name: what, ...change });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
      const stored = await t.ctx.db.kysely.selectFrom('evaluation_programs').select('id').where('name', '=', what).execute();
      expect(stored).toEqual([]);
    });
  }
});

describe('changing a program', () => {
  it('renames, stops self-start and archives; its money and rules cannot change', async () => {
    const created = programSchema.parse(
      (await api(t, cast.instructorA, 'POST', programsOf(cast.cohortA.id), { ...twoPhase, name: 'To change' })).json().data,
    );
    const url = `/api/academy/programs/${created.id}/`;
    const changed = await api(t, cast.instructorA, 'PATCH', url, {
      name: 'Changed',
      allow_self_start: false,
      status: 'archived',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data).toMatchObject({
      name: 'Changed',
      allow_self_start: false,
      status: 'archived',
      phases: created.phases,
    });
    expect((await api(t, cast.instructorA, 'PATCH', url, { initial_balance: 5 })).statusCode).toBe(400);
    expect((await api(t, cast.instructorA, 'PATCH', url, {})).statusCode).toBe(400);
    // Outside the cohort the program does not exist; a trader is refused by role.
    expect((await api(t, cast.instructorB, 'PATCH', url, { name: 'x' })).json().code).toBe('PROGRAM_NOT_FOUND');
    expect((await api(t, cast.memberA, 'PATCH', url, { name: 'x' })).json().code).toBe('FORBIDDEN');
    expect((await api(t, cast.admin, 'PATCH', '/api/academy/programs/999999/', { name: 'x' })).json().code).toBe(
      'PROGRAM_NOT_FOUND',
    );
    expect((await api(t, cast.admin, 'PATCH', '/api/academy/programs/abc/', { name: 'x' })).json().code).toBe(
      'PROGRAM_NOT_FOUND',
    );
    // Archived ones list after the active ones.
    const listed = programListSchema.parse((await api(t, cast.admin, 'GET', programsOf(cast.cohortA.id))).json().data);
    expect(listed.at(-1)!.id).toBe(created.id);
  });
});
