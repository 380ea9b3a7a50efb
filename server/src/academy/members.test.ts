import { MEMBERS_IMPORT_MAX, membersImportResponseSchema } from '@pipdesk/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountByUser, ledgerSum } from '../accounts/index.js';
import { disableTrader } from '../auth/service.js';
import { academyCast, api } from '../test/academy.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader } from '../test/traders.js';

// docs/academy.md#importing-students: who may import and remove, each row's outcome, and atomicity.

describe('academy members: the student import', () => {
  let t: TestApp;
  let cast: Awaited<ReturnType<typeof academyCast>>;
  beforeAll(async () => {
    t = await startTestApp();
    cast = await academyCast(t);
  });
  afterAll(async () => {
    await t.close();
  });

  let n = 0;
  const newEmail = (name: string) => `${name}.${++n}.${process.pid}@example.com`;
  const membersUrl = (cohortId: number) => `/api/academy/cohorts/${cohortId}/members/`;
  const userByEmail = (email: string) =>
    t.ctx.db.kysely.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
  const memberCount = async (cohortId: number) =>
    Number(
      (
        await t.ctx.db.kysely
          .selectFrom('cohort_members')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('cohort_id', '=', cohortId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('POST members/: admin and the cohort’s instructor 200; another cohort’s instructor 404; traders 403', async () => {
    const url = membersUrl(cast.cohortA.id);
    for (const who of [cast.admin, cast.instructorA]) {
      const res = await api(t, who, 'POST', url, { students: [{ email: newEmail('scope'), full_name: 'Sam Scope' }] });
      expect(res.statusCode, who.fullName).toBe(200);
      expect(res.json().data.created).toHaveLength(1);
    }
    const before = await memberCount(cast.cohortA.id);
    const outside = await api(t, cast.instructorB, 'POST', url, { students: [{ email: newEmail('x'), full_name: 'X' }] });
    expect(outside.statusCode).toBe(404);
    expect(outside.json().code).toBe('COHORT_NOT_FOUND');
    for (const who of [cast.memberA, cast.memberB, cast.outsider]) {
      const res = await api(t, who, 'POST', url, { students: [{ email: newEmail('x'), full_name: 'X' }] });
      expect(res.statusCode, who.fullName).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    }
    expect(await memberCount(cast.cohortA.id)).toBe(before);
    expect((await api(t, cast.admin, 'POST', membersUrl(999_999), { students: [{ email: newEmail('x') }] })).statusCode).toBe(
      404,
    );
  });

  it('DELETE members/{userId}/: admin and the cohort’s instructor 200; another cohort’s instructor 404; traders 403', async () => {
    const add = async () => {
      const trader = await addTrader(t);
      const res = await api(t, cast.admin, 'POST', membersUrl(cast.cohortA.id), {
        students: [{ email: trader.email, full_name: '' }],
      });
      expect(res.json().data.added).toHaveLength(1);
      return trader;
    };
    for (const who of [cast.admin, cast.instructorA]) {
      const trader = await add();
      const res = await api(t, who, 'DELETE', `${membersUrl(cast.cohortA.id)}${trader.userId}/`);
      expect(res.statusCode, who.fullName).toBe(200);
      expect(res.json().data).toEqual({ cohort_id: cast.cohortA.id, user_id: trader.userId });
      // Their account stays.
      expect(await findAccountByUser(t.ctx.db.kysely, trader.userId)).toBeDefined();
      expect((await api(t, who, 'DELETE', `${membersUrl(cast.cohortA.id)}${trader.userId}/`)).statusCode).toBe(404);
    }
    const url = `${membersUrl(cast.cohortA.id)}${cast.memberA.userId}/`;
    expect((await api(t, cast.instructorB, 'DELETE', url)).statusCode).toBe(404);
    for (const who of [cast.memberA, cast.memberB, cast.outsider]) {
      expect((await api(t, who, 'DELETE', url)).statusCode, who.fullName).toBe(403);
    }
    expect(await memberCount(cast.cohortA.id)).toBeGreaterThan(0);
    const list = await api(t, cast.memberA, 'GET', '/api/academy/cohorts/');
    expect(list.json().data.map((c: { id: number }) => c.id)).toEqual([cast.cohortA.id]);
  });

  it('creates the missing traders at the cohort’s terms, adds existing ones and reports each bad row', async () => {
    const existing = await addTrader(t, { balanceMinor: 123_456, leverage: 200 });
    const disabled = await addTrader(t);
    await disableTrader(t.ctx, disabled.email);
    const fresh = newEmail('new.student');
    const students = [
      { email: `  ${fresh.toUpperCase()} `, full_name: ' Nina New ' },
      { email: existing.email, full_name: 'ignored for an existing trader' },
      { email: 'not-an-email', full_name: 'Bad' },
      { email: fresh, full_name: 'Nina Again' },
      { email: newEmail('nameless'), full_name: '   ' },
      { email: cast.instructorB.email, full_name: 'Ivy' },
      { email: cast.memberB.email, full_name: 'Max' },
      { email: disabled.email, full_name: 'Dis' },
      { email: cast.memberA.email, full_name: 'Mia' },
    ];
    const before = await memberCount(cast.cohortA.id);
    const res = await api(t, cast.instructorA, 'POST', membersUrl(cast.cohortA.id), { students });
    expect(res.statusCode).toBe(200);
    const data = membersImportResponseSchema.parse(res.json().data);

    const newUser = await userByEmail(fresh);
    expect(newUser).toBeDefined();
    expect(data.created).toEqual([
      { row: 1, email: fresh, user_id: Number(newUser?.id), temporary_password: expect.any(String) },
    ]);
    expect(data.added).toEqual([
      { row: 2, email: existing.email, user_id: existing.userId },
      { row: 9, email: cast.memberA.email, user_id: cast.memberA.userId },
    ]);
    expect(data.errors).toEqual([
      { row: 3, email: 'not-an-email', error: 'email: must be an e-mail address' },
      { row: 4, email: fresh, error: 'email: is listed twice (first in row 1)' },
      { row: 5, email: students[4]?.email, error: 'full_name: is required for a new trader' },
      { row: 6, email: cast.instructorB.email, error: `email: ${cast.instructorB.email} is an instructor, not a trader` },
      { row: 7, email: cast.memberB.email, error: `email: ${cast.memberB.email} is already in the active cohort "Cohort B"` },
      { row: 8, email: disabled.email, error: `email: ${disabled.email} is disabled` },
    ]);
    expect(await memberCount(cast.cohortA.id)).toBe(before + 2);

    // The new trader: the cohort's balance (5,000.00) and leverage (1:50), a ledger that sums to it,
    // the name trimmed, the password only as a hash and flagged for change.
    const temporary = data.created[0]?.temporary_password ?? '';
    expect(temporary).toMatch(/^[a-z2-9]{5}(-[a-z2-9]{5}){3}$/);
    expect(newUser?.full_name).toBe('Nina New');
    expect(newUser?.must_change_password).toBe(1);
    expect(newUser?.role).toBe('trader');
    expect(newUser?.password_hash).toMatch(/^\$scrypt\$/);
    expect(newUser?.password_hash).not.toContain(temporary);
    const account = await findAccountByUser(t.ctx.db.kysely, Number(newUser?.id));
    expect(Number(account?.balance_minor)).toBe(500_000);
    expect(Number(account?.leverage)).toBe(50);
    expect(await ledgerSum(t.ctx.db.kysely, Number(account?.id))).toBe(500_000);
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email: fresh, password: temporary } });
    expect(login.statusCode).toBe(200);
    expect(login.json().data.must_change_password).toBe(true);

    // The existing trader keeps their account and password.
    const kept = await findAccountByUser(t.ctx.db.kysely, existing.userId);
    expect([Number(kept?.balance_minor), Number(kept?.leverage)]).toEqual([123_456, 200]);
    expect((await userByEmail(existing.email))?.must_change_password).toBe(0);

    // The import again: nothing new is created, the members are reported as added.
    const again = await api(t, cast.admin, 'POST', membersUrl(cast.cohortA.id), { students: students.slice(0, 2) });
    expect(again.json().data).toEqual({
      created: [],
      added: [
        { row: 1, email: fresh, user_id: Number(newUser?.id) },
        { row: 2, email: existing.email, user_id: existing.userId },
      ],
      errors: [],
    });
    expect(await memberCount(cast.cohortA.id)).toBe(before + 2);
  });

  it('an existing trader without an account gets one at the cohort’s terms', async () => {
    const bare = await addTrader(t, { withAccount: false });
    const res = await api(t, cast.admin, 'POST', membersUrl(cast.cohortB.id), { students: [{ email: bare.email }] });
    expect(res.json().data.added).toEqual([{ row: 1, email: bare.email, user_id: bare.userId }]);
    const account = await findAccountByUser(t.ctx.db.kysely, bare.userId);
    expect([Number(account?.balance_minor), Number(account?.leverage)]).toEqual([500_000, 50]);
  });

  it('bad requests are a 400 naming the field: no list, an empty list, more than 500, unknown fields', async () => {
    const url = membersUrl(cast.cohortA.id);
    const many = Array.from({ length: 501 }, (_, i) => ({ email: `s${i}@example.com`, full_name: 'S' }));
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^students: /],
      [{ students: [] }, /^students: must list at least one student/],
      [{ students: many }, /^students: must list at most 500 students/],
      [{ students: [{ email: 'a@example.com', name: 'A' }] }, /Unknown field: name/],
      [{ students: [{ email: 42 }] }, /^students\.0\.email: /],
    ];
    const before = await memberCount(cast.cohortA.id);
    for (const [body, message] of cases) {
      const res = await api(t, cast.admin, 'POST', url, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(message);
    }
    expect(await memberCount(cast.cohortA.id)).toBe(before);
  });

  it('imports the most a request may carry: 500 new students, each with an account and a distinct password', async () => {
    const created = await api(t, cast.admin, 'POST', '/api/academy/cohorts/', {
      name: 'Big class',
      starting_balance: 100,
      leverage: 1,
    });
    const id = created.json().data.id as number;
    const students = Array.from({ length: MEMBERS_IMPORT_MAX }, (_, i) => ({
      email: newEmail(`bulk${i}`),
      full_name: `Bulk ${i}`,
    }));
    const started = performance.now();
    const res = await api(t, cast.admin, 'POST', membersUrl(id), { students });
    const seconds = (performance.now() - started) / 1000;
    expect(res.statusCode).toBe(200);
    const data = membersImportResponseSchema.parse(res.json().data);
    expect(data.errors).toEqual([]);
    expect(data.created.map((c) => c.row)).toEqual(students.map((_, i) => i + 1));
    expect(new Set(data.created.map((c) => c.temporary_password)).size).toBe(MEMBERS_IMPORT_MAX);
    expect(await memberCount(id)).toBe(MEMBERS_IMPORT_MAX);
    // Generous for a loaded 2-core machine; at the full scrypt cost this would take minutes.
    expect(seconds).toBeLessThan(60);
  }, 120_000);

  it('two imports of the same new student at once: one creates them, the other refuses (a row error or 409), never both', async () => {
    const email = newEmail('race');
    const [a, b] = await Promise.all(
      [cast.cohortA.id, cast.cohortB.id].map((id) =>
        api(t, cast.admin, 'POST', membersUrl(id), { students: [{ email, full_name: 'Rae Race' }] }),
      ),
    );
    const answers = [a, b].map((res) => ({ status: res?.statusCode, data: res?.json().data }));
    const created = answers.filter((x) => x.status === 200 && x.data.created.length === 1);
    expect(created).toHaveLength(1);
    const other = answers.find((x) => x !== created[0]);
    if (other?.status === 200)
      expect(other.data.errors).toEqual([{ row: 1, email, error: expect.stringMatching(/already in the active cohort/) }]);
    else expect(other?.status).toBe(409);
    const user = await userByEmail(email);
    const memberships = await t.ctx.db.kysely
      .selectFrom('cohort_members')
      .selectAll()
      .where('user_id', '=', Number(user?.id))
      .execute();
    expect(memberships).toHaveLength(1);
  });

  it('a failure mid-import leaves nothing of it: no user, account, ledger entry or membership', async () => {
    // A real database failure on the third row's membership (a trigger), after two rows were written.
    const boom = newEmail('boom');
    if (t.ctx.db.kind === 'sqlite') {
      await sql
        .raw(
          `create trigger fail_import before insert on cohort_members when new.user_id in (select id from users where email = '${boom}') begin select raise(abort, 'injected failure'); end`,
        )
        .execute(t.ctx.db.kysely);
    } else {
      await sql
        .raw(
          `create function fail_import() returns trigger language plpgsql as $$ begin if exists (select 1 from users where id = new.user_id and email = '${boom}') then raise exception 'injected failure'; end if; return new; end $$`,
        )
        .execute(t.ctx.db.kysely);
      await sql
        .raw('create trigger fail_import before insert on cohort_members for each row execute function fail_import()')
        .execute(t.ctx.db.kysely);
    }
    try {
      const existing = await addTrader(t);
      const first = newEmail('first');
      const last = newEmail('last');
      const countRows = async (table: 'users' | 'trading_accounts' | 'ledger_entries' | 'cohort_members') =>
        Number(
          (
            await t.ctx.db.kysely
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const tables = ['users', 'trading_accounts', 'ledger_entries', 'cohort_members'] as const;
      const before = await Promise.all(tables.map(countRows));
      const res = await api(t, cast.admin, 'POST', membersUrl(cast.cohortA.id), {
        students: [
          { email: first, full_name: 'First' },
          { email: existing.email, full_name: '' },
          { email: boom, full_name: 'Boom' },
          { email: last, full_name: 'Last' },
        ],
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ success: false, code: 'INTERNAL' });
      expect(await Promise.all(tables.map(countRows))).toEqual(before);
      for (const email of [first, boom, last]) expect(await userByEmail(email)).toBeUndefined();
      expect(
        await t.ctx.db.kysely
          .selectFrom('cohort_members')
          .select('user_id')
          .where('user_id', '=', existing.userId)
          .executeTakeFirst(),
      ).toBeUndefined();
    } finally {
      await sql
        .raw('drop trigger fail_import' + (t.ctx.db.kind === 'postgres' ? ' on cohort_members' : ''))
        .execute(t.ctx.db.kysely);
      if (t.ctx.db.kind === 'postgres') await sql.raw('drop function fail_import()').execute(t.ctx.db.kysely);
    }
  });
});
