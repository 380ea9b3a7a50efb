import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../demo/seed.js';
import { buildServer, MAIN_JS, pgUrlIn, runNode, startChildServer, TRADER_JS } from '../test/child-server.js';
import { freshDatabase, testDbKind } from '../test/helpers.js';

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

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
        const result = await runNode(MAIN_JS, [], { ...withoutSecret, ...bad });
        expect(result.code, variable).toBe(1);
        expect(lines(result.stderr), variable).toHaveLength(1);
        expect(result.stderr, variable).toContain(variable);
        expect(result.stdout, variable).toBe('');
      }
    });
  });

  it('SIGTERM: finishes the in-flight sign-in, stops listening, closes the database and exits 0', async () => {
    const demo = { ...env, PORT: '0', SEED_DEMO: 'true' };
    const { process: server, url, stdout } = await startChildServer(demo, { ready: (out) => out.includes('Sign in with') });
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      server.on('exit', (code) => resolve({ code, at: Date.now() })),
    );
    expect(stdout()).toContain(`Sign in with ${DEMO_EMAIL} / ${DEMO_PASSWORD}`);

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
      TRADER_JS,
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
      TRADER_JS,
      ['create', '--email', 'cli.user@example.com', '--name', 'X', '--password-stdin'],
      env,
      20_000,
      'cli-password\n',
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('Error: A trader with e-mail cli.user@example.com already exists\n');

    const list = await runNode(TRADER_JS, ['list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/cli\.user@example\.com +Cli User +active +750\.25 +1:100/);

    const disable = await runNode(TRADER_JS, ['disable', '--email', 'cli.user@example.com'], env);
    expect(disable).toMatchObject({ code: 0, stdout: 'Disabled cli.user@example.com; ended 0 sessions.\n' });

    expect((await runNode(TRADER_JS, ['disable', '--email', 'nobody@example.com'], env)).code).toBe(1);
    // Not at a terminal and no --password-stdin: refused, nothing waits for a prompt.
    const noPassword = await runNode(TRADER_JS, ['create', '--email', 'np@example.com', '--name', 'Np'], env);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toMatch(/the password is required: give it on standard input with --password-stdin/);
    const migrations = await runNode(TRADER_JS, ['migrations'], env);
    expect(migrations.code).toBe(0);
    expect(migrations.stdout).toMatch(/all applied\.\n$/);

    const usage = await runNode(TRADER_JS, [], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run trader -- <command>');
    const badConfig = await runNode(TRADER_JS, ['list'], { ...env, DATABASE_URL: 'mysql://x' });
    expect(badConfig.code).toBe(1);
    expect(lines(badConfig.stderr)).toHaveLength(1);
    expect(badConfig.stderr).toContain('DATABASE_URL');
  }, 60_000);
});
