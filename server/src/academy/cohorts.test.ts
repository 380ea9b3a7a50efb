import { type CohortDto, cohortListSchema, cohortSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { academyCast, api } from '../test/academy.js';
import { startTestApp, type TestApp } from '../test/helpers.js';

// docs/academy.md#scope: every cohort call of this part against each role, own cohort and another's.

describe('academy cohorts and instructors', () => {
  let t: TestApp;
  let cast: Awaited<ReturnType<typeof academyCast>>;
  beforeAll(async () => {
    t = await startTestApp();
    cast = await academyCast(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const names = (body: { data: CohortDto[] }) => body.data.map((c) => c.name).sort();

  it('GET cohorts/: admin every cohort, an instructor theirs, a member their own, an outsider none', async () => {
    const { admin, instructorA, instructorB, memberA, memberB, outsider } = cast;
    const expected: Array<[typeof admin, string[]]> = [
      [admin, ['Cohort A', 'Cohort B']],
      [instructorA, ['Cohort A']],
      [instructorB, ['Cohort B']],
      [memberA, ['Cohort A']],
      [memberB, ['Cohort B']],
      [outsider, []],
    ];
    for (const [who, cohorts] of expected) {
      const res = await api(t, who, 'GET', '/api/academy/cohorts/');
      expect(res.statusCode, who.fullName).toBe(200);
      const body = res.json();
      expect(cohortListSchema.safeParse(body.data).success).toBe(true);
      expect(
        names(body).filter((n) => n.startsWith('Cohort ')),
        who.fullName,
      ).toEqual(cohorts);
    }
    expect((await api(t, undefined, 'GET', '/api/academy/cohorts/')).statusCode).toBe(401);
  });

  it('a cohort shows its terms exactly, its instructors and its member count', async () => {
    const res = await api(t, cast.admin, 'GET', '/api/academy/cohorts/');
    const a = (res.json().data as CohortDto[]).find((c) => c.id === cast.cohortA.id);
    expect(a).toEqual({
      id: cast.cohortA.id,
      name: 'Cohort A',
      description: '',
      starting_balance: 5000,
      leverage: 50,
      starts_at: null,
      ends_at: null,
      allow_self_reset: false,
      status: 'active',
      instructors: [{ id: cast.instructorA.userId, full_name: 'Ian A' }],
      member_count: 1,
    });
  });

  it('POST cohorts/: admin 201 with the cohort; an instructor or a trader 403, whatever the body', async () => {
    const body = {
      name: '  Spring 2027 ',
      description: 'Evening class',
      starting_balance: 2500.5,
      leverage: 30,
      starts_at: '2027-03-01',
      ends_at: '2027-06-30T18:00:00Z',
      allow_self_reset: true,
    };
    const res = await api(t, cast.admin, 'POST', '/api/academy/cohorts/', body);
    expect(res.statusCode).toBe(201);
    const cohort = cohortSchema.parse(res.json().data);
    expect(cohort).toMatchObject({
      name: 'Spring 2027',
      starting_balance: 2500.5,
      leverage: 30,
      starts_at: '2027-03-01T00:00:00.000Z',
      ends_at: '2027-06-30T18:00:00.000Z',
      allow_self_reset: true,
      status: 'active',
      instructors: [],
      member_count: 0,
    });
    const stored = await t.ctx.db.kysely.selectFrom('cohorts').selectAll().where('id', '=', cohort.id).executeTakeFirstOrThrow();
    expect(Number(stored.starting_balance_minor)).toBe(250_050);

    for (const who of [cast.instructorA, cast.memberA, cast.outsider]) {
      expect((await api(t, who, 'POST', '/api/academy/cohorts/', body)).statusCode, who.fullName).toBe(403);
      const bad = await api(t, who, 'POST', '/api/academy/cohorts/', { name: '' });
      expect(bad.statusCode, who.fullName).toBe(403);
      expect(bad.json().code).toBe('FORBIDDEN');
    }
  });

  it('POST cohorts/: bad input is a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ starting_balance: 1000, leverage: 10 }, /^name: /],
      [{ name: 'x', starting_balance: 10.005, leverage: 10 }, /^starting_balance: must have at most 2 decimals/],
      [{ name: 'x', starting_balance: 0, leverage: 10 }, /^starting_balance: /],
      [{ name: 'x', starting_balance: 1000, leverage: 0 }, /^leverage: /],
      [{ name: 'x', starting_balance: 1000, leverage: 10.5 }, /^leverage: /],
      [{ name: 'x', starting_balance: 1000, leverage: 10, starts_at: '2027-05-01', ends_at: '2027-04-01' }, /^ends_at: /],
      [{ name: 'x', starting_balance: 1000, leverage: 10, starts_at: 'tomorrow' }, /^starts_at: /],
      [{ name: 'x\u0000', starting_balance: 1000, leverage: 10 }, /^name: /],
      [{ name: 'x', starting_balance: 1000, leverage: 10, colour: 'red' }, /Unknown field: colour/],
    ];
    for (const [body, message] of cases) {
      const res = await api(t, cast.admin, 'POST', '/api/academy/cohorts/', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error, JSON.stringify(body)).toMatch(message);
    }
  });

  it('PATCH cohorts/{id}/: admin 200; instructors and traders 403; an unknown id 404', async () => {
    const url = `/api/academy/cohorts/${cast.cohortB.id}/`;
    const res = await api(t, cast.admin, 'PATCH', url, {
      description: 'Mornings',
      allow_self_reset: true,
      starting_balance: 7500,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Cohort B',
      description: 'Mornings',
      allow_self_reset: true,
      starting_balance: 7500,
    });
    for (const who of [cast.instructorA, cast.instructorB, cast.memberA, cast.memberB, cast.outsider]) {
      expect((await api(t, who, 'PATCH', url, { name: 'Mine now' })).statusCode, who.fullName).toBe(403);
    }
    expect((await api(t, cast.admin, 'PATCH', '/api/academy/cohorts/999999/', { name: 'x' })).statusCode).toBe(404);
    expect((await api(t, cast.admin, 'PATCH', '/api/academy/cohorts/abc/', { name: 'x' })).statusCode).toBe(404);
    expect((await api(t, cast.admin, 'PATCH', url, {})).statusCode).toBe(400);
    const after = await api(t, cast.admin, 'GET', '/api/academy/cohorts/');
    expect((after.json().data as CohortDto[]).find((c) => c.id === cast.cohortB.id)?.name).toBe('Cohort B');
  });

  it('POST / DELETE cohorts/{id}/instructors/: admin only; a trader named becomes an instructor', async () => {
    const url = `/api/academy/cohorts/${cast.cohortA.id}/instructors/`;
    for (const method of ['POST', 'DELETE'] as const) {
      for (const who of [cast.instructorA, cast.instructorB, cast.memberA, cast.outsider]) {
        expect((await api(t, who, method, url, { email: cast.outsider.email })).statusCode, `${method} ${who.fullName}`).toBe(
          403,
        );
      }
    }
    // The outsider (a trader) becomes an instructor of A: they see A, and A's member import is theirs to make.
    const added = await api(t, cast.admin, 'POST', url, { email: cast.outsider.email.toUpperCase() });
    expect(added.statusCode).toBe(200);
    expect(added.json().data.instructors.map((i: { id: number }) => i.id)).toEqual([
      cast.instructorA.userId,
      cast.outsider.userId,
    ]);
    const seen = await api(t, cast.outsider, 'GET', '/api/academy/cohorts/');
    expect(names(seen.json())).toEqual(['Cohort A']);
    const me = await api(t, cast.outsider, 'GET', '/api/academy/me/');
    expect(me.json().data).toEqual({
      id: cast.outsider.userId,
      role: 'instructor',
      must_change_password: false,
      cohort_id: null,
    });
    // Adding twice changes nothing.
    expect((await api(t, cast.admin, 'POST', url, { email: cast.outsider.email })).json().data.instructors).toHaveLength(2);

    const removed = await api(t, cast.admin, 'DELETE', url, { email: cast.outsider.email });
    expect(removed.statusCode).toBe(200);
    expect(removed.json().data.instructors).toEqual([{ id: cast.instructorA.userId, full_name: 'Ian A' }]);
    expect(names((await api(t, cast.outsider, 'GET', '/api/academy/cohorts/')).json())).toEqual([]);
    expect((await api(t, cast.admin, 'DELETE', url, { email: cast.outsider.email })).statusCode).toBe(404);
    expect((await api(t, cast.admin, 'POST', url, { email: 'nobody@example.com' })).json().code).toBe('TRADER_NOT_FOUND');
    expect((await api(t, cast.admin, 'POST', url, { email: cast.memberA.email })).json().code).toBe('ALREADY_IN_COHORT');
    expect(
      (await api(t, cast.admin, 'POST', '/api/academy/cohorts/999999/instructors/', { email: cast.outsider.email })).statusCode,
    ).toBe(404);
  });

  it('archiving frees the members; making it active again is refused while one is in another active cohort', async () => {
    const created = await api(t, cast.admin, 'POST', '/api/academy/cohorts/', {
      name: 'Short course',
      starting_balance: 1000,
      leverage: 10,
    });
    const short = created.json().data as CohortDto;
    const student = { email: `archive.${process.pid}@example.com`, full_name: 'Arch Ive' };
    const first = await api(t, cast.admin, 'POST', `/api/academy/cohorts/${short.id}/members/`, { students: [student] });
    expect(first.json().data.created).toHaveLength(1);
    // In an active cohort: another active cohort refuses them.
    const refused = await api(t, cast.admin, 'POST', `/api/academy/cohorts/${cast.cohortA.id}/members/`, { students: [student] });
    expect(refused.json().data.errors).toEqual([
      { row: 1, email: student.email, error: expect.stringMatching(/already in the active cohort "Short course"/) },
    ]);

    expect(
      (await api(t, cast.admin, 'PATCH', `/api/academy/cohorts/${short.id}/`, { status: 'archived' })).json().data.status,
    ).toBe('archived');
    const joined = await api(t, cast.admin, 'POST', `/api/academy/cohorts/${cast.cohortA.id}/members/`, { students: [student] });
    expect(joined.json().data.added).toHaveLength(1);
    const reopen = await api(t, cast.admin, 'PATCH', `/api/academy/cohorts/${short.id}/`, { status: 'active' });
    expect(reopen.statusCode).toBe(409);
    expect(reopen.json().code).toBe('ALREADY_IN_COHORT');
  });
});
