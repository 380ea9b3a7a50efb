#!/usr/bin/env node
/**
 * Benchmark of the trading socket (issue 4): N authenticated /ws/trading/ connections, each
 * trader holding an open EURUSD position and subscribed to P&L, against the built server on a
 * temporary SQLite DATA_DIR. The bench is the server's external price feed (PRICE_SOURCE=external),
 * so it knows when each tick left: latency is feed send → `pnl_batch_update` carrying that price.
 *
 *   node bench/trading-socket.mjs [--traders=2000] [--ticks=30] [--load-seconds=20] [--skip-build]
 *
 * Phase A (latency): one EURUSD tick per second (slower than the 2/s pacing, so no update waits
 * for the pacer): tick-to-pnl_batch_update latency over every connection, and server CPU.
 * Phase B (load): all 12 pairs ticking 10 times a second each: server CPU, messages received,
 * and the same latency, which then includes the coalescing wait (≤ 500 ms by design).
 * The load generator (feed + all clients) runs on the same machine, in this process.
 */
import { execSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket, { WebSocketServer } from 'ws';
import { pairSymbols } from './lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const arg = (name, fallback) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : fallback;
};
const TRADERS = arg('traders', 2000);
const LATENCY_TICKS = arg('ticks', 30);
const LOAD_SECONDS = arg('load-seconds', 20);
const SKIP_BUILD = process.argv.includes('--skip-build');
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';
const START_MID = {
  EURUSD: 1.085,
  GBPUSD: 1.265,
  USDJPY: 151.2,
  USDCHF: 0.905,
  AUDUSD: 0.655,
  USDCAD: 1.355,
  NZDUSD: 0.605,
  EURGBP: 0.857,
  EURJPY: 164.1,
  GBPJPY: 191.3,
  EURCHF: 0.982,
  AUDJPY: 99.05,
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s]`, ...a);

// ---------------------------------------------------------------- build and seed

if (!SKIP_BUILD) {
  log('building server (tsc -b server/tsconfig.json)');
  execSync('npx tsc -b server/tsconfig.json', { cwd: ROOT, stdio: 'inherit' });
}
const dist = (p) => import(path.join(ROOT, 'server/dist', p));
const PAIRS = await pairSymbols();
const dataDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-bench-socket-'));

const feed = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((r) => feed.once('listening', r));
const feedUrl = `ws://127.0.0.1:${feed.address().port}`;

const serverEnv = {
  ...process.env,
  NODE_ENV: 'production',
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  JWT_SECRET,
  SEED_DEMO: 'false',
  CHART_HISTORY_DAYS: '0',
  PRICE_SOURCE: 'external',
  EXTERNAL_FEED_URL: feedUrl,
  LOG_LEVEL: 'warn',
  WEB_DIST: path.join(dataDir, 'no-web'),
};

/** Creates the traders straight in the database (one shared password hash: scrypt per trader would take minutes) and mints their access tokens with the server's own signer. */
async function seed() {
  const { loadConfig } = await dist('config.js');
  const { openDatabase } = await dist('db/database.js');
  const { migrateToLatest } = await dist('migrations.js');
  const { writeTransaction } = await dist('db/transaction.js');
  const { insertUser, insertSession } = await dist('auth/repo.js');
  const { hashPassword } = await dist('auth/passwords.js');
  const { createTokens, newTokenId } = await dist('auth/tokens.js');
  const { openAccount } = await dist('accounts/repo.js');
  const config = loadConfig(serverEnv);
  const db = openDatabase(config.database);
  await migrateToLatest(db);
  const passwordHash = await hashPassword('bench-password-not-used');
  const tokens = createTokens(config, { now: () => Date.now() });
  const traders = [];
  const now = Date.now();
  for (let start = 0; start < TRADERS; start += 250) {
    const batch = await writeTransaction(db, async (trx) => {
      const out = [];
      for (let i = start; i < Math.min(TRADERS, start + 250); i++) {
        const userId = await insertUser(trx, {
          email: `bench${i}@example.com`,
          passwordHash,
          fullName: `Bench Trader ${i}`,
          now,
        });
        await openAccount(trx, { userId, balanceMinor: 1_000_000, leverage: 100, now });
        const sessionId = newTokenId();
        await insertSession(trx, { id: sessionId, userId, now });
        out.push({ userId, sessionId });
      }
      return out;
    });
    traders.push(...batch);
  }
  for (const t of traders) t.token = (await tokens.sign('access', t.userId, t.sessionId)).token;
  await db.close();
  return traders;
}

