import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type BuildOptions, buildApp, type PipdeskApp } from '../app.js';
import { type Config, loadConfig } from '../config.js';

const redisPrefix = `pipdesk-test-${process.pid}-${randomBytes(3).toString('hex')}:`;

/** Which database this run of the suite uses (vitest projects server-sqlite / server-postgres). */
export const testDbKind: 'sqlite' | 'postgres' = process.env.PIPDESK_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export interface TestApp extends PipdeskApp {
  config: Config;
  /** Base URL when started with `listen: true` (for sockets and real HTTP). */
  url: string;
  close(): Promise<void>;
}

export interface TestAppOptions extends BuildOptions {
  env?: Record<string, string>;
  overrides?: Partial<Config>;
  listen?: boolean;
  /** Reuse a data directory / PG schema (restart tests). */
  dataDir?: string;
  pgSchema?: string;
  /** Keep the data directory / schema on close (restart tests clean up themselves). */
  keep?: boolean;
}

/** A fresh isolated database for one test: a temp SQLite file, or a new schema in the test PostgreSQL. */
export async function freshDatabase(): Promise<{ dataDir: string; pgSchema?: string; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-test-'));
  if (testDbKind === 'sqlite') return { dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const pgSchema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  await client.query(`create schema ${pgSchema}`);
  await client.end();
  return {
    dataDir,
    pgSchema,
    drop: async () => {
      const c = new pg.Client({ connectionString: pgUrl() });
      await c.connect();
      await c.query(`drop schema if exists ${pgSchema} cascade`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function pgUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set for the PostgreSQL suite');
  return url;
}

/**
 * A test fires calls far faster than any trader: with these the rate limits run on every call
 * but never bite, unless a test sets its own (http/rate-limit.test.ts; docs/operations.md#rate-limits).
 * Tests that spawn the built server spread them into its environment.
 */
export const UNTHROTTLED_ENV = {
  RATE_LIMIT_REQUESTS_PER_SECOND: '1000000',
  RATE_LIMIT_ADDRESS_REQUESTS_PER_SECOND: '1000000',
  RATE_LIMIT_ORDERS_PER_SECOND: '1000000',
  RATE_LIMIT_NEWS_REFRESH_PER_MINUTE: '1000000',
} as const;

/** Config for a test server: an isolated database, a fixed secret, logging off, no demo seed unless asked. */
export function testConfig(dataDir: string, env: Record<string, string> = {}, overrides: Partial<Config> = {}): Config {
  return loadConfig(
    {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      PORT: '0',
      JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'silent',
      // A day of history keeps test start-up fast; chart tests that need a month ask for it.
      CHART_HISTORY_DAYS: '1',
      // No year of hourly history either: test servers start by the hundred and a year of hours
      // costs each about 0.6 s of CPU; the chart tests that need it ask for it.
      CHART_HOURLY_HISTORY_DAYS: '0',
      // Test files (and the SQLite and PostgreSQL runs) share one Redis: keep their events apart.
      REDIS_CHANNEL_PREFIX: redisPrefix,
      WEB_DIST: path.join(dataDir, 'no-web'),
      ...UNTHROTTLED_ENV,
      ...(testDbKind === 'postgres' ? { DATABASE_URL: pgUrl() } : {}),
      ...env,
    },
    overrides,
  );
}

/** Starts a complete server for a test. Always `await close()` (afterEach/afterAll). */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const fresh = options.dataDir ? undefined : await freshDatabase();
  const dataDir = options.dataDir ?? fresh!.dataDir;
  const pgSchema = options.pgSchema ?? fresh?.pgSchema;
  let config: Config;
  let built: PipdeskApp;
  try {
    config = testConfig(dataDir, options.env, options.overrides);
    built = await buildApp(config, { logger: false, ...options, ...(pgSchema ? { pgSchema } : {}) });
  } catch (error) {
    // A start that fails (a bad setting under test, a database refused) leaves no folder or schema behind.
    if (!options.keep) await fresh?.drop().catch(() => {});
    throw error;
  }
  let url = '';
  if (options.listen) {
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    const address = built.app.server.address();
    if (address && typeof address === 'object') url = `http://127.0.0.1:${address.port}`;
  }
  return {
    ...built,
    config,
    url,
    close: async () => {
      await built.app.close();
      if (!options.keep) await fresh?.drop();
    },
  };
}
