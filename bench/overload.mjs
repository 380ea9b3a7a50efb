// Overload benchmark (docs/operations.md#overload), with metrics on (for the server's event-loop delay): offers place-market-order at twice what the
// server can do and reports what it answers: 2xx/s, 503/s, and the p99 of each. With load
// shedding on, both p99s stay bounded (a 503 comes at once, an admitted order waits at most its
// cap ÷ throughput) and the 2xx rate stays near the capacity; with `--shedding off` the waits
// grow for as long as the overload lasts.
//
//   node bench/overload.mjs [--db postgres] [--traders 50] [--seconds 15] [--factor 2] [--shedding off]
//                           [--capacity-connections 200] [--max-writes N] [--no-record]
//
// 1. capacity: autocannon, 200 connections (--capacity-connections) saturated for 5 s: the most
//    orders/s the server does (more concurrency than bench/orders.mjs's 50, since SQLite's group
//    commit does more with fuller batches; at the default write cap, so never shed);
// 2. overload: open loop at --factor × that rate for --seconds (after 2 s unrecorded at the same
//    rate), over a pool of 500 sockets (above the server's write cap, so the server sees the
//    overload); latency counts from each request's due time, so a client that falls behind
//    counts too: its own event-loop delay is printed beside (on a busy machine it is most of it),
//    and each p50 / p99 again from the moment the request had a socket (`…_from_send`), which
//    leaves out the client's own backlog.
// Goal (with shedding): 2xx/s ≥ 70 % of the capacity, p99 of a 503 < 100 ms, p99 of a 2xx < 1 s,
// no connection error and no status but 201 and 503. Exits 1 when missed.
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import autocannon from 'autocannon';
import {
  benchDb,
  buildServer,
  clientLoopDelay,
  fireAtRate,
  parseArgs,
  prepareDatabase,
  processCpuSeconds,
  startServer,
} from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const TRADERS = Number(args.traders ?? 50);
const SECONDS = Number(args.seconds ?? 15);
const FACTOR = Number(args.factor ?? 2);
const SHEDDING = (args.shedding ?? 'on') !== 'off';
const CAPACITY_SECONDS = 5;
/** Enough concurrency for full batches on SQLite (group commit grows with it), within the default write cap. */
const CAPACITY_CONNECTIONS = Number(args['capacity-connections'] ?? 200);
const WARMUP_SECONDS = 2;
/** Sockets of the client: more than the server's write cap (200), so the server sees the overload. */
const SOCKETS = 500;
const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'USDCAD', 'NZDUSD'];
const ORDER_PATH = '/api/trading/place-market-order/';

/** Order `i`: trader i mod TRADERS, alternating BUY and SELL of 0.01–0.10 lots, so margin never runs out. */
function order(i, traders) {
  const trader = traders[i % traders.length];
  return {
    headers: {
      'content-type': 'application/json',
      authorization: trader.authorization,
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({
      symbol: SYMBOLS[i % SYMBOLS.length],
      side: Math.floor(i / traders.length) % 2 ? 'SELL' : 'BUY',
      quantity: (1 + (i % 10)) / 100,
    }),
  };
}

function capacity(url, traders) {
  let sequence = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}${ORDER_PATH}`,
        connections: CAPACITY_CONNECTIONS,
        duration: CAPACITY_SECONDS,
        requests: [
          {
            method: 'POST',
            setupRequest: (request) => {
              const { headers, body } = order(sequence++, traders);
              return { ...request, headers, body };
            },
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** The open-loop run: request i is due at start + i ÷ rate, whatever happened to the ones before. */
async function overload(url, traders, rate) {
  const agent = new Agent({ keepAlive: true, maxSockets: SOCKETS });
  const target = new URL(url);
  const warmup = Math.round(rate * WARMUP_SECONDS);
  const total = warmup + Math.round(rate * SECONDS);
  const byStatus = new Map();
  let errors = 0;
  // This process's own lag: on a busy machine the client, not the server, may be what is late.
  const clientLoop = clientLoopDelay();
  const fire = (i, due) =>
    new Promise((resolve) => {
      if (i === warmup) clientLoop.reset();
      const { headers, body } = order(i, traders);
      // When the request got a socket of the pool: the wait before it is the client's own backlog.
      let sent = due;
      const req = httpRequest(
        { host: target.hostname, port: target.port, method: 'POST', path: ORDER_PATH, headers, agent },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (i >= warmup) {
              const list = byStatus.get(res.statusCode) ?? [];
              const now = performance.now();
              list.push({ fromDue: now - due, fromSent: now - sent });
              byStatus.set(res.statusCode, list);
            }
            resolve();
          });
        },
      );
      req.once('socket', () => {
        sent = performance.now();
      });
      req.on('error', () => {
        if (i >= warmup) errors += 1;
        resolve();
      });
      req.end(body);
    });
  await fireAtRate({ rate, total, fire });
  agent.destroy();
  const clientDelay = clientLoop.stop();
  const figures = (status) => {
    const answers = byStatus.get(status) ?? [];
    const sorted = (key) => answers.map((a) => a[key]).sort((a, b) => a - b);
    const fromDue = sorted('fromDue');
    const fromSent = sorted('fromSent');
    const at = (list, p) =>
      list.length ? Number(list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))].toFixed(1)) : null;
    return {
      per_second: Math.round(answers.length / SECONDS),
      count: answers.length,
      p50_ms: at(fromDue, 50),
      p99_ms: at(fromDue, 99),
      max_ms: at(fromDue, 100),
      // From the moment the request had a socket: the server's wait, without the client's backlog.
      p50_ms_from_send: at(fromSent, 50),
      p99_ms_from_send: at(fromSent, 99),
    };
  };
  const created = figures(201);
  const busy = figures(503);
  const other = Object.fromEntries(
    [...byStatus].filter(([status]) => status !== 201 && status !== 503).map(([s, l]) => [s, l.length]),
  );
  return {
    offered_per_second: rate,
    created_2xx: created,
    busy_503: busy,
    other_statuses: other,
    connection_errors: errors,
    client_event_loop_delay: clientDelay,
  };
}

const METRICS_TOKEN = 'bench-metrics-token-0123456789';

/** The server's event-loop delay since the previous scrape (ms by quantile): how far behind its loop was. */
async function loopDelay(url) {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const lines = (await res.text()).split('\n').filter((line) => line.startsWith('pipdesk_event_loop_lag_seconds{'));
  return Object.fromEntries(
    lines.map((line) => [
      `p${Number(/quantile="([^"]+)"/.exec(line)[1]) * 100}_ms`,
      Math.round(Number(line.split(' ').at(-1)) * 1000),
    ]),
  );
}

