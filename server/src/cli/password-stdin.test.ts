import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBus } from '../realtime/bus.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import { signIn } from '../test/traders.js';
import { EXIT_OK, EXIT_USAGE, runTraderCommand } from './commands.js';

describe('npm run trader -- create --password-stdin', () => {
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

  it('an empty or short password from stdin, or both options at once, is a usage error naming the option', async () => {
    const empty = await run(['create', '--email', 'e1@example.com', '--name', 'E', '--password-stdin'], '\n');
    expect(empty).toMatchObject({ code: EXIT_USAGE });
    expect(empty.err).toMatch(/--password-stdin is required/);
    const short = await run(['create', '--email', 'e2@example.com', '--name', 'E', '--password-stdin'], 'short\n');
    expect(short.err).toMatch(/--password must be 8 to 128 characters/);
    const both = await run(
      ['create', '--email', 'e3@example.com', '--name', 'E', '--password-stdin', '--password', 'long-enough'],
      'x',
    );
    expect(both).toMatchObject({ code: EXIT_USAGE });
    expect(both.err).toMatch(/not both/);
  });
});
