// Replay sessions through the real server (DESIGN §19 "Scale", docs/replay.md#playing): --sessions
// sessions, each with its own trader and a trading socket open on its practice account, all
// playing at --speed. Two figures:
//
// (1) Tick to socket: from the loop turn that plays a tick (the real time the play loop moves its
//     session to, Date.now() in the server when the turn starts) to the moment this process receives
//     the price_update carrying that tick (Date.now() when the frame's message event runs). Both
//     processes read the same machine clock (ms). The turn of a tick is found from a trace of the
//     server's loop (bench/replay-trace-server.mjs wraps main.js: each move's turn time, account,
//     clock before and after): the move of that account with before < tick time ≤ after. So the
//     figure holds the move's ticks through the account's trigger book, its socket book, the price
//     pacing of the account's sockets (at most one write a quarter second) and the socket, and not
//     the loop's own quarter second (a tick becomes due between turns by design). A price_update
//     carries only the newest tick of a pair per write; the figure is over the ticks that are sent.
// (2) A step of one day (POST …/step/ {minutes: 1440}) on a session of the same pairs holding 10
//     resting pending orders, with its socket open, while the others play: the call's wall time,
//     --steps times (each a further day).
//
//   node bench/replay.mjs [--sessions 200] [--speed 60] [--seconds 30] [--warmup 5] [--steps 8] [--seed 19] [--db sqlite|postgres] [--no-record]
//
// Goals: tick to socket p99 ≤ 50 ms, a day's step ≤ 1 s; exits 1 when one is missed.
import { readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import {
  benchDb,
  buildServer,
  mainThreadSchedule,
  parseArgs,
  prepareDatabase,
  processCpuSeconds,
  seededRandom,
  sleep,
  startServer,
} from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const SESSIONS = Number(args.sessions ?? 200);
const SPEED = Number(args.speed ?? 60);
const SECONDS = Number(args.seconds ?? 30);
const WARMUP = Number(args.warmup ?? 5);
const STEPS = Number(args.steps ?? 8);
const SEED = Number(args.seed ?? 19);
const GOALS = { tick_to_socket_p99_ms: 50, step_day_max_ms: 1000 };
const SYMBOLS = ['AUDUSD', 'EURUSD', 'GBPUSD', 'USDJPY'];
const DIGITS = { AUDUSD: 5, EURUSD: 5, GBPUSD: 5, USDJPY: 3 };
// Every pair has data from 2023-04-04 to 2023-05-10; playing starts somewhere in the first three
// weeks, so a minute of 60× (an hour of session time) and the steps stay inside the data.
const EARLIEST = Date.UTC(2023, 3, 4, 0, 0);
const LATEST = Date.UTC(2023, 3, 25, 0, 0);
// After the gap of 2023-04-11 to 04-13 (docs/replay.md#gaps): every step plays a full day of ticks.
const STEP_START = Date.UTC(2023, 3, 13, 7, 0);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round1 = (x) => Math.round(x * 10) / 10;

async function call(url, authorization, method, pathName, body) {
  const res = await fetch(`${url}${pathName}`, {
    method,
    headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${method} ${pathName}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** A trading socket authenticated for `account`; `onPrice(symbol, tickMs, arrivedMs)` for each price_update. */
function openSocket(url, authorization, account, onPrice) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/ws/trading/`);
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'authenticate', token: authorization.slice(7), account })));
    ws.on('message', (raw) => {
      const arrived = Date.now();
      const message = JSON.parse(String(raw));
      if (message.type === 'connection_established') resolve(ws);
      else if (message.type === 'price_update') onPrice(message.symbol, Date.parse(message.timestamp), arrived);
      else if (message.type === 'error') reject(new Error(JSON.stringify(message)));
    });
  });
}

async function main() {
  buildServer();
  const rand = seededRandom(SEED);
  const { dataDir, traders } = await prepareDatabase(SESSIONS + 1);
  const tracePath = path.join(tmpdir(), `pipdesk-replay-trace-${process.pid}.json`);
  const server = await startServer(dataDir, {
    entry: 'bench/replay-trace-server.mjs',
    env: { BENCH_REPLAY_TRACE: tracePath },
  });
  const { url } = server;
  try {
    // The sessions, each its trader's, at a seeded start.
    const players = [];
    for (const trader of traders.slice(0, SESSIONS)) {
      const start = EARLIEST + Math.floor((rand() * (LATEST - EARLIEST)) / 60_000) * 60_000;
      const { replay } = await call(url, trader.authorization, 'POST', '/api/trading/replays/', {
        symbols: SYMBOLS,
        start: new Date(start).toISOString(),
      });
      players.push({ trader, replay, arrivals: [] });
    }
    let measuring = false;
    for (const p of players) {
      p.socket = await openSocket(url, p.trader.authorization, p.replay.account_id, (symbol, tick, arrived) => {
        if (measuring) p.arrivals.push([symbol, tick, arrived]);
      });
    }
    // The stepped session: 10 resting pending orders far from the price, its socket open.
    const stepper = traders[SESSIONS];
    const { replay: stepped } = await call(url, stepper.authorization, 'POST', '/api/trading/replays/', {
      symbols: SYMBOLS,
      start: new Date(STEP_START).toISOString(),
      initial_balance: 1_000_000,
    });
    const on = `?account=${stepped.account_id}`;
    const quotes = await call(url, stepper.authorization, 'GET', `/api/trading/current-prices/${on}`);
    const quoteOf = (symbol) => quotes[symbol];
    for (let i = 0; i < 10; i++) {
      const symbol = SYMBOLS[i % SYMBOLS.length];
      const q = quoteOf(symbol);
      const buy = i % 2 === 0;
      const price = Number((buy ? q.ask * 0.9 : q.bid * 1.1).toFixed(DIGITS[symbol]));
      await call(url, stepper.authorization, 'POST', `/api/trading/place-pending-order/${on}`, {
        symbol,
        side: buy ? 'BUY' : 'SELL',
        order_type: 'LIMIT',
        quantity: 0.1,
        price,
      });
    }
    const stepSocket = await openSocket(url, stepper.authorization, stepped.account_id, () => {});

    console.log(`${SESSIONS} sessions of ${SYMBOLS.join(' ')} with their sockets; playing at ${SPEED}× (${benchDb})`);
    for (const p of players)
      await call(url, p.trader.authorization, 'POST', `/api/trading/replays/${p.replay.id}/play/`, { speed: SPEED });
    await sleep(WARMUP * 1000);

    const load = [loadavg()[0]];
    const cpuBefore = processCpuSeconds(server.pid);
    const schedBefore = mainThreadSchedule(server.pid);
    const windowStart = Date.now();
    measuring = true;
    await sleep(SECONDS * 1000);
    measuring = false;
    const windowMs = Date.now() - windowStart;
    const cpu = (processCpuSeconds(server.pid) - cpuBefore) / (windowMs / 1000);
    const schedAfter = mainThreadSchedule(server.pid);
    load.push(loadavg()[0]);

    // The day's steps, while the others play.
    const stepMs = [];
    for (let i = 0; i < STEPS; i++) {
      const t0 = performance.now();
      await call(url, stepper.authorization, 'POST', `/api/trading/replays/${stepped.id}/step/`, { minutes: 1440 });
      stepMs.push(performance.now() - t0);
    }
    load.push(loadavg()[0]);
    const orders = await fetch(`${url}/api/trading/orders/${on}&page_size=100`, {
      headers: { authorization: stepper.authorization },
    }).then((r) => r.json());
    const stillPending = orders.results.filter((o) => o.status === 'PENDING').length;

    for (const p of players) p.socket.close();
    stepSocket.close();
    await server.stop();

    // Match each received tick to the loop move that played it.
    const { moves } = JSON.parse(readFileSync(tracePath, 'utf8'));
    rmSync(tracePath, { force: true });
    const byAccount = new Map();
    for (const [at, account, from, until] of moves) {
      if (!byAccount.has(account)) byAccount.set(account, []);
      byAccount.get(account).push([from, until, at]);
    }
    for (const list of byAccount.values()) list.sort((a, b) => a[0] - b[0]);
    const latencies = [];
    let unmatched = 0;
    for (const p of players) {
      const list = byAccount.get(p.replay.account_id) ?? [];
      for (const [, tick, arrived] of p.arrivals) {
        let lo = 0;
        let hi = list.length - 1;
        let found;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          const [from, until] = list[mid];
          if (tick <= from) hi = mid - 1;
          else if (tick > until) lo = mid + 1;
          else {
            found = list[mid];
            break;
          }
        }
        if (found) latencies.push(arrived - found[2]);
        else unmatched++;
      }
    }
    latencies.sort((a, b) => a - b);
    const turnsInWindow = moves.filter(([at]) => at >= windowStart && at < windowStart + windowMs).length;
    const sortedSteps = [...stepMs].sort((a, b) => a - b);
    const result = {
      sessions: SESSIONS,
      speed: SPEED,
      db: benchDb,
      window_s: round1(windowMs / 1000),
      moves_per_s: Math.round(turnsInWindow / (windowMs / 1000)),
      ticks_received: latencies.length,
      unmatched,
      tick_to_socket_ms: {
        p50: pct(latencies, 50),
        p90: pct(latencies, 90),
        p99: pct(latencies, 99),
        max: latencies.at(-1),
      },
      server_cpu_cores: Math.round(cpu * 100) / 100,
      server_main_thread_waiting_ms_per_s:
        schedBefore && schedAfter ? round1((schedAfter.waitingMs - schedBefore.waitingMs) / (windowMs / 1000)) : undefined,
      step_day_ms: { p50: Math.round(pct(sortedSteps, 50)), max: Math.round(sortedSteps.at(-1)), all: stepMs.map(Math.round) },
      step_orders_still_pending: stillPending,
      load_average_1m: load.map((x) => Math.round(x * 100) / 100),
    };
    console.log(JSON.stringify(result, null, 2));
    record(`replay.${benchDb}`, {
      'tick to socket p50 ms': { value: result.tick_to_socket_ms.p50, better: 'lower' },
      'tick to socket p99 ms': { value: result.tick_to_socket_ms.p99, better: 'lower' },
      'day step p50 ms': { value: result.step_day_ms.p50, better: 'lower' },
      'day step max ms': { value: result.step_day_ms.max, better: 'lower' },
    });
    const missed = [];
    if (!(result.tick_to_socket_ms.p99 <= GOALS.tick_to_socket_p99_ms)) missed.push('tick to socket p99');
    if (!(result.step_day_ms.max <= GOALS.step_day_max_ms)) missed.push('day step');
    if (latencies.length === 0) missed.push('no tick received');
    if (missed.length > 0) {
      console.log(`missed: ${missed.join(', ')}`);
      process.exitCode = 1;
    }
  } catch (err) {
    await server.stop().catch(() => {});
    throw err;
  }
}

await main();
