import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountByUser, findProfileByUser, ledgerSum } from '../accounts/index.js';
import { openDatabase } from '../db/database.js';
import { MemoryBus } from '../realtime/bus.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { signIn } from '../test/traders.js';
import { type CliDeps, formatMoney, parseBalance, runTraderCommand } from './commands.js';

describe('npm run trader', () => {
  let t: TestApp;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase();
    t = await startTestApp({
      dataDir: database.dataDir,
      ...(database.pgSchema ? { pgSchema: database.pgSchema } : {}),
      keep: true,
    });
  });
  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  /**
   * Runs a command the way the CLI process does: its own database connection and its own
   * (in-memory) bus. For brevity the cases write `--password X`; the CLI refuses a password in
   * argv, so this sends X on standard input with `--password-stdin`, as a script would.
   */
  async function cli(...typed: string[]) {
    const at = typed.indexOf('--password');
    const password = at >= 0 ? typed[at + 1] : undefined;
    const argv = at >= 0 ? [...typed.slice(0, at), '--password-stdin', ...typed.slice(at + 2)] : typed;
    const db = openDatabase(t.config.database, database.pgSchema ? { schema: database.pgSchema } : {});
    const bus = new MemoryBus();
    const out: string[] = [];
    const err: string[] = [];
    const deps: CliDeps = { db, bus, clock: t.ctx.clock };
    try {
      const code = await runTraderCommand(argv, deps, {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        ...(password === undefined ? {} : { readStdin: async () => `${password}\n` }),
      });
      return { code, out: out.join('\n'), err: err.join('\n') };
    } finally {
      await db.close();
    }
  }

  const accountOf = async (email: string) => {
    const user = await t.ctx.db.kysely.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    return { user, account: await findAccountByUser(t.ctx.db.kysely, user.id) };
  };

  it('create: a trader with a 10,000.00 USD account at 1:100 by default, who can sign in', async () => {
    const res = await cli('create', '--email', 'Ana.Lima@Example.com', '--name', 'Ana Lima', '--password', 'a-long-password');
    expect(res).toMatchObject({ code: 0, err: '' });
    expect(res.out).toMatch(
      /^Created trader ana\.lima@example\.com \(Ana Lima, id \d+\) with USD account \d+: balance 10,000\.00 USD, leverage 1:100\.$/,
    );
    const { user, account } = await accountOf('ana.lima@example.com');
    expect(account).toMatchObject({ balance_minor: 1_000_000, leverage: 100, currency: 'USD' });
    expect(await ledgerSum(t.ctx.db.kysely, account!.id)).toBe(1_000_000);
    const session = await signIn(t, 'ana.lima@example.com', 'a-long-password');
    expect(session.user).toEqual({ id: user.id, email: 'ana.lima@example.com', full_name: 'Ana Lima' });
  });

  it('create --balance --leverage: exact cents and the given leverage (1:50 or 50)', async () => {
    const a = await cli(
      'create',
      '--email',
      'bo@example.com',
      '--name',
      'Bo',
      '--password',
      'bo-password',
      '--balance',
      '2500.5',
      '--leverage',
      '1:50',
    );
    expect(a.code).toBe(0);
    expect(a.out).toContain('balance 2,500.50 USD, leverage 1:50.');
    const bo = await accountOf('bo@example.com');
    expect(bo.account).toMatchObject({ balance_minor: 250_050, leverage: 50 });
    expect(await ledgerSum(t.ctx.db.kysely, bo.account!.id)).toBe(250_050);

    const b = await cli(
      'create',
      '--email',
      'cy@example.com',
      '--name',
      'Cy',
      '--password',
      'cy-password',
      '--balance',
      '0',
      '--leverage',
      '400',
    );
    expect(b.code).toBe(0);
    expect((await accountOf('cy@example.com')).account).toMatchObject({ balance_minor: 0, leverage: 400 });
  });

  it('create --no-account: a user without profile or account', async () => {
    const res = await cli(
      'create',
      '--email',
      'noacc@example.com',
      '--name',
      'No Account',
      '--password',
      'noacc-password',
      '--no-account',
    );
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/without a trading account\.$/);
    const { user, account } = await accountOf('noacc@example.com');
    expect(account).toBeUndefined();
    expect(await findProfileByUser(t.ctx.db.kysely, user.id)).toBeUndefined();
    expect((await signIn(t, 'noacc@example.com', 'noacc-password')).user.full_name).toBe('No Account');
  });

  it('create refuses a taken e-mail (any case) with exit code 1', async () => {
    await cli('create', '--email', 'dup@example.com', '--name', 'Dup', '--password', 'dup-password');
    const res = await cli('create', '--email', 'DUP@example.com', '--name', 'Dup 2', '--password', 'dup-password');
    expect(res).toMatchObject({ code: 1, out: '', err: 'Error: A trader with e-mail dup@example.com already exists' });
  });

  it('a wrong command line exits 2 with a message naming the option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['create', '--name', 'X', '--password', 'long-enough'], /--email is required/],
      [['create', '--email', 'x@example.com', '--password', 'long-enough'], /--name is required/],
      [['create', '--email', 'x@example.com', '--name', 'X'], /the password is required/],
      [['create', '--email', 'x@example.com', '--name', 'X', '--password', 'short'], /the password must be 8 to 128 characters/],
      [['create', '--email', 'x@example.com', '--name', 'X', '--password', 'p'.repeat(129)], /the password must be 8 to 128/],
      [['create', '--email', 'not-an-email', '--name', 'X', '--password', 'long-enough'], /--email must be an e-mail address/],
      [['create', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough', '--balance=-5'], /--balance must be/],
      [
        ['create', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough', '--balance', '1.234'],
        /--balance must be/,
      ],
      [
        ['create', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough', '--leverage', '0'],
        /--leverage must be 1 to 1000/,
      ],
      [
        ['create', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough', '--leverage', 'lots'],
        /--leverage must be a whole number/,
      ],
      [
        ['create', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough', '--no-account', '--balance', '5'],
        /need an account/,
      ],
      [
        ['create', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough', '--colour', 'red'],
        /Unknown option '--colour'/,
      ],
      [['disable'], /--email is required/],
      [['promote', '--email', 'x@example.com'], /Unknown command "promote"/],
      [[], /Usage: npm run trader/],
    ];
    for (const [argv, message] of cases) {
      const res = await cli(...argv);
      expect(res.code, argv.join(' ')).toBe(2);
      expect(res.err, argv.join(' ')).toMatch(message);
    }
    expect((await accountOf('ana.lima@example.com')).user).toBeDefined();
    const none = await t.ctx.db.kysely.selectFrom('users').select('id').where('email', '=', 'x@example.com').execute();
    expect(none).toEqual([]);
    const help = await cli('help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('create --email <e-mail> --name <full name> [--password-stdin]');
    expect(help.out).toContain('reset-password --email <e-mail> [--password-stdin]');
  });

  it('list: every trader with status, balance and leverage', async () => {
    const res = await cli('list');
    expect(res.code).toBe(0);
    const lines = res.out.split('\n');
    expect(lines[0]).toMatch(/^ID +E-MAIL +NAME +STATUS +BALANCE \(USD\) +LEVERAGE$/);
    expect(lines.find((l) => l.includes('ana.lima@example.com'))).toMatch(/Ana Lima +active +10,000\.00 +1:100$/);
    expect(lines.find((l) => l.includes('bo@example.com'))).toMatch(/active +2,500\.50 +1:50$/);
    expect(lines.find((l) => l.includes('noacc@example.com'))).toMatch(/active +no account +-$/);
  });

  it('disable, from another process: ends every session at once and the next request fails', async () => {
    await cli('create', '--email', 'eve@example.com', '--name', 'Eve', '--password', 'eve-password');
    const laptop = await signIn(t, 'eve@example.com', 'eve-password');
    const phone = await signIn(t, 'eve@example.com', 'eve-password');
    const me = (token: string) =>
      t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${token}` } });
    expect((await me(laptop.token)).statusCode).toBe(200);

    const res = await cli('disable', '--email', 'EVE@example.com');
    expect(res).toMatchObject({ code: 0, out: 'Disabled eve@example.com; ended 2 sessions.' });

    expect((await me(laptop.token)).statusCode).toBe(401);
    expect((await me(phone.token)).statusCode).toBe(401);
    const refreshed = await t.app.inject({ method: 'POST', url: '/api/auth/refresh/', payload: { refresh: phone.refresh } });
    expect(refreshed.statusCode).toBe(401);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      payload: { email: 'eve@example.com', password: 'eve-password' },
    });
    expect(login.json()).toEqual({ success: false, error: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
    expect((await cli('list')).out.split('\n').find((l) => l.includes('eve@example.com'))).toMatch(/ disabled /);

    const again = await cli('disable', '--email', 'eve@example.com');
    expect(again).toMatchObject({ code: 0, out: 'eve@example.com was already disabled; ended 0 sessions.' });
  });

  it('disable in the server process also tells sockets on the bus (user_disabled, session_revoked)', async () => {
    await cli('create', '--email', 'fay@example.com', '--name', 'Fay', '--password', 'fay-password');
    const session = await signIn(t, 'fay@example.com', 'fay-password');
    const heard: string[] = [];
    const offA = t.ctx.bus.subscribe('user_disabled', (e) => heard.push(`user_disabled ${e.userId}`));
    const offB = t.ctx.bus.subscribe('session_revoked', (e) => heard.push(`session_revoked ${e.sessionId}`));
    const out: string[] = [];
    const code = await runTraderCommand(['disable', '--email', 'fay@example.com'], t.ctx, {
      out: (l) => out.push(l),
      err: () => {},
    });
    offA();
    offB();
    expect(code).toBe(0);
    const sessionId = JSON.parse(Buffer.from(session.token.split('.')[1]!, 'base64url').toString()).sid;
    expect(heard).toEqual([`user_disabled ${session.user.id}`, `session_revoked ${sessionId}`]);
  });

  it('enable lets a disabled trader sign in again; reset-password sets a new one and ends every session', async () => {
    await cli('create', '--email', 'gil@example.com', '--name', 'Gil', '--password', 'gil-password');
    await cli('disable', '--email', 'gil@example.com');
    const enabled = await cli('enable', '--email', 'GIL@example.com');
    expect(enabled).toMatchObject({ code: 0, out: 'Enabled gil@example.com; they can sign in again.' });
    expect((await cli('enable', '--email', 'gil@example.com')).out).toBe('gil@example.com was already active.');
    const session = await signIn(t, 'gil@example.com', 'gil-password');

    const reset = await cli('reset-password', '--email', 'gil@example.com', '--password', 'gil-new-password');
    expect(reset).toMatchObject({ code: 0, out: 'Set a new password for gil@example.com; ended 1 session.' });
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Bearer ${session.token}` } });
    expect(me.statusCode).toBe(401);
    const old = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login/',
      payload: { email: 'gil@example.com', password: 'gil-password' },
    });
    expect(old.statusCode).toBe(401);
    expect((await signIn(t, 'gil@example.com', 'gil-new-password')).user.email).toBe('gil@example.com');

    const short = await cli('reset-password', '--email', 'gil@example.com', '--password', 'short');
    expect(short).toMatchObject({ code: 2 });
    expect(short.err).toMatch(/the password must be 8 to 128 characters/);
    expect((await cli('reset-password', '--email', 'nobody@example.com', '--password', 'long-enough')).code).toBe(1);
    expect((await cli('enable', '--email', 'nobody@example.com')).code).toBe(1);
  });

  it('role: sets trader, instructor or admin; applies at the next call without signing in again', async () => {
    expect((await cli('create', '--email', 'rae@example.com', '--name', 'Rae', '--password', 'rae-password-1')).code).toBe(0);
    const session = await signIn(t, 'rae@example.com', 'rae-password-1');
    const headers = { authorization: `Bearer ${session.token}` };
    const roleNow = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/academy/me/', headers })).json().data.role as string;
    expect(await roleNow()).toBe('trader');

    expect(await cli('role', '--email', 'RAE@example.com', '--role', 'instructor')).toMatchObject({
      code: 0,
      out: 'rae@example.com is now an instructor (was a trader).',
    });
    expect(await roleNow()).toBe('instructor');
    expect((await cli('role', '--email', 'rae@example.com', '--role', 'Admin')).out).toBe(
      'rae@example.com is now an admin (was an instructor).',
    );
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/academy/cohorts/',
          headers,
          payload: { name: 'By Rae', starting_balance: 100, leverage: 1 },
        })
      ).statusCode,
    ).toBe(201);
    expect((await cli('role', '--email', 'rae@example.com', '--role', 'admin')).out).toBe('rae@example.com is already an admin.');
    expect((await cli('role', '--email', 'rae@example.com', '--role', 'trader')).code).toBe(0);
    expect(await roleNow()).toBe('trader');

    const wrong = await cli('role', '--email', 'rae@example.com', '--role', 'owner');
    expect(wrong).toMatchObject({
      code: 2,
      err: expect.stringContaining('--role must be one of trader, instructor, admin (got "owner")'),
    });
    expect((await cli('role', '--role', 'admin')).err).toContain('--email is required');
    expect((await cli('role', '--email', 'rae@example.com')).err).toContain('--role is required');
    const unknown = await cli('role', '--email', 'nobody@example.com', '--role', 'admin');
    expect(unknown).toMatchObject({ code: 1, err: 'Error: No trader with e-mail nobody@example.com' });
    expect((await cli('help')).out).toContain('role --email <e-mail> --role <trader|instructor|admin>');
  });

  it('migrations lists every migration as applied, with when', async () => {
    const res = await cli('migrations');
    expect(res.code).toBe(0);
    const lines = res.out.split('\n');
    expect(lines[0]).toMatch(/^applied \d{4}-\d\d-\d\dT[\d:.]+Z {2}0001_auth$/);
    expect(lines).toContainEqual(expect.stringMatching(/^applied .* {2}0009_shared_secret$/));
    expect(lines.at(-1)).toMatch(/^\d+ migrations, all applied\.$/);
  });

  it('disable an unknown e-mail: exit code 1', async () => {
    const res = await cli('disable', '--email', 'ghost@example.com');
    expect(res).toMatchObject({ code: 1, err: 'Error: No trader with e-mail ghost@example.com' });
  });

  it('money in and out of the CLI is exact', () => {
    expect(parseBalance('10000')).toBe(1_000_000);
    expect(parseBalance('0.1')).toBe(10);
    expect(parseBalance('1234567.89')).toBe(123_456_789);
    expect(parseBalance('0.29')).toBe(29); // 0.29 * 100 is 28.999999999999996 in floating point
    expect(formatMoney(123_456_789)).toBe('1,234,567.89');
    expect(formatMoney(5)).toBe('0.05');
  });
});
