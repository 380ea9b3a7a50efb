// Evaluations through the real server (docs/evaluations.md#on-many-nodes): with --attempts active
// attempts and ticks at --tick-rate a second, (1) tick to breach closed: the feed's send of the tick
// that takes an attempt through its daily floor → the student's trading socket receiving the close
// of its position (`order_confirmation` with reason `challenge_breach`), so the figure holds the
// live book's check, the leader's conditional write, the close through the order path and the
// socket; (2) the meter call (GET /api/trading/challenge/?account=) while the ticks flow.
//
//   node bench/evaluations-server.mjs [--attempts 10000] [--breaches 40] [--tick-rate 100] [--seconds 10] [--seed 33] [--no-record]
//
// Builds the server and prepares a fresh SQLite database through the built server's own modules
// (the attempts are started by the evaluations module's own startAttempts, one transaction each):
// an instructor, a cohort, --attempts students, a two-phase program (5 % daily loss on the balance,
// 10 % static max loss) and an attempt for every student, each challenge account holding one open
// position of 0.01–0.50 lots on one of the 12 pairs, far from its floors. --breaches of them hold
// 10 lots of EURUSD long, their entries 2 pips apart below its still price, and keep a trading socket on their challenge
// account. The server takes its prices from a feed this script serves (PRICE_SOURCE=external) at
// --tick-rate ticks a second round the 12 pairs, a seeded random walk, EURUSD held still. After a
// warm-up the meter is called for --seconds (one connection, a random student each call), then
// EURUSD steps down 2 pips every 400 ms, each step taking exactly one breach account through its
// floor (its entry less 50 pips and a point: 10 lots lose its 5,000.00). Goals: tick to breach
// closed p99 ≤ 250 ms, meter p99 ≤ 10 ms; exits 1 when one is missed or a breach is not seen.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import {
  buildServer,
  dist,
  FX_MIDS,
  freePort,
  insertBenchCohort,
  insertBenchUser,
  insertRows,
  JWT_SECRET,
  mainThreadSchedule,
  parseArgs,
  processCpuSeconds,
  seededRandom,
  sleep,
  startServer,
} from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const ATTEMPTS = Number(args.attempts ?? 10_000);
const BREACHES = Number(args.breaches ?? 40);
const TICK_RATE = Number(args['tick-rate'] ?? 100);
const SECONDS = Number(args.seconds ?? 10);
const SEED = Number(args.seed ?? 33);
const GOALS = { breach_closed_p99_ms: 250, meter_p99_ms: 10 };
const STEP_MS = 400;
const METER_STUDENTS = 500;

const MIDS = FX_MIDS;
const wallNow = () => performance.timeOrigin + performance.now();
const e10 = (price) => Math.round(price * 1e10);
const INITIAL = 10_000_000; // 100,000.00
// EURUSD's bid while still; breach account j's entry is 2j pips below it (its floor 50 pips lower).
const EURUSD_BID = 1.085;
const entryOf = (j) => Number((EURUSD_BID - 0.0002 * j).toFixed(5));

