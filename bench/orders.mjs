// place-market-order benchmark: 50 traders ordering concurrently for 20 s against the embedded
// default (SQLite, every order on disk before it is answered), beside the same load on GET /api/health/ (the bare server).
//
//   node bench/orders.mjs [--db postgres] [--traders 50] [--seconds 20] [--rate 1000] [--no-key] [--runs 1] [--no-record]
//
// Builds the server, prepares a fresh database with the traders (see lib.mjs), starts
// `node server/dist/main.js` on it, and drives it with autocannon in this process (the load
// generator shares the machine). Each autocannon connection is one trader; every order carries
// its own Idempotency-Key (as the web client sends it) unless --no-key. Orders alternate BUY and
// SELL of 0.01–0.10 lots over the majors, so accounts never run out of margin.
// Two runs of each: saturated (autocannon, every connection sends as soon as it is answered: the
// most the server does; its latency is just 50 ÷ throughput) and open-loop at a steady offered
// rate (--rate, default 1,000/s spread evenly over the 50 traders, latency counted from each
// request's due time: what a trader sees at that load; see pacedRun in lib.mjs).
// Goal (issue 17): SQLite ≥ 6,000 orders/s saturated and p99 ≤ 10 ms at 1,000/s; PostgreSQL
// (--db postgres: a fresh schema of the local server, see lib.mjs) ≥ 2,500/s and p99 ≤ 25 ms.
// Prints a JSON summary and the figures beside bench/results.json's (`orders.sqlite` or
// `orders.postgres`; --no-record compares without writing); exits 1 when the goal is missed.
// --runs N: N runs, each on a fresh database and server; the medians are recorded (bench/README.md).
// BENCH_OPERATIONS=on runs the server with metrics (METRICS_TOKEN) and rate limits on, the limits
// set above this load so that their cost is measured, not their refusals; off (the default)
// runs it with both off. Compare the two reports (bench/README.md).
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import {
  benchDb,
  buildServer,
  cpuPerRequest,
  pacedRun,
  parseArgs,
  pgActivity,
  prepareDatabase,
  processCpuSeconds,
  startServer,
  summary,
} from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const TRADERS = Number(args.traders ?? 50);
const SECONDS = Number(args.seconds ?? 20);
const WITH_KEY = args['no-key'] === undefined;
const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'USDCAD', 'NZDUSD'];
const OPERATIONS = (process.env.BENCH_OPERATIONS ?? 'off') === 'on';
const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const OPERATIONS_ENV = OPERATIONS
  ? {
      METRICS_TOKEN,
      RATE_LIMITS: 'true',
      RATE_LIMIT_REQUESTS_PER_SECOND: '100000',
      RATE_LIMIT_ADDRESS_REQUESTS_PER_SECOND: '100000',
      RATE_LIMIT_ORDERS_PER_SECOND: '100000',
    }
  : {};

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

const RATE = Number(args.rate ?? 1000);
const GOAL =
  benchDb === 'postgres'
    ? { orders_per_second: 2500, p99_ms_at_1000_per_second: 25 }
    : { orders_per_second: 6000, p99_ms_at_1000_per_second: 10 };

/** An order of trader `i % TRADERS`: alternating BUY and SELL of 0.01–0.10 lots over the majors. */
function orderRequest(i, trader) {
  return {
    method: 'POST',
    path: '/api/trading/place-market-order/',
    headers: {
      'content-type': 'application/json',
      authorization: trader.authorization,
      ...(WITH_KEY ? { 'idempotency-key': randomUUID() } : {}),
    },
    body: JSON.stringify({
      symbol: SYMBOLS[i % SYMBOLS.length],
      side: Math.floor(i / TRADERS) % 2 ? 'SELL' : 'BUY',
      quantity: (1 + (i % 10)) / 100,
    }),
  };
}

/** The saturated run: each autocannon connection is one trader sending as soon as it is answered. */
function orderRun(url, traders) {
  let nextTrader = 0;
  let sequence = 0;
  return run({
    url,
    connections: TRADERS,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        path: '/api/trading/place-market-order/',
        // autocannon's context is per connection: one trader per connection.
        setupRequest: (request, context) => {
          context.trader ??= traders[nextTrader++ % traders.length];
          context.n = (context.n ?? 0) + 1;
          sequence += 1;
          const body = {
            symbol: SYMBOLS[sequence % SYMBOLS.length],
            side: context.n % 2 ? 'BUY' : 'SELL',
            quantity: (1 + (sequence % 10)) / 100,
          };
          return {
            ...request,
            headers: {
              'content-type': 'application/json',
              authorization: context.trader.authorization,
              ...(WITH_KEY ? { 'idempotency-key': randomUUID() } : {}),
            },
            body: JSON.stringify(body),
          };
        },
      },
    ],
  });
}

