// Shared by the benchmarks: builds the server, prepares a fresh database (SQLite in a temp
// folder, or with `--db postgres` a fresh schema in the local PostgreSQL) with signed-in traders (written directly with the built server's own
// modules: a password hash per trader would cost a second of scrypt each and is not what is
// measured), starts `node server/dist/main.js` on it and stops it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { databaseUrlInSchema } from '../scripts/cluster-lib.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/lib.mjs';

export const root = path.resolve(import.meta.dirname, '..');

/** The secret the benchmarks' servers sign with, so a prepared trader's token is accepted. */
export const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

export function parseArgs(list) {
  const out = {};
  for (let i = 0; i < list.length; i++) {
    // A flag with no value (`--no-record`, last or before another flag) is 'true'.
    if (list[i].startsWith('--'))
      out[list[i].slice(2)] = list[i + 1] === undefined || list[i + 1].startsWith('--') ? 'true' : list[++i];
  }
  return out;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * The database a benchmark runs on: `--db postgres` (or BENCH_DB=postgres) uses a fresh schema in
 * BENCH_DATABASE_URL (default the local test database), dropped when the server stops; SQLite
 * in the temp data folder otherwise.
 */
export const benchDb =
  (parseArgs(process.argv.slice(2)).db ?? process.env.BENCH_DB ?? 'sqlite') === 'postgres' ? 'postgres' : 'sqlite';
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Data folder → its PostgreSQL schema, for the benchmarks on PostgreSQL. */
const pgSchemas = new Map();
const pgUrlIn = (schema) => databaseUrlInSchema(PG_BASE, schema);

async function pgQuery(text) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_BASE });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * What the PostgreSQL server as a whole has done so far (null on SQLite): WAL bytes written and
 * checkpoints started, timed or requested. Two readings around a run tell how much WAL an order
 * costs and whether a checkpoint fell inside the run, which on a shared disk is when commit
 * latency spikes (pg_stat_bgwriter counts both kinds up to PostgreSQL 16).
 */
export async function pgActivity() {
  if (benchDb !== 'postgres') return null;
  const [row] = await pgQuery(
    `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint::text as wal_bytes,
            (checkpoints_timed + checkpoints_req)::text as checkpoints
       from pg_stat_bgwriter`,
  );
  return { walBytes: Number(row.wal_bytes), checkpoints: Number(row.checkpoints) };
}

/** A fresh data folder; on PostgreSQL also a fresh schema tied to it. */
export async function freshDataDir() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-bench-'));
  if (benchDb === 'postgres') {
    const schema = `bench_${path
      .basename(dataDir)
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()}`;
    await pgQuery(`create schema ${schema}`);
    pgSchemas.set(dataDir, schema);
  }
  return dataDir;
}

/** The DATABASE_URL for a data folder: empty (SQLite in the folder) or its PostgreSQL schema. */
export function databaseUrlFor(dataDir) {
  const schema = pgSchemas.get(dataDir);
  return schema ? pgUrlIn(schema) : '';
}

/** A module of the built server (`server/dist/<p>`). */
export const dist = (p) => import(pathToFileURL(path.join(root, 'server/dist', p)).href);

/** The symbols of the seeded catalogue (docs/trading-rules.md#pairs), in catalogue order, from the built server. */
export async function pairSymbols() {
  const { PAIR_SEEDS } = await dist('market/catalogue.js');
  return PAIR_SEEDS.map((seed) => seed.symbol);
}

/** The seeded catalogue as the server's `Pair` objects, ids 1..12, for the benches that run its code in process. */
export async function seededPairs() {
  return (await dist('market/catalogue.js')).seededPairs();
}

/** Builds (incrementally) the server the benchmark runs. */
export function buildServer() {
  execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-b', 'server/tsconfig.json'], { cwd: root, stdio: 'inherit' });
}

/**
 * A fresh data folder with `count` traders, each with a funded account and a live session.
 * `perTransaction` traders are written per transaction (10,000 one by one take a while).
 */
