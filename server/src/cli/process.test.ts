// The real processes: `node server/dist/main.js` (start-up errors, graceful shutdown) and
// `node server/dist/cli/trader.js`, built from the current sources first.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../demo/seed.js';
import { freshDatabase, testDbKind } from '../test/helpers.js';

const root = path.resolve(import.meta.dirname, '../../..');
const mainJs = path.join(root, 'server/dist/main.js');
const traderJs = path.join(root, 'server/dist/cli/trader.js');

/** Builds server/dist once even when several suites (SQLite, PostgreSQL) start together. */
function buildServer(): void {
  const lock = path.join(tmpdir(), 'pipdesk-server-build.lock');
  const deadline = Date.now() + 170_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than the longest build was left by a killed run.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 170_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`could not take ${lock}`);
      execFileSync('sleep', ['0.5']);
    }
  }
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'server/tsconfig.json'], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch (err) {
    // tsc still emits when some file has a type error; the type check step reports those.
    // What these tests need is an emitted server.
    const output = String((err as { stdout?: Buffer }).stdout ?? err);
    if (!existsSync(mainJs) || !existsSync(traderJs)) throw new Error(`server build failed:\n${output}`);
    console.warn(`server build reported type errors (tested the emitted files anyway):\n${output.slice(0, 2000)}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runNode(script: string, args: string[], env: Record<string, string>, timeoutMs = 20_000, stdin = ''): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, env });
    child.stdin.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(script)} ${args.join(' ')} did not finish in ${timeoutMs} ms: ${stdout}${stderr}`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** A URL whose connections work in the given schema (how an operator would point at one too). */
function pgUrlIn(schema: string): string {
  const base = process.env.TEST_DATABASE_URL!;
  return `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

describe('processes', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildServer();
    database = await freshDatabase();
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      CHART_HISTORY_DAYS: '0',
      DATA_DIR: database.dataDir,
      JWT_SECRET: 'process-test-secret-process-test-secret-0123456789',
      WEB_DIST: path.join(database.dataDir, 'no-web'),
      ...(database.pgSchema ? { DATABASE_URL: pgUrlIn(database.pgSchema) } : {}),
    };
  }, 180_000);
  afterAll(async () => {
    await database?.drop();
  });

  describe('configuration errors', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ PORT: 'abc' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://localhost/pipdesk' }, 'DATABASE_URL'],
      [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
      [{ JWT_SECRET: 'too-short' }, 'JWT_SECRET'],
      [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO'],
      [{ ACCESS_TOKEN_TTL_MINUTES: '0' }, 'ACCESS_TOKEN_TTL_MINUTES'],
    ];

    it('loadConfig throws a ConfigError naming the variable', () => {
      for (const [bad, variable] of cases) {
        const source = { DATA_DIR: path.join(tmpdir(), 'pipdesk-never-created'), ...bad };
        let error: unknown;
        try {
          loadConfig(source);
        } catch (err) {
          error = err;
        }
        expect(error, variable).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).variable).toBe(variable);
        expect((error as ConfigError).message).toContain(variable);
      }
    });

    it('the server exits 1 with one line naming the variable', async () => {
      for (const [bad, variable] of cases.slice(0, 4)) {
        const withoutSecret = { ...env };
        if (variable === 'JWT_SECRET') delete withoutSecret.JWT_SECRET;
        const result = await runNode(mainJs, [], { ...withoutSecret, ...bad });
        expect(result.code, variable).toBe(1);
        expect(lines(result.stderr), variable).toHaveLength(1);
        expect(result.stderr, variable).toContain(variable);
        expect(result.stdout, variable).toBe('');
      }
    });
  });

  it('SIGTERM: finishes the in-flight sign-in, stops listening, closes the database and exits 0', async () => {
    const server = spawn(process.execPath, [mainJs], { cwd: root, env: { ...env, PORT: '0', SEED_DEMO: 'true' } });
    let stdout = '';
    let stderr = '';
    server.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      server.on('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start: ${stdout}${stderr}`)), 30_000);
      server.stdout.on('data', (d) => {
        stdout += d;
        const match = /running at (http:\/\/\S+)/.exec(stdout);
        if (match && stdout.includes('Sign in with')) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    expect(stdout).toContain(`Sign in with ${DEMO_EMAIL} / ${DEMO_PASSWORD}`);

    // A sign-in spends a few hundred ms in scrypt: SIGTERM lands while it is in flight.
    const inFlight = fetch(`${url}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: DEMO_EMAIL, password: DEMO_PASSWORD }),
    });
    await new Promise((r) => setTimeout(r, 60));
    const signalledAt = Date.now();
    server.kill('SIGTERM');

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { data: { token: string } };
    expect(body.data.token).toMatch(/^ey/);
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(10_000);
    await expect(fetch(`${url}/api/health/`)).rejects.toThrow();

    // The database is whole and holds the session the in-flight sign-in created.
    if (testDbKind === 'sqlite') {
      const file = path.join(database.dataDir, 'pipdesk.sqlite');
      const sqlite = new SQLite(file, { readonly: true });
      try {
        expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(sqlite.prepare('select count(*) as n from sessions').get()).toEqual({ n: 1 });
      } finally {
        sqlite.close();
      }
      // A clean close checkpoints the write-ahead log into the file.
      const wal = `${file}-wal`;
      expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    } else {
      const client = new pg.Client({ connectionString: pgUrlIn(database.pgSchema!) });
      await client.connect();
      try {
        expect((await client.query('select count(*)::int as n from sessions')).rows).toEqual([{ n: 1 }]);
      } finally {
        await client.end();
      }
    }
  }, 60_000);

  it('npm run trader: exit codes and messages of the real binary', async () => {
    const create = await runNode(
      traderJs,
      ['create', '--email', 'Cli.User@example.com', '--name', 'Cli User', '--password-stdin', '--balance', '750.25'],
      env,
      20_000,
      'cli-password\n',
    );
    expect(create).toMatchObject({ code: 0, stderr: '' });
    expect(create.stdout).toMatch(
      /^Created trader cli\.user@example\.com \(Cli User, id \d+\) with USD account \d+: balance 750\.25 USD, leverage 1:100\.\n$/,
    );

    const again = await runNode(
      traderJs,
      ['create', '--email', 'cli.user@example.com', '--name', 'X', '--password-stdin'],
      env,
      20_000,
      'cli-password\n',
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('Error: A trader with e-mail cli.user@example.com already exists\n');

    const list = await runNode(traderJs, ['list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/cli\.user@example\.com +Cli User +active +750\.25 +1:100/);

    const disable = await runNode(traderJs, ['disable', '--email', 'cli.user@example.com'], env);
    expect(disable).toMatchObject({ code: 0, stdout: 'Disabled cli.user@example.com; ended 0 sessions.\n' });

    expect((await runNode(traderJs, ['disable', '--email', 'nobody@example.com'], env)).code).toBe(1);
    // Not at a terminal and no --password-stdin: refused, nothing waits for a prompt.
    const noPassword = await runNode(traderJs, ['create', '--email', 'np@example.com', '--name', 'Np'], env);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toMatch(/the password is required: give it on standard input with --password-stdin/);
    const migrations = await runNode(traderJs, ['migrations'], env);
    expect(migrations.code).toBe(0);
    expect(migrations.stdout).toMatch(/all applied\.\n$/);

    const usage = await runNode(traderJs, [], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run trader -- <command>');
    const badConfig = await runNode(traderJs, ['list'], { ...env, DATABASE_URL: 'mysql://x' });
    expect(badConfig.code).toBe(1);
    expect(lines(badConfig.stderr)).toHaveLength(1);
    expect(badConfig.stderr).toContain('DATABASE_URL');
  }, 60_000);
});