/** The median of the runs' values (the middle one; the mean of the two middle ones for an even count). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : Number(((sorted[mid - 1] + sorted[mid]) / 2).toFixed(1));
}

buildServer();
const RUNS = Number(args.runs ?? 1);
const runs = [];
for (let i = 0; i < RUNS; i++) runs.push(await measure());
const figure = (f) => median(runs.map(f));
const RATE_LABEL = `p99 ms at ${RATE.toLocaleString('en-US')}/s`;
const figures = {
  'saturated orders/s': { value: figure((r) => r.place_market_order.saturated.requests_per_second), better: 'higher' },
  'p50 ms saturated': { value: figure((r) => r.place_market_order.saturated.latency_ms.p50), better: 'lower' },
  'p99 ms saturated': { value: figure((r) => r.place_market_order.saturated.latency_ms.p99), better: 'lower' },
  [RATE_LABEL]: { value: figure((r) => r.place_market_order.at_rate.latency_ms.p99), better: 'lower' },
  'health req/s': { value: figure((r) => r.health.saturated.requests_per_second), better: 'higher' },
  'machine CPU µs per order saturated': {
    value: figure((r) => r.place_market_order.saturated.cpu_us_per_request.machine),
    better: 'lower',
  },
  'ceiling orders/s at that cost': { value: figure((r) => r.place_market_order.saturated.ceiling_per_second), better: 'higher' },
  'main thread ceiling orders/s': {
    value: figure((r) => r.place_market_order.saturated.main_thread_ceiling_per_second),
    better: 'higher',
  },
};
const each = (name, f) => `${name} ${runs.map(f).join(' / ')}`;
if (RUNS > 1) {
  console.log(
    JSON.stringify(
      {
        runs: RUNS,
        medians: Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, v.value])),
        goal_met: runs.filter((r) => r.goal_met).length > RUNS / 2,
      },
      null,
      2,
    ),
  );
}
record(`orders.${benchDb}`, figures, {
  note:
    RUNS > 1
      ? `median of ${RUNS} runs: ${each('orders/s', (r) => r.place_market_order.saturated.requests_per_second)}; ${each(RATE_LABEL, (r) => r.place_market_order.at_rate.latency_ms.p99)}${
          benchDb === 'postgres'
            ? `; ${each('checkpoints during the rate run', (r) => r.place_market_order.at_rate.checkpoints_during_run)}`
            : ''
        }`
      : undefined,
});
process.exitCode =
  figures['saturated orders/s'].value >= GOAL.orders_per_second && figures[RATE_LABEL].value <= GOAL.p99_ms_at_1000_per_second
    ? 0
    : 1;

/** One run on a fresh database and server: the health call, then the orders, saturated and at the rate. */
async function measure() {
  const { dataDir, traders } = await prepareDatabase(TRADERS);
  const server = await startServer(dataDir, { env: OPERATIONS_ENV });
  try {
    const cpu = async (fn) => {
      const before = processCpuSeconds(server.pid);
      const pgBefore = await pgActivity();
      const account = cpuPerRequest(server.pid);
      const result = await fn();
      const after = processCpuSeconds(server.pid);
      const figures = 'latency_ms' in result ? result : summary(result);
      // Saturated runs only (a paced run's window holds its unrecorded warm-up): where each
      // answer's CPU went, and the most answers/s this machine's cores could give at that cost.
      const spent = 'latency_ms' in result ? {} : account.perRequest(figures.requests);
      const pgAfter = await pgActivity();
      return {
        ...figures,
        server_cpu_percent: before === undefined ? null : Math.round(((after - before) / SECONDS) * 100),
        ...spent,
        // PostgreSQL only: WAL per answered request, and checkpoints that started during the run.
        ...(pgBefore && pgAfter
          ? {
              wal_bytes_per_request: Math.round((pgAfter.walBytes - pgBefore.walBytes) / Math.max(1, figures.requests)),
              checkpoints_during_run: pgAfter.checkpoints - pgBefore.checkpoints,
            }
          : {}),
      };
    };
    /** An open-loop run at the offered rate (see pacedRun in lib.mjs). */
    const atRate = (request) =>
      cpu(() => pacedRun({ url: server.url, rate: RATE, seconds: SECONDS, connections: TRADERS, request }));
    const health = {
      saturated: await cpu(() => run({ url: `${server.url}/api/health/`, connections: TRADERS, duration: SECONDS })),
      // Paced like the orders below, so the two latencies compare.
      at_rate: await atRate(() => ({ method: 'GET', path: '/api/health/', headers: {} })),
    };
    const orders = {
      saturated: await cpu(() => orderRun(server.url, traders)),
      at_rate: await atRate((i) => orderRequest(i, traders[i % TRADERS])),
    };
    const report = {
      operations: OPERATIONS ? 'metrics and rate limits on' : 'metrics and rate limits off',
      traders: TRADERS,
      seconds_per_run: SECONDS,
      offered_rate_per_second: RATE,
      idempotency_keys: WITH_KEY,
      health,
      place_market_order: orders,
      orders_vs_health_throughput: Number(
        (orders.saturated.requests_per_second / health.saturated.requests_per_second).toFixed(2),
      ),
      database: benchDb,
      goal: GOAL,
    };
    if (OPERATIONS) {
      // The metrics really counted the run (a scrape as Prometheus would make it).
      const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      const text = await res.text();
      report.metrics_orders_filled = text
        .split('\n')
        .filter((line) => line.startsWith('pipdesk_orders_total{') && line.includes('outcome="filled"'))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    }
    report.goal_met =
      orders.saturated.requests_per_second >= GOAL.orders_per_second &&
      orders.at_rate.latency_ms.p99 <= GOAL.p99_ms_at_1000_per_second &&
      orders.saturated.non_2xx + orders.at_rate.non_2xx === 0 &&
      orders.saturated.errors + orders.at_rate.errors === 0;
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await server.stop();
  }
}
