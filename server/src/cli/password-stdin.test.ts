import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBus } from '../realtime/bus.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { signIn } from '../test/traders.js';
import { EXIT_OK, EXIT_USAGE, runTraderCommand } from './commands.js';

describe('npm run trader: passwords never in argv', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const run = async (argv: string[], stdin?: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runTraderCommand(
      argv,
      { db: t.ctx.db, bus: new MemoryBus(), clock: t.ctx.clock },
      { out: (l) => out.push(l), err: (l) => err.push(l), ...(stdin === undefined ? {} : { readStdin: async () => stdin }) },
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('takes the first line of standard input as the password (spaces kept, line ending dropped)', async () => {
    const res = await run(
      ['create', '--email', 'stdin@example.com', '--name', 'Stdin User', '--password-stdin'],
      'a long pass phrase\n',
    );
    expect(res.code).toBe(EXIT_OK);
    expect((await signIn(t, 'stdin@example.com', 'a long pass phrase')).user.full_name).toBe('Stdin User');
  });

  it('an empty or short password from stdin is a usage error naming it', async () => {
    const empty = await run(['create', '--email', 'e1@example.com', '--name', 'E', '--password-stdin'], '\n');
    expect(empty).toMatchObject({ code: EXIT_USAGE });
    expect(empty.err).toMatch(/--password-stdin is required/);
    const short = await run(['create', '--email', 'e2@example.com', '--name', 'E', '--password-stdin'], 'short\n');
    expect(short.err).toMatch(/the password must be 8 to 128 characters/);
  });

  it('refuses a password in argv, with or without --password-stdin, and creates nothing', async () => {
    for (const argv of [
      ['create', '--email', 'e3@example.com', '--name', 'E', '--password', 'long-enough'],
      ['create', '--email', 'e3@example.com', '--name', 'E', '--password-stdin', '--password', 'long-enough'],
      ['reset-password', '--email', 'e3@example.com', '--password', 'long-enough'],
    ]) {
      const res = await run(argv, 'long-enough\n');
      expect(res.code, argv.join(' ')).toBe(EXIT_USAGE);
      expect(res.err).toMatch(/--password is not accepted: a password on the command line shows in the process list/);
    }
    const none = await t.ctx.db.kysely.selectFrom('users').select('id').where('email', '=', 'e3@example.com').execute();
    expect(none).toEqual([]);
  });

  it('at a terminal, asks twice and refuses two different answers', async () => {
    const answers = (list: string[]) => {
      const queue = [...list];
      return async () => queue.shift() ?? '';
    };
    const ask = async (argv: string[], typed: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runTraderCommand(
        argv,
        { db: t.ctx.db, bus: new MemoryBus(), clock: t.ctx.clock },
        { out: (l) => out.push(l), err: (l) => err.push(l), promptPassword: answers(typed) },
      );
      return { code, err: err.join('\n') };
    };
    const differ = await ask(['create', '--email', 'tty@example.com', '--name', 'Tty'], ['first-password', 'other-password']);
    expect(differ).toMatchObject({ code: EXIT_USAGE });
    expect(differ.err).toMatch(/the two passwords differ/);
    const same = await ask(['create', '--email', 'tty@example.com', '--name', 'Tty'], ['tty-password', 'tty-password']);
    expect(same.code).toBe(EXIT_OK);
    expect((await signIn(t, 'tty@example.com', 'tty-password')).user.full_name).toBe('Tty');
  });
});