export async function prepareDatabase(count, { balanceMinor = 1_000_000_000, leverage = 100, perTransaction = 1 } = {}) {
  const dataDir = await freshDataDir();
  const { loadConfig } = await dist('config.js');
  const { openDatabase } = await dist('db/database.js');
  const { migrateToLatest } = await dist('migrations.js');
  const { writeTransaction } = await dist('db/transaction.js');
  const { openAccount } = await dist('accounts/repo.js');
  const { insertSession } = await dist('auth/repo.js');
  const { createTokens, newTokenId } = await dist('auth/tokens.js');
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrlFor(dataDir),
    JWT_SECRET,
    ACCESS_TOKEN_TTL_MINUTES: '1440',
    LOG_LEVEL: 'warn',
  });
  const db = openDatabase(config.database);
  await migrateToLatest(db);
  const clock = { now: () => Date.now() };
  const tokens = createTokens(config, clock);
  const traders = [];
  for (let start = 0; start < count; start += perTransaction) {
    const now = Date.now();
    const batch = await writeTransaction(db, async (trx) => {
      const out = [];
      for (let i = start; i < Math.min(count, start + perTransaction); i++) {
        const user = await trx
          .insertInto('users')
          .values({
            email: `bench${i}@example.com`,
            password_hash: 'not-a-hash',
            full_name: `Bench Trader ${i}`,
            is_active: 1,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const sessionId = newTokenId();
        await openAccount(trx, { userId: Number(user.id), balanceMinor, leverage, now });
        await insertSession(trx, { id: sessionId, userId: Number(user.id), now });
        out.push({ userId: Number(user.id), sessionId });
      }
      return out;
    });
    for (const { userId, sessionId } of batch) {
      const { token } = await tokens.sign('access', userId, sessionId);
      traders.push({ userId, authorization: `Bearer ${token}` });
    }
  }
  await db.close();
  return { dataDir, traders };
}

/** Inserts `rows` into `table` in as many statements as SQLite's bound-parameter limit needs. */
export async function insertRows(trx, table, rows) {
  if (rows.length === 0) return;
  const per = Math.floor(30_000 / Object.keys(rows[0]).length);
  for (let i = 0; i < rows.length; i += per)
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + per))
      .execute();
}

/** A process's name and utime + stime in seconds (Linux /proc/<pid>/stat); throws if it is gone. */
function processStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, close), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/** utime + stime of a process in seconds (Linux /proc). */
export function processCpuSeconds(pid) {
  try {
    return processStat(pid).cpuSeconds;
  } catch {
    return undefined;
  }
}

/** CPU seconds (utime + stime) of every process whose name is `name`: e.g. all of PostgreSQL's. */
function cpuSecondsOfProcessesNamed(name) {
  let seconds = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = processStat(entry);
      if (stat.name === name) seconds += stat.cpuSeconds;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return seconds;
}