/** The students, the program and its attempts, the positions; returns the tokens the bench uses. */
async function prepare(rand) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-bench-'));
  const { loadConfig } = await dist('config.js');
  const { openDatabase } = await dist('db/database.js');
  const { migrateToLatest } = await dist('migrations.js');
  const { writeTransaction } = await dist('db/transaction.js');
  const { openAccount } = await dist('accounts/repo.js');
  const { insertSession } = await dist('auth/repo.js');
  const { createTokens, newTokenId } = await dist('auth/tokens.js');
  const { PAIR_SEEDS, seedRow } = await dist('market/catalogue.js');
  const { seedPairs } = await dist('market/repo.js');
  const { createProgram } = await dist('evaluations/programs.js');
  const { startAttempts } = await dist('evaluations/attempts.js');
  const { programCreateRequestSchema } = await import('@pipdesk/contract');
  const config = loadConfig({ DATA_DIR: dataDir, JWT_SECRET, ACCESS_TOKEN_TTL_MINUTES: '1440', LOG_LEVEL: 'warn' });
  const db = openDatabase(config.database);
  await migrateToLatest(db);
  await seedPairs(db.kysely, PAIR_SEEDS.map(seedRow));
  const pairs = await db.kysely.selectFrom('fx_pairs').select(['id', 'symbol']).orderBy('id').execute();
  const eurusd = pairs.find((p) => p.symbol === 'EURUSD');
  const now = Date.now();
  const clock = { now: () => Date.now() };
  const tokens = createTokens(config, clock);

  const { instructor, cohortId } = await writeTransaction(db, async (trx) => {
    const insertUser = (i, role) =>
      insertBenchUser(trx, {
        email: `evaluation${i}@example.com`,
        fullName: role === 'instructor' ? 'Bench Instructor' : `Bench Student ${i}`,
        role,
        now,
      });
    const instructor = await insertUser(0, 'instructor');
    const cohort = await insertBenchCohort(trx, { instructorId: instructor, now });
    for (let i = 1; i <= ATTEMPTS; i++) {
      const userId = await insertUser(i, 'trader');
      await trx.insertInto('cohort_members').values({ cohort_id: cohort, user_id: userId, added_at: now, active: 1 }).execute();
      await openAccount(trx, { userId, balanceMinor: 1_000_000, leverage: 100, now });
    }
    return { instructor, cohortId: cohort };
  });

  const caller = {
    userId: instructor,
    email: 'evaluation0@example.com',
    fullName: 'Bench Instructor',
    sessionId: 'bench',
    expiresAt: now + 86_400_000,
    role: 'instructor',
    mustChangePassword: false,
  };
  const deps = { db, clock, bus: { publish() {}, subscribe: () => () => {} } };
  const program = await createProgram(
    deps,
    caller,
    cohortId,
    programCreateRequestSchema.parse({
      name: 'Bench challenge',
      initial_balance: INITIAL / 100,
      leverage: 100,
      time_zone: 'Europe/Prague',
      phases: [
        { name: 'Phase 1', profit_target_pct: 10, max_daily_loss_pct: 5, max_loss_pct: 10 },
        { name: 'Phase 2', profit_target_pct: 5, max_daily_loss_pct: 5, max_loss_pct: 10 },
      ],
    }),
  );
  const started = await startAttempts(deps, caller, program.id, { all_members: true });
  if (started.started.length !== ATTEMPTS) throw new Error(`started ${started.started.length} attempts of ${ATTEMPTS}`);

  // Breach students are the first --breaches; every student holds one position on their challenge account.
  const attempts = started.started
    .map((a) => ({ userId: a.user.id, accountId: a.account_id }))
    .sort((a, b) => a.userId - b.userId);
  const positions = attempts.map((a, i) => {
    const breach = i < BREACHES;
    const pair = breach ? eurusd : pairs[i % pairs.length];
    const lots = breach ? 1_000 : 1 + Math.floor(rand() * 50);
    const long = breach || rand() < 0.5;
    const entry = breach ? entryOf(i) : MIDS[pair.symbol];
    return {
      account_id: a.accountId,
      pair_id: Number(pair.id),
      symbol: pair.symbol,
      quantity_centilots: long ? lots : -lots,
      average_entry_price_e10: e10(entry),
      realized_pnl_minor: 0,
      status: 'OPEN',
      created_at: now,
      updated_at: now,
      closed_at: null,
      stop_loss_e10: null,
      take_profit_e10: null,
      trailing_stop_pips: null,
    };
  });
  await writeTransaction(db, (trx) => insertRows(trx, 'positions', positions));

  // Sessions for the breach students (their sockets) and a sample of others (the meter calls).
  const sampled = attempts.slice(0, Math.max(BREACHES, METER_STUDENTS));
  const withTokens = [];
  for (const a of sampled) {
    const sessionId = newTokenId();
    await writeTransaction(db, (trx) => insertSession(trx, { id: sessionId, userId: a.userId, now }));
    const { token } = await tokens.sign('access', a.userId, sessionId);
    withTokens.push({ ...a, token });
  }
  await db.close();
  return { dataDir, breachers: withTokens.slice(0, BREACHES), meterStudents: withTokens };
}

/** The feed: every pair on connect, then TICK_RATE ticks a second round the pairs; EURUSD still until `descend`. */
async function startFeed(rand) {
  const port = await freePort();
  const wss = new WebSocketServer({ port, host: '127.0.0.1' });
  const mids = { ...MIDS };
  const symbols = Object.keys(mids);
  let eurusdBid = EURUSD_BID;
  let sent = 0;
  const quote = (symbol) => {
    if (symbol === 'EURUSD') return { symbol, bid: eurusdBid, ask: Number((eurusdBid + 0.00002).toFixed(5)) };
    const digits = symbol.endsWith('JPY') ? 3 : 5;
    const point = 10 ** -digits;
    return { symbol, bid: Number((mids[symbol] - point).toFixed(digits)), ask: Number((mids[symbol] + point).toFixed(digits)) };
  };
  const send = (ticks) => {
    const frame = JSON.stringify(ticks.length === 1 ? { type: 'tick', ...ticks[0] } : { type: 'ticks', ticks });
    for (const client of wss.clients) client.send(frame);
  };
  wss.on('connection', (socket) => socket.send(JSON.stringify({ type: 'ticks', ticks: symbols.map(quote) })));
  let i = 0;
  const started = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * TICK_RATE);
    const ticks = [];
    while (sent + ticks.length < due) {
      const symbol = symbols[i++ % symbols.length];
      if (symbol !== 'EURUSD') mids[symbol] *= 1 + (rand() - 0.5) * 2e-4;
      ticks.push(quote(symbol));
    }
    if (ticks.length === 0) return;
    sent += ticks.length;
    send(ticks);
  }, 5);
  return {
    url: `ws://127.0.0.1:${port}`,
    sent: () => sent,
    /** Moves EURUSD's bid and sends it at once; answers the wall time of the send. */
    moveEurusd(bid) {
      eurusdBid = bid;
      const at = wallNow();
      send([quote('EURUSD')]);
      return at;
    },
    stop: () => {
      clearInterval(timer);
      for (const client of wss.clients) client.terminate();
      return new Promise((resolve) => wss.close(resolve));
    },
  };
}

