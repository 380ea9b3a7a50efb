// Price socket benchmark: N /ws/prices/ subscribers on one server process, tick-to-client
// latency (p50/p99) and server CPU while the simulator runs at its normal rate.
//
//   npx tsc -b server/tsconfig.json && node bench/prices-socket.mjs [--clients 1000] [--seconds 20] [--symbol all|EURUSD] [--workers 2] [--url http://host:port]
//
// Without --url it starts `node server/dist/main.js` on a free port with a fresh SQLite
// database in a temp folder (one day of chart history: the backfill is not what is measured)
// and stops it at the end. Latency = arrival time at the client − the tick's timestamp, which
// the server stamps when the price source creates the tick (same machine, same clock). The
// clients are spread over worker threads so one client event loop is not the bottleneck.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { pairSymbols, parseArgs, processCpuSeconds, root, sleep, startServer } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const CLIENTS = Number(args.clients ?? 1000);
const WORKERS = Math.max(1, Number(args.workers ?? 2));
const SECONDS = Number(args.seconds ?? 20);
const WARMUP_SECONDS = 3;
const symbolFor = (symbols, i) =>
  args.symbol && args.symbol !== 'all' ? args.symbol.toUpperCase() : symbols[i % symbols.length];

/** A fresh server on a temp SQLite database with a day of chart history (the socket's gap fill reads it). */
async function startFreshServer() {
  if (!existsSync(path.join(root, 'server/dist/main.js'))) {
    throw new Error('server/dist/main.js is missing: run `npx tsc -b server/tsconfig.json` first');
  }
  return startServer(mkdtempSync(path.join(tmpdir(), 'pipdesk-bench-')), { env: { CHART_HISTORY_DAYS: '1' } });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A worker thread: opens its share of the subscribers, then measures when told to. */
async function runClients({ wsUrl, from, to, symbols }) {
  let measuring = false;
  const latencies = [];
  let priceUpdates = 0;
  let chartUpdates = 0;
  let errors = 0;
  const sockets = [];
  for (let i = from; i < to; i += 50) {
    const batch = [];
    for (let j = i; j < Math.min(to, i + 50); j++) {
      const socket = new WebSocket(wsUrl, { perMessageDeflate: false });
      sockets.push(socket);
      socket.on('message', (data) => {
        const now = Date.now();
        const message = JSON.parse(data.toString());
        if (!measuring) return;
        if (message.type === 'price_update') {
          priceUpdates++;
          latencies.push(now - Date.parse(message.timestamp));
        } else if (message.type === 'chart_update') chartUpdates++;
        else if (message.type === 'error') errors++;
      });
      batch.push(
        new Promise((resolve, reject) => {
          socket.once('open', () => {
            socket.send(JSON.stringify({ type: 'subscribe_prices', symbol: symbolFor(symbols, j), timeframe: '1m' }));
            resolve();
          });
          socket.once('error', reject);
        }),
      );
    }
    await Promise.all(batch);
  }
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  parentPort.on('message', (command) => {
    if (command === 'measure') {
      measuring = true;
      loopDelay.enable();
    } else if (command === 'stop') {
      measuring = false;
      loopDelay.disable();
      const open = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
      for (const s of sockets) s.terminate();
      parentPort.postMessage({
        latencies,
        priceUpdates,
        chartUpdates,
        errors,
        open,
        loopP99: loopDelay.percentile(99) / 1e6,
        loopP50: loopDelay.percentile(50) / 1e6,
      });
    }
  });
  parentPort.postMessage('ready');
}

async function main() {
  const server = args.url ? { url: args.url, pid: undefined, stop: async () => {} } : await startFreshServer();
  const wsUrl = `${server.url.replace(/^http/, 'ws')}/ws/prices/`;
  console.log(
    `server ${server.url}${server.pid ? ` (pid ${server.pid})` : ''}; opening ${CLIENTS} subscribers in ${WORKERS} worker(s)...`,
  );

  const symbols = await pairSymbols();
  const workers = [];
  for (let w = 0; w < WORKERS; w++) {
    const from = Math.floor((CLIENTS * w) / WORKERS);
    const to = Math.floor((CLIENTS * (w + 1)) / WORKERS);
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { wsUrl, from, to, symbols },
      argv: process.argv.slice(2),
    });
    workers.push(worker);
  }
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  console.log(
    `${CLIENTS} subscribed (${args.symbol && args.symbol !== 'all' ? args.symbol : `spread over ${symbols.length} pairs`}); warming up ${WARMUP_SECONDS} s...`,
  );
  await sleep(WARMUP_SECONDS * 1000);

  const serverCpu0 = server.pid ? processCpuSeconds(server.pid) : undefined;
  const clientCpu0 = process.cpuUsage();
  const started = performance.now();
  for (const w of workers) w.postMessage('measure');
  await sleep(SECONDS * 1000);
  const results = await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          w.once('message', resolve);
          w.postMessage('stop');
        }),
    ),
  );
  const elapsed = (performance.now() - started) / 1000;
  const serverCpu1 = server.pid ? processCpuSeconds(server.pid) : undefined;
  const clientCpu = process.cpuUsage(clientCpu0);
  for (const w of workers) await w.terminate();
  await server.stop();

  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const sum = (k) => results.reduce((s, r) => s + r[k], 0);
  const open = sum('open');
  const result = {
    clients: CLIENTS,
    open_at_end: open,
    seconds: Number(elapsed.toFixed(1)),
    price_updates_per_second: Math.round(sum('priceUpdates') / elapsed),
    chart_updates_per_second: Math.round(sum('chartUpdates') / elapsed),
    errors: sum('errors'),
    latency_ms: {
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
    },
    server_cpu_percent:
      serverCpu0 !== undefined && serverCpu1 !== undefined
        ? Number((((serverCpu1 - serverCpu0) / elapsed) * 100).toFixed(1))
        : null,
    bench_client_event_loop_delay_ms: {
      p50: Number(Math.max(...results.map((r) => r.loopP50)).toFixed(1)),
      p99: Number(Math.max(...results.map((r) => r.loopP99)).toFixed(1)),
    },
    bench_client_cpu_percent: Number((((clientCpu.user + clientCpu.system) / 1e6 / elapsed) * 100).toFixed(1)),
  };
  console.log(JSON.stringify(result, null, 2));
  const goal = result.latency_ms.p99 < 50;
  console.log(`p99 ${result.latency_ms.p99} ms: ${goal ? 'meets' : 'MISSES'} the goal of < 50 ms`);
  process.exit(goal && open === CLIENTS ? 0 : 1);
}

if (isMainThread) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  runClients(workerData).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