log(`seeding ${TRADERS} traders in ${dataDir}`);
const traders = await seed();

// ---------------------------------------------------------------- the price feed

const mids = { ...START_MID };
const feedSockets = new Set();
feed.on('connection', (socket) => {
  feedSockets.add(socket);
  socket.on('close', () => feedSockets.delete(socket));
  sendAll();
});
function quoteOf(symbol, mid) {
  const scale = symbol.endsWith('JPY') ? 1000 : 100000;
  const bid = Math.round(mid * scale) / scale;
  return { symbol, bid, ask: Math.round((bid + 2 / scale) * scale) / scale };
}
function sendTick(symbol) {
  const tick = quoteOf(symbol, mids[symbol]);
  const text = JSON.stringify({ type: 'tick', ...tick });
  for (const s of feedSockets) s.send(text);
  return tick;
}
function sendAll() {
  const text = JSON.stringify({ type: 'ticks', ticks: PAIRS.map((s) => quoteOf(s, mids[s])) });
  for (const s of feedSockets) s.send(text);
}
// Keeps the feed "connected" (a quiet feed is dropped after 10 s).
const heartbeat = setInterval(sendAll, 3_000);

// ---------------------------------------------------------------- the server

log('starting server');
// BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const server = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'server/dist/main.js')], {
  env: serverEnv,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /running at (http:\/\/[^\s]+)/.exec(out);
    if (m) resolve(m[1]);
  });
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
server.stdout.resume();
const wsUrl = `${baseUrl.replace('http', 'ws')}/ws/trading/`;
log(`server at ${baseUrl} (pid ${server.pid})`);
while (feedSockets.size === 0) await sleep(50);
await sleep(300);

function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, CLK_TCK = 100
}
function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
}

// ---------------------------------------------------------------- positions and sockets

