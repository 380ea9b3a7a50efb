import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { databaseUrlInSchema } from '../../../scripts/cluster-lib.mjs';
import { insertSession } from '../auth/repo.js';
import { createTokens, newTokenId } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { systemClock } from '../core/clock.js';
import type { Db } from '../db/database.js';
import { writeTransaction } from '../db/transaction.js';
import { insertTrader } from './factories.js';
import { UNTHROTTLED_ENV } from './helpers.js';

/**
 * The real server process for the tests that need one (crash, outage and process tests):
 * build server/dist, spawn `node server/dist/main.js` with an environment, wait for it to
 * listen, kill it. Test-only: never imported by production code.
 */

/** The repository's root: the child runs from it, as `npm start` does. */
export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const MAIN_JS = path.join(ROOT, 'server/dist/main.js');
export const TRADER_JS = path.join(ROOT, 'server/dist/cli/trader.js');

/** A lock older than the longest build was left by a killed run. */
const BUILD_LOCK_STALE_MS = 170_000;

/**
 * Builds server/dist from the current sources, once at a time even when several suites
 * (SQLite, PostgreSQL) start together: they share one lock directory.
 */
export function buildServer(): void {
  const lock = path.join(tmpdir(), 'pipdesk-server-build.lock');
  const deadline = Date.now() + BUILD_LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > BUILD_LOCK_STALE_MS)
        rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`could not take ${lock}`);
      execFileSync('sleep', ['0.5']);
    }
  }
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'server/tsconfig.json'], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  } catch (err) {
    // tsc still emits when some file has a type error; the type check step reports those.
    // What these tests need is an emitted server.
    const output = String((err as { stdout?: Buffer }).stdout ?? err);
    if (!existsSync(MAIN_JS) || !existsSync(TRADER_JS)) throw new Error(`server build failed:\n${output}`);
    console.warn(`server build reported type errors (tested the emitted files anyway):\n${output.slice(0, 2000)}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The test database's URL with its connections working in `schema` (scripts/cluster-lib.mjs's rule). */
export function pgUrlIn(schema: string, base = process.env.TEST_DATABASE_URL!): string {
  return databaseUrlInSchema(base, schema);
}

/**
 * The environment of a child server on a test database: loopback, any free port, no demo,
 * no chart history, quiet logs, not throttled (orders as fast as the server takes them), and
 * on the PostgreSQL run the database's schema. `extra` adds or overrides variables.
 */
export function childServerEnv(
  database: { dataDir: string; pgSchema?: string | undefined },
  jwtSecret: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: database.dataDir,
    JWT_SECRET: jwtSecret,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'fatal',
    CHART_HISTORY_DAYS: '0',
    CHART_HOURLY_HISTORY_DAYS: '0',
    ...UNTHROTTLED_ENV,
    ...(database.pgSchema ? { DATABASE_URL: pgUrlIn(database.pgSchema) } : {}),
    ...extra,
  };
}

export interface ChildServer {
  process: ChildProcess;
  /** The URL the server printed once it listened. */
  url: string;
  /** Its standard output so far. */
  stdout(): string;
  /** The last part of both its outputs (enough to explain a failure). */
  output(): string;
}

/** Keeps this much of a child's output: a long run logs far more than a failure needs. */
const OUTPUT_KEPT = 20_000;

/**
 * Spawns the built server and resolves once it prints where it listens (and `ready` holds for
 * its standard output, when given); rejects with its output when it exits first or does not
 * start within `timeoutMs` (then it is killed).
 */
export function startChildServer(
  env: Record<string, string>,
  options: { timeoutMs?: number; ready?: (stdout: string) => boolean } = {},
): Promise<ChildServer> {
  const proc = spawn(process.execPath, [MAIN_JS], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let output = '';
  const server = { process: proc, stdout: () => stdout, output: () => output };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`server did not start: ${output}`));
      // Nobody holds it yet to kill it later.
      proc.kill('SIGKILL');
    }, options.timeoutMs ?? 30_000);
    const check = () => {
      const match = /running at (http:\/\/\S+)/.exec(stdout);
      if (match && (options.ready?.(stdout) ?? true)) {
        clearTimeout(timer);
        resolve({ ...server, url: match[1]! });
      }
    };
    proc.stdout!.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString()).slice(-OUTPUT_KEPT);
      output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
      check();
    });
    proc.stderr!.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code ?? signal}: ${output}`));
    });
  });
}

/** SIGKILLs a child server that is still running and waits until it has exited. */
export async function killChildServer(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

export interface ChildTrader {
  userId: number;
  accountId: number;
  /** The `authorization` header of a day-long access token. */
  authorization: string;
}

/**
 * Traders with a funded account and a live session, straight in the database (no password
 * hashing), with access tokens signed by the secret of `config` that outlive a long test.
 */
export async function insertChildTraders(db: Db, config: Config, count: number, balanceMinor: number): Promise<ChildTrader[]> {
  const tokens = createTokens({ ...config, accessTokenTtlSeconds: 24 * 3600 }, systemClock);
  const traders: ChildTrader[] = [];
  for (let i = 0; i < count; i++) {
    const trader = await insertTrader({ db, clock: systemClock }, { balanceMinor });
    const sessionId = newTokenId();
    await writeTransaction(db, (trx) => insertSession(trx, { id: sessionId, userId: trader.userId, now: Date.now() }));
    const { token } = await tokens.sign('access', trader.userId, sessionId);
    traders.push({ userId: trader.userId, accountId: trader.accountId!, authorization: `Bearer ${token}` });
  }
  return traders;
}

/** POSTs a market order to a child server as the trader, under an Idempotency-Key; gives up after 10 s. */
export function postMarketOrder(url: string, trader: ChildTrader, idempotencyKey: string, order: object): Promise<Response> {
  return fetch(`${url}/api/trading/place-market-order/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: trader.authorization, 'idempotency-key': idempotencyKey },
    body: JSON.stringify(order),
    signal: AbortSignal.timeout(10_000),
  });
}

/** How a child process ended, with everything it printed. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <script> …args` from the repository root, with `stdin` piped in; rejects if it outlives `timeoutMs`. */
export function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 20_000,
  stdin = '',
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env });
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
