// What one refusal costs the server (docs/operations.md#overload): under overload the node's
// thread answers every refused call too, so the cheaper a 503 the more of the thread is left for
// the orders it admitted (bench/overload.mjs).
//
//   node bench/refusal.mjs [--seconds 5] [--connections 50] [--no-record]
//
// Starts the built server with the event-loop utilization limit at 0.0001, so once it has
// sampled three busy seconds every /api call is refused, then sends place-market-order
// saturated over `--connections` connections for `--seconds` with autocannon and reports the
// refusals/s and the server's main thread's CPU per refusal (/proc/<pid>/task/<pid>/schedstat),
// beside the same for GET /api/health/ (never refused) as the floor of any answer. Records
// `refusal.sqlite`; exits 1 when a call answered anything but 503.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { buildServer, mainThreadSchedule, parseArgs, prepareDatabase, sleep, startServer, summary } from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.seconds ?? 5);
const CONNECTIONS = Number(args.connections ?? 50);

/** autocannon saturated on `options`; the answers and the main thread's CPU µs per answer. */
async function measure(server, options) {
  const before = mainThreadSchedule(server.pid);
  const result = await new Promise((resolve, reject) =>
    autocannon({ url: server.url, connections: CONNECTIONS, duration: SECONDS, ...options }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );
  const after = mainThreadSchedule(server.pid);
  const figures = summary(result);
  return {
    ...figures,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])),
    server_main_thread_us_per_answer:
      before && after ? Number((((after.onCpuMs - before.onCpuMs) * 1000) / figures.requests).toFixed(1)) : null,
  };
}

buildServer();
const { dataDir, traders } = await prepareDatabase(1);
const server = await startServer(dataDir, { env: { OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0.0001' } });
try {
  // Three one-second samples over the limit before the node sheds.
  await sleep(4000);
  const health = await measure(server, { requests: [{ method: 'GET', path: '/api/health/' }] });
  const refused = await measure(server, {
    requests: [
      {
        method: 'POST',
        path: '/api/trading/place-market-order/',
        setupRequest: (request) => ({
          ...request,
          headers: {
            'content-type': 'application/json',
            authorization: traders[0].authorization,
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ symbol: 'EURUSD', side: 'BUY', quantity: 0.01 }),
        }),
      },
    ],
  });
  const allRefused = Object.keys(refused.statuses).every((code) => code === '503') && refused.errors === 0;
  console.log(JSON.stringify({ health, refused, all_refused: allRefused }, null, 2));
  record('refusal.sqlite', {
    'refusals/s': { value: refused.requests_per_second, better: 'higher' },
    'server µs per refusal': { value: refused.server_main_thread_us_per_answer, better: 'lower' },
    'server µs per health answer': { value: health.server_main_thread_us_per_answer, better: 'lower' },
  });
  process.exitCode = allRefused ? 0 : 1;
} finally {
  await server.stop();
}