buildServer();
const { dataDir, traders } = await prepareDatabase(TRADERS);
const server = await startServer(dataDir, {
  env: SHEDDING
    ? { METRICS_TOKEN, ...(args['max-writes'] ? { OVERLOAD_MAX_WRITES_IN_FLIGHT: args['max-writes'] } : {}) }
    : {
        METRICS_TOKEN,
        OVERLOAD_MAX_IN_FLIGHT: '0',
        OVERLOAD_MAX_WRITES_IN_FLIGHT: '0',
        OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
        OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
      },
});
try {
  await loopDelay(server.url);
  const saturated = await capacity(server.url, traders);
  const capacityLoop = await loopDelay(server.url);
  // Answered orders only: with a low --max-writes the saturated run is shed too.
  const capacityPerSecond = Math.round(saturated['2xx'] / CAPACITY_SECONDS);
  const cpuBefore = processCpuSeconds(server.pid);
  const run = await overload(server.url, traders, Math.round(capacityPerSecond * FACTOR));
  const cpuAfter = processCpuSeconds(server.pid);
  const overloadLoop = await loopDelay(server.url);
  const report = {
    database: benchDb,
    shedding: SHEDDING ? `on (write cap ${args['max-writes'] ?? 'the default'})` : 'off',
    capacity: {
      connections: CAPACITY_CONNECTIONS,
      orders_per_second: capacityPerSecond,
      non_2xx: saturated.non2xx,
      p99_ms: saturated.latency.p99,
      server_event_loop_delay: capacityLoop,
    },
    overload: {
      ...run,
      server_event_loop_delay: overloadLoop,
      server_cpu_percent:
        cpuBefore === undefined ? null : Math.round(((cpuAfter - cpuBefore) / (SECONDS + WARMUP_SECONDS)) * 100),
    },
    goal: { created_share_of_capacity: 0.7, p99_ms_of_503: 100, p99_ms_of_2xx: 1000 },
  };
  report.goal_met =
    saturated.non2xx === 0 &&
    run.created_2xx.per_second >= 0.7 * capacityPerSecond &&
    (run.busy_503.p99_ms ?? 0) < 100 &&
    (run.created_2xx.p99_ms ?? Number.POSITIVE_INFINITY) < 1000 &&
    run.connection_errors === 0 &&
    Object.keys(run.other_statuses).length === 0;
  console.log(JSON.stringify(report, null, 2));
  // Recorded only for the run the figures' names describe.
  if (SHEDDING && FACTOR === 2 && !args['max-writes'])
    record(`overload.${benchDb}`, {
      'capacity orders/s': { value: capacityPerSecond, better: 'higher' },
      '2xx/s at 2× capacity': { value: run.created_2xx.per_second, better: 'higher' },
      '503/s at 2× capacity': { value: run.busy_503.per_second, better: 'lower' },
      'p99 ms of 2xx': { value: run.created_2xx.p99_ms ?? 0, better: 'lower' },
      'p99 ms of 503': { value: run.busy_503.p99_ms ?? 0, better: 'lower' },
    });
  process.exitCode = report.goal_met ? 0 : 1;
} finally {
  await server.stop();
}