async function pool(items, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

log(`placing ${TRADERS} orders (0.10 lot EURUSD each)`);
const orderStart = performance.now();
await pool(traders, 32, async (t) => {
  const res = await fetch(`${baseUrl}/api/trading/place-market-order/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
    body: JSON.stringify({ symbol: 'EURUSD', side: 'BUY', quantity: 0.1 }),
  });
  if (res.status !== 201) throw new Error(`order answered ${res.status}: ${await res.text()}`);
  t.positionId = (await res.json()).data.position.id;
});
log(`orders placed in ${((performance.now() - orderStart) / 1000).toFixed(1)} s`);

/** Latency samples of the current phase: EURUSD bid → send time of the tick that carried it. */
let sentAt = new Map();
let samples = [];
let received = 0;
const PNL_PREFIX = Buffer.from('{"type":"pnl_batch_update"');

function connect(t) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl);
    t.ws = ws;
    t.seen = new Set();
    ws.on('error', reject);
    ws.on('close', (code) => {
      if (!t.closing) console.error(`socket of trader ${t.userId} closed with ${code}`);
    });
    ws.on('message', (data) => {
      received++;
      // Only P&L batches are decoded; price and account updates are counted, not parsed.
      if (data.length < PNL_PREFIX.length || data.compare(PNL_PREFIX, 0, PNL_PREFIX.length, 0, PNL_PREFIX.length) !== 0) {
        if (!t.ready && data.includes('pnl_subscription_confirmed')) {
          t.ready = true;
          resolve();
        } else if (!t.authed && data.includes('connection_established')) {
          t.authed = true;
          ws.send('{"type":"subscribe_to_pnl"}');
        } else if (data.includes('auth_required')) {
          ws.send(JSON.stringify({ type: 'authenticate', token: t.token }));
        }
        return;
      }
      const at = performance.now();
      const message = JSON.parse(data);
      const price = message.updates[0]?.current_price;
      const sent = sentAt.get(price);
      if (sent !== undefined && !t.seen.has(price)) {
        t.seen.add(price);
        samples.push(at - sent);
      }
    });
  });
}

log(`opening ${TRADERS} trading sockets (authenticate + subscribe_to_pnl)`);
const connectStart = performance.now();
await pool(traders, 100, connect);
log(`all sockets subscribed in ${((performance.now() - connectStart) / 1000).toFixed(1)} s`);
await sleep(1_000);

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
function summary(list) {
  const sorted = [...list].sort((a, b) => a - b);
  const r = (x) => Math.round(x * 10) / 10;
  return {
    samples: sorted.length,
    p50_ms: r(percentile(sorted, 50)),
    p95_ms: r(percentile(sorted, 95)),
    p99_ms: r(percentile(sorted, 99)),
    max_ms: r(sorted.at(-1) ?? Number.NaN),
  };
}

// ---------------------------------------------------------------- phase A: latency

log(`phase A: ${LATENCY_TICKS} EURUSD ticks, one per second`);
sentAt = new Map();
samples = [];
received = 0;
let cpu0 = cpuSeconds(server.pid);
let wall0 = performance.now();
let benchCpu0 = process.cpuUsage();
for (let i = 0; i < LATENCY_TICKS; i++) {
  // A new bid every tick, so each price identifies its tick.
  mids.EURUSD = START_MID.EURUSD + 0.0001 * (i + 1);
  const before = performance.now();
  const tick = sendTick('EURUSD');
  sentAt.set(tick.bid, before);
  await sleep(1_000);
}
await sleep(500);
const phaseA = {
  ...summary(samples),
  expected_samples: LATENCY_TICKS * TRADERS,
  server_cpu_percent: Math.round(((cpuSeconds(server.pid) - cpu0) / ((performance.now() - wall0) / 1000)) * 1000) / 10,
  bench_process_cpu_percent:
    Math.round(
      ((process.cpuUsage(benchCpu0).user + process.cpuUsage(benchCpu0).system) / 1e3 / (performance.now() - wall0)) * 1000,
    ) / 10,
  messages_received_per_s: Math.round(received / ((performance.now() - wall0) / 1000)),
};
log('phase A', phaseA);

// ---------------------------------------------------------------- phase B: load

const RATE = 10;
if (LOAD_SECONDS > 0) log(`phase B: all ${PAIRS.length} pairs ticking ${RATE}/s each for ${LOAD_SECONDS} s`);
sentAt = new Map();
samples = [];
received = 0;
for (const t of traders) t.seen.clear();
cpu0 = cpuSeconds(server.pid);
wall0 = performance.now();
benchCpu0 = process.cpuUsage();
let step = 0;
const loadEnd = performance.now() + LOAD_SECONDS * 1000;
while (performance.now() < loadEnd) {
  step++;
  for (const symbol of PAIRS) {
    const pip = symbol.endsWith('JPY') ? 0.001 : 0.00001;
    // EURUSD climbs one point per tick so every price identifies its tick; the others wander.
    mids[symbol] = symbol === 'EURUSD' ? mids[symbol] + pip : mids[symbol] + (Math.random() - 0.5) * 4 * pip;
    const before = performance.now();
    const tick = sendTick(symbol);
    if (symbol === 'EURUSD') sentAt.set(tick.bid, before);
  }
  await sleep(1000 / RATE);
}
await sleep(700);
const loadWall = (performance.now() - wall0) / 1000;
const phaseB = {
  ...summary(samples),
  ticks_per_s: Math.round((step * PAIRS.length) / loadWall),
  server_cpu_percent: Math.round(((cpuSeconds(server.pid) - cpu0) / loadWall) * 1000) / 10,
  bench_process_cpu_percent:
    Math.round(((process.cpuUsage(benchCpu0).user + process.cpuUsage(benchCpu0).system) / 1e6 / loadWall) * 1000) / 10,
  messages_received_per_s: Math.round(received / loadWall),
  server_rss_mib: rssMiB(server.pid),
};
log('phase B', phaseB);

// ---------------------------------------------------------------- done

for (const t of traders) {
  t.closing = true;
  t.ws?.terminate();
}
clearInterval(heartbeat);
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
feed.close();
rmSync(dataDir, { recursive: true, force: true });

console.log(
  JSON.stringify(
    {
      benchmark: 'trading-socket',
      traders: TRADERS,
      cpus: (await import('node:os')).cpus().length,
      phase_a_latency: { description: 'one EURUSD tick per second → pnl_batch_update on every socket', ...phaseA },
      phase_b_load: { description: `12 pairs × ${RATE} ticks/s; latency includes the ≤ 500 ms coalescing`, ...phaseB },
    },
    null,
    2,
  ),
);
process.exit(0);