/** A trading socket on the student's challenge account; `closedAt` is set when its breach close arrives. */
function openSocket(url, student) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws/trading/`);
    const socket = { ws, closedAt: null };
    ws.on('open', () => ws.send(JSON.stringify({ type: 'authenticate', token: student.token, account: student.accountId })));
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.includes('"connection_established"')) resolve(socket);
      if (socket.closedAt === null && text.includes('"order_confirmation"') && text.includes('challenge_breach'))
        socket.closedAt = wallNow();
    });
    ws.on('error', reject);
    setTimeout(() => resolve(socket), 5_000);
  });
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const ms = (v) => (v === undefined ? null : Number(v.toFixed(2)));
const stats = (values) => ({
  n: values.length,
  p50: ms(percentile(values, 50)),
  p99: ms(percentile(values, 99)),
  max: ms(Math.max(...values)),
});

console.error(`seed ${SEED}`);
const rand = seededRandom(SEED);
buildServer();
const preparedAt = performance.now();
const { dataDir, breachers, meterStudents } = await prepare(rand);
const prepareSeconds = (performance.now() - preparedAt) / 1000;
console.error(`prepared ${ATTEMPTS} attempts in ${prepareSeconds.toFixed(1)} s`);
const feed = await startFeed(rand);
const server = await startServer(dataDir, { env: { PRICE_SOURCE: 'external', EXTERNAL_FEED_URL: feed.url } });
let ok = false;
try {
  const sockets = [];
  for (const student of breachers) sockets.push(await openSocket(server.url, student));
  await sleep(3_000);

  // The meter, one call at a time while the ticks flow.
  const meter = [];
  let meterErrors = 0;
  const meterUntil = performance.now() + SECONDS * 1000;
  const cpuBefore = processCpuSeconds(server.pid);
  const threadBefore = mainThreadSchedule(server.pid);
  while (performance.now() < meterUntil) {
    const s = meterStudents[Math.floor(rand() * meterStudents.length)];
    const t0 = performance.now();
    try {
      const res = await fetch(`${server.url}/api/trading/challenge/?account=${s.accountId}`, {
        headers: { authorization: `Bearer ${s.token}` },
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (res.status !== 200) meterErrors++;
    } catch (err) {
      console.error(`meter call for account ${s.accountId} failed: ${err.message}`);
      meterErrors++;
    }
    meter.push(performance.now() - t0);
  }

  // The server's share of the window: its CPU (all threads) and its main thread running and waiting for a core.
  const threadAfter = mainThreadSchedule(server.pid);
  const serverDuringMeter = {
    cpu_percent: Math.round(((processCpuSeconds(server.pid) - cpuBefore) / SECONDS) * 100),
    main_thread_running_percent: Math.round((threadAfter.onCpuMs - threadBefore.onCpuMs) / (SECONDS * 10)),
    main_thread_waiting_percent: Math.round((threadAfter.waitingMs - threadBefore.waitingMs) / (SECONDS * 10)),
  };

  // The breaches: step j takes breach account j through its floor, and only it.
  const sentAt = new Array(BREACHES);
  for (let j = 0; j < BREACHES; j++) {
    sentAt[j] = feed.moveEurusd(Number((entryOf(j) - 0.005 - 0.00001).toFixed(5)));
    await sleep(STEP_MS);
  }
  await sleep(2_000);
  const closed = sockets.map((s, j) => (s.closedAt === null ? null : s.closedAt - sentAt[j]));
  const seen = closed.filter((v) => v !== null);
  const summary = {
    seed: SEED,
    attempts: ATTEMPTS,
    tick_rate: TICK_RATE,
    prepare_seconds: Number(prepareSeconds.toFixed(1)),
    breaches: { expected: BREACHES, seen: seen.length, each_ms: closed.map((v) => (v === null ? null : Math.round(v))) },
    tick_to_breach_closed_ms: stats(seen),
    meter_ms: { ...stats(meter), errors: meterErrors },
    server_during_meter: serverDuringMeter,
    goals: GOALS,
  };
  ok =
    seen.length === BREACHES &&
    summary.tick_to_breach_closed_ms.p99 <= GOALS.breach_closed_p99_ms &&
    meterErrors === 0 &&
    summary.meter_ms.p99 <= GOALS.meter_p99_ms;
  summary.ok = ok;
  console.log(JSON.stringify(summary, null, 2));
  if (!args['no-record'])
    record('evaluations-server', {
      breach_closed_p50_ms: summary.tick_to_breach_closed_ms.p50,
      breach_closed_p99_ms: summary.tick_to_breach_closed_ms.p99,
      meter_p50_ms: summary.meter_ms.p50,
      meter_p99_ms: summary.meter_ms.p99,
    });
  for (const s of sockets) s.ws.terminate();
} finally {
  await server.stop();
  await feed.stop();
}
process.exit(ok ? 0 : 1);