/** The machine's busy and all CPU seconds since boot, over every core (/proc/stat's first line). */
function machineCpuSeconds() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map((t) => Number(t) / 100);
  return {
    busy: user + nice + system + irq + softirq + steal,
    all: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

/**
 * Where a run's CPU went, per answered request: call this before the run, then
 * `perRequest(requests)` after it for the µs per request of the server's process (every
 * thread) and of its main thread alone, of PostgreSQL's processes (all of them; null on SQLite, where
 * the database is the server's own), of this client process, and of the whole machine busy.
 * Two ceilings follow: `ceiling_per_second`, the most requests a second all of the machine's
 * cores could answer at that cost were they never idle, and `main_thread_ceiling_per_second`,
 * the most the server's one JavaScript thread could at its cost. What the cost per request
 * does not fit, no tuning of waits or concurrency can.
 */
export function cpuPerRequest(serverPid) {
  const cores = availableParallelism();
  const read = () => ({
    server: processCpuSeconds(serverPid) ?? 0,
    mainThread: (mainThreadSchedule(serverPid)?.onCpuMs ?? 0) / 1000,
    database: benchDb === 'postgres' ? cpuSecondsOfProcessesNamed('postgres') : 0,
    client: process.cpuUsage(),
    machine: machineCpuSeconds(),
  });
  const before = read();
  return {
    perRequest(requests) {
      const after = read();
      const us = (seconds) => Math.round((seconds * 1e6) / Math.max(1, requests));
      const clientSeconds = (after.client.user + after.client.system - before.client.user - before.client.system) / 1e6;
      const machine = us(after.machine.busy - before.machine.busy);
      const mainThread = us(after.mainThread - before.mainThread);
      return {
        cpu_us_per_request: {
          server: us(after.server - before.server),
          server_main_thread: mainThread,
          database: benchDb === 'postgres' ? us(after.database - before.database) : null,
          client: us(clientSeconds),
          machine,
        },
        machine_busy_percent: Math.round(
          ((after.machine.busy - before.machine.busy) / Math.max(1e-9, after.machine.all - before.machine.all)) * 100,
        ),
        cores,
        ceiling_per_second: machine > 0 ? Math.round((cores * 1e6) / machine) : null,
        main_thread_ceiling_per_second: mainThread > 0 ? Math.round(1e6 / mainThread) : null,
      };
    },
  };
}

/**
 * The main thread's time on a CPU and waiting for one (runnable, not running), in ms
 * (/proc/<pid>/task/<pid>/schedstat). On a shared machine the wait says how much of a
 * latency is the machine rather than the server.
 */
export function mainThreadSchedule(pid) {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { onCpuMs: onCpu / 1e6, waitingMs: waiting / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * Spawns the built server on a free port with the benchmarks' settings (`env` on top), its
 * standard output ignored or, with `stdout: 'pipe'`, left for the caller to read. Wait for it
 * with `untilHealthy`. `entry`: the script node runs (a bench's wrapper of main.js, bench/replay-trace-server.mjs).
 */
export async function spawnServer(dataDir, { nodeArgs = [], env = {}, stdout = 'ignore', entry = 'server/dist/main.js' } = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, path.join(root, entry)], {
    cwd: root,
    stdio: ['ignore', stdout, 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrlFor(dataDir),
      REDIS_URL: '',
      JWT_SECRET,
      CHART_HISTORY_DAYS: '0',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      WEB_DIST: path.join(dataDir, 'no-web'),
      // The benchmarks measure the server, not its rate limits (they would refuse the load);
      // bench/orders.mjs switches them and the metrics on with BENCH_OPERATIONS=on.
      RATE_LIMITS: 'false',
      METRICS_TOKEN: '',
      METRICS_PORT: '',
      ...env,
    },
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Resolves once the spawned server answers its health check with the price source connected. */
export async function untilHealthy({ child, url }) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/api/health/`);
      if (res.ok && (await res.json()).data?.price_source?.connected) return;
    } catch {}
    if (Date.now() > deadline) throw new Error('server did not become healthy');
    await sleep(200);
  }
}

/**
 * Starts the built server on the prepared data folder; resolves once it is healthy and quoting.
 * `nodeArgs` e.g. ['--cpu-prof'] to profile the server under load (by default those in
 * BENCH_SERVER_NODE_ARGS, as socket-bench.mjs reads them); `env` overrides settings.
 */
export async function startServer(dataDir, { nodeArgs = serverNodeArgsFromEnv(), env = {}, entry } = {}) {
  const spawned = await spawnServer(dataDir, {
    nodeArgs,
    ...(entry ? { entry } : {}),
    env: { PRICE_SOURCE: 'simulator', PRICE_SEED: '20260401', ...env },
  });
  const { child, url } = spawned;
  await untilHealthy(spawned);
  // Every pair quoted once before the clock starts.
  await sleep(1500);
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
      const schema = pgSchemas.get(dataDir);
      if (schema) await pgQuery(`drop schema if exists ${schema} cascade`);
    },
  };
}

/** BENCH_SERVER_NODE_ARGS split into arguments, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof". */
export function serverNodeArgsFromEnv() {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/** The figures of an autocannon result worth printing. */
export function summary(result) {
  return {
    requests_per_second: Math.round(result.requests.average),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * Calls `fire(i, due)` for i = 0 … total − 1, each at its due time start + i ÷ rate (start 50 ms
 * from now), late ones at once, whatever the earlier calls' promises did; resolves once all of
 * them have. The open-loop schedule of `pacedRun` and bench/overload.mjs.
 */
export async function fireAtRate({ rate, total, fire }) {
  const start = performance.now() + 50;
  const pending = [];
  let sent = 0;
  await new Promise((done) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / rate <= now) {
        pending.push(fire(sent, start + (sent * 1000) / rate));
        sent += 1;
      }
      if (sent >= total) return done();
      setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now()));
    };
    setTimeout(tick, 50);
  });
  await Promise.all(pending);
}

/**
 * This process's event-loop delay from now on: the client shares the machine with the server,
 * so a late client shows here rather than as the server's latency alone. `reset()` at the end of
 * a warm-up, `stop()` for the figures (ms), sampled by a 10 ms timer whose interval they include.
 */
export function clientLoopDelay() {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    reset: () => histogram.reset(),
    stop: () => {
      histogram.disable();
      return { p99_ms: Math.round(histogram.percentile(99) / 1e6), max_ms: Math.round(histogram.max / 1e6) };
    },
  };
}

/**
 * An open-loop run at a steady rate: request i is due at start + i ÷ rate, whatever the
 * answers before it (autocannon's `overallRate` instead lets each connection burst its share
 * at the start of every second and then corrects for coordinated omission with a 1 ms
 * interval, which measures neither). Latency counts from the due time, so time spent queued
 * in the client or the socket pool is included. The first `warmupSeconds` run at the same rate
 * unrecorded (new connections, JIT). `request(i)` returns {method, path, headers, body}.
 * The client's own event-loop delay after the warm-up is reported beside (`clientLoopDelay`).
 */
export async function pacedRun({ url, rate, seconds, connections, request, warmupSeconds = 3 }) {
  const { Agent, request: httpRequest } = await import('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  const warmup = Math.round(rate * warmupSeconds);
  const total = warmup + Math.round(rate * seconds);
  const latencies = [];
  const statuses = {};
  let errors = 0;
  const clientLoop = clientLoopDelay();
  const fire = (i, due) =>
    new Promise((resolve) => {
      if (i === warmup) clientLoop.reset();
      const r = request(i);
      const req = httpRequest(
        { host: target.hostname, port: target.port, method: r.method, path: r.path, headers: r.headers, agent },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (i < warmup) return resolve();
            latencies.push(performance.now() - due);
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        if (i >= warmup) errors += 1;
        resolve();
      });
      req.end(r.body);
    });
  await fireAtRate({ rate, total, fire });
  agent.destroy();
  const clientDelay = clientLoop.stop();
  latencies.sort((a, b) => a - b);
  const at = (p) => Number(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1));
  const non2xx = Object.entries(statuses)
    .filter(([code]) => !code.startsWith('2'))
    .reduce((n, [, count]) => n + count, 0);
  return {
    requests_per_second: Math.round(latencies.length / seconds),
    latency_ms: { p50: at(50), p99: at(99), max: Number(latencies.at(-1).toFixed(1)) },
    requests: latencies.length,
    non_2xx: non2xx,
    errors,
    client_event_loop_delay: clientDelay,
  };
}

/** A small seeded generator (mulberry32): the same data and the same walk for the same seed. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mid prices the benchmarks' feeds start the 12 pairs at. */
export const FX_MIDS = {
  EURUSD: 1.085,
  GBPUSD: 1.27,
  USDJPY: 150,
  USDCHF: 0.88,
  AUDUSD: 0.66,
  USDCAD: 1.36,
  NZDUSD: 0.61,
  EURGBP: 0.855,
  EURJPY: 162.75,
  GBPJPY: 190.5,
  EURCHF: 0.955,
  AUDJPY: 99,
};

/** A user row written straight into the database (no password hash: the benchmarks sign tokens themselves); answers its id. */
export async function insertBenchUser(trx, { email, fullName, role, now }) {
  const row = await trx
    .insertInto('users')
    .values({ email, password_hash: 'not-a-hash', full_name: fullName, is_active: 1, role, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** An active cohort taught by `instructorId`; answers its id. */
export async function insertBenchCohort(trx, { instructorId, now }) {
  const row = await trx
    .insertInto('cohorts')
    .values({
      name: 'Bench cohort',
      description: '',
      starting_balance_minor: 1_000_000,
      leverage: 100,
      starts_at: null,
      ends_at: null,
      allow_self_reset: 0,
      status: 'active',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const cohortId = Number(row.id);
  await trx.insertInto('cohort_instructors').values({ cohort_id: cohortId, user_id: instructorId, added_at: now }).execute();
  return cohortId;
}
