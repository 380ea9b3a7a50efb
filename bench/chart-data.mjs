// Chart-data benchmark (docs/charting.md#timeframes-and-history): the timeframe reads on a new
// install's history.
//
//   node bench/chart-data.mjs [--requests 300] [--db postgres] [--days 31] [--hourly-days 366] [--no-record]
//
// Builds the server and starts it on a fresh database with CHART_HISTORY_DAYS=--days and
// CHART_HOURLY_HISTORY_DAYS=--hourly-days, so it backfills as a first start does (`startup_ms`,
// spawn to healthy, is mostly that backfill). Then each call is requested --requests times one after
// the other (after 20 unrecorded warm-up requests), the pair cycling over the 12 of the
// catalogue, timed from send to the last byte: p50, p99 and max. The simulator ticks meanwhile,
// so the forming candles are rebuilt from memory on every read as in production.
// Goal: p99 ≤ 20 ms for h1 limit=1000 and for d1 over the whole history (limit=1000).
// Prints a JSON summary, records it (bench/results.mjs: `chart-data.sqlite` /
// `chart-data.postgres`) and exits 1 when the goal is missed.
import { Agent, request as httpRequest } from 'node:http';
import { benchDb, buildServer, pairSymbols, parseArgs, prepareDatabase, startServer } from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const REQUESTS = Number(args.requests ?? 300);
const DAYS = String(args.days ?? 31);
const HOURLY_DAYS = String(args['hourly-days'] ?? 366);
const GOAL_MS = 20;
const HOUR = 3_600_000;

/** `count` requests one after the other (after `warmup` unrecorded), the path from `pathFor(n)`. */
async function timeCall(url, pathFor, authorization, count = REQUESTS, warmup = 20) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const once = (n) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: pathFor(n), headers: { authorization }, agent },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  const latencies = [];
  let non2xx = 0;
  let candles = 0;
  for (let n = 0; n < warmup + count; n++) {
    const answer = await once(n);
    if (n < warmup) continue;
    latencies.push(answer.ms);
    if (answer.status < 200 || answer.status > 299) non2xx += 1;
    else candles = JSON.parse(answer.body.toString('utf8')).data.length;
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p) => Number(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2));
  return { p50: at(50), p99: at(99), max: Number(latencies.at(-1).toFixed(2)), requests: count, non_2xx: non2xx, candles };
}

buildServer();
const symbols = await pairSymbols();
const { dataDir, traders } = await prepareDatabase(1);
const [{ authorization }] = traders;
const started = performance.now();
const server = await startServer(dataDir, { env: { CHART_HISTORY_DAYS: DAYS, CHART_HOURLY_HISTORY_DAYS: HOURLY_DAYS } });
// startServer waits 1.5 s after the first healthy answer for every pair to quote.
const startupMs = Math.round(performance.now() - started - 1500);
try {
  const url = (query) => (n) => `/api/trading/pair/${symbols[n % symbols.length]}/chart-data/?${query}`;
  const yearAgo = Date.now() - 360 * 24 * HOUR;
  const CALLS = {
    h1_limit_1000: url('timeframe=h1&limit=1000'),
    d1_whole_history: url('timeframe=d1&limit=1000'),
    h1_page_a_year_back: url(`timeframe=h1&limit=1000&before=${yearAgo - (yearAgo % HOUR)}`),
    h4_default: url('timeframe=h4'),
    m1_limit_1000: url('timeframe=m1&limit=1000'),
    m30_limit_1000: url('timeframe=m30&limit=1000'),
    range_1m: url('range=1m'),
  };
  const results = {};
  for (const [name, pathFor] of Object.entries(CALLS)) {
    results[name] = await timeCall(server.url, pathFor, authorization);
    console.error(`${name}: p50 ${results[name].p50} ms, p99 ${results[name].p99} ms (${results[name].candles} candles)`);
  }
  const goalCalls = ['h1_limit_1000', 'd1_whole_history'];
  const report = {
    db: benchDb,
    history: { minute_days: Number(DAYS), hourly_days: Number(HOURLY_DAYS) },
    startup_ms: startupMs,
    requests_per_call: REQUESTS,
    results,
    goal: { p99_ms: GOAL_MS, for: goalCalls },
  };
  report.goal_met =
    results.h1_limit_1000.candles === 1000 &&
    results.d1_whole_history.candles >= 366 &&
    goalCalls.every((c) => results[c].p99 <= GOAL_MS) &&
    Object.values(results).every((r) => r.non_2xx === 0);
  console.log(JSON.stringify(report, null, 2));
  record(`chart-data.${benchDb}`, {
    'start-up with backfill ms': { value: startupMs, better: 'lower' },
    ...Object.fromEntries(
      Object.entries(results).flatMap(([name, r]) => [
        [`${name} p50 ms`, { value: r.p50, better: 'lower' }],
        [`${name} p99 ms`, { value: r.p99, better: 'lower' }],
      ]),
    ),
  });
  process.exitCode = report.goal_met ? 0 : 1;
} finally {
  await server.stop();
}
