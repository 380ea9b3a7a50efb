// Shared by bench/trading-socket.mjs and bench/prices-socket.mjs: the external price feed the
// benchmark drives (so it knows when each tick left), the built server started on it with its
// log on standard output (the server's own fan-out timing lines, LOG_LEVEL=debug), client
// processes (so the clients' JSON parsing does not share one event loop with the feed) and
// their command loop, the measured window both benches time the same way, and latency
// histograms that add up across processes.
import { fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { WebSocketServer } from 'ws';
import {
  benchDb,
  freePort,
  mainThreadSchedule,
  processCpuSeconds,
  serverNodeArgsFromEnv,
  sleep,
  spawnServer,
  untilHealthy,
} from './lib.mjs';

// The fan-out never touches the database per tick, so the socket benches run on SQLite only
// (--db postgres would seed a schema the server never reads).
if (benchDb !== 'sqlite') throw new Error('The socket benchmarks run on SQLite only: drop --db / BENCH_DB.');

/** Milliseconds since the epoch with sub-millisecond precision, comparable across processes on one machine. */
export const wallNow = () => performance.timeOrigin + performance.now();

export const START_MID = {
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

/**
 * The server's external feed (server/src/market/sources/EXTERNAL_FEED.md). Every pair once on
 * connect; then, while running, each pair ticks once a second, the pairs spread evenly over the
 * second. Each tick of a pair raises its bid by one point, so a (symbol, bid) names one tick:
 * `sentAt` maps `${symbol} ${bid}` → the wall time it left.
 */
export async function startFeed(symbols) {
  const port = await freePort();
  const wss = new WebSocketServer({ port, host: '127.0.0.1', perMessageDeflate: false });
  const steps = Object.fromEntries(symbols.map((s) => [s, 0]));
  const sentAt = new Map();
  let ticking = null;
  let sent = 0;
  const quote = (symbol) => {
    const digits = symbol.endsWith('JPY') ? 3 : 5;
    const point = 10 ** -digits;
    const bid = Number(((START_MID[symbol] ?? 1) + steps[symbol] * point).toFixed(digits));
    return { symbol, bid, ask: Number((bid + 2 * point).toFixed(digits)) };
  };
  const sendAll = () => {
    const frame = JSON.stringify({ type: 'ticks', ticks: symbols.map(quote) });
    for (const client of wss.clients) client.send(frame);
  };
  wss.on('connection', sendAll);
  // A quiet feed is dropped after 10 s: the same prices again every 3 s while not ticking.
  const heartbeat = setInterval(() => ticking === null && sendAll(), 3_000);
  return {
    url: `ws://127.0.0.1:${port}`,
    sentAt,
    sent: () => sent,
    connected: () => wss.clients.size > 0,
    /** One tick a second per pair, pair i at i/N of each second. */
    start() {
      const started = performance.now();
      let due = 0;
      const next = () => {
        const symbol = symbols[due % symbols.length];
        steps[symbol]++;
        const tick = quote(symbol);
        const frame = JSON.stringify({ type: 'tick', ...tick });
        sentAt.set(`${symbol} ${tick.bid}`, wallNow());
        for (const client of wss.clients) client.send(frame);
        sent++;
        due++;
        ticking = setTimeout(next, Math.max(0, started + (due * 1000) / symbols.length - performance.now()));
      };
      ticking = setTimeout(next, 0);
    },
    stopTicking() {
      clearTimeout(ticking);
      ticking = null;
    },
    stop() {
      clearTimeout(ticking);
      clearInterval(heartbeat);
      for (const client of wss.clients) client.terminate();
      return new Promise((resolve) => wss.close(resolve));
    },
  };
}

/**
 * Starts `server/dist/main.js` on `dataDir` with the feed as its price source, at LOG_LEVEL=debug:
 * the server then logs each fan-out's tick → last write (its request log is debug too, quiet
 * while measuring). Its JSON log lines on standard output go to `onLog`. BENCH_SERVER_NODE_ARGS
 * passes node flags to the server (e.g. to profile it).
 */
export async function startServerOnFeed(dataDir, feedUrl, onLog) {
  const nodeArgs = serverNodeArgsFromEnv();
  const spawned = await spawnServer(dataDir, {
    nodeArgs,
    // The socket benches run on SQLite (their figures are recorded as such).
    env: { DATABASE_URL: '', PRICE_SOURCE: 'external', EXTERNAL_FEED_URL: feedUrl, LOG_LEVEL: 'debug' },
    stdout: 'pipe',
  });
  const { child, url } = spawned;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    try {
      onLog(JSON.parse(line));
    } catch {}
  });
  await untilHealthy(spawned);
  return {
    url,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Stops what a socket bench started (whichever of it did start) and removes its data folder. */
export async function stopAll({ clients, server, feed, dataDir }) {
  await clients?.stop();
  await server?.stop();
  await feed?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** Resident memory of a process in bytes (Linux /proc). */
export function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) * 1024;
}

// ---------------------------------------------------------------- the measured window

/**
 * Starts the feed ticking, lets it run `warmupSeconds` unmeasured, then measures `seconds`:
 * `setMeasuring(true)` and the client processes told to note arrivals, then both stopped. The
 * feed stops ticking and the clients are asked for their results (given the feed's send times).
 * Returns their answers and the window's figures common to both socket benches.
 */
export async function measureWindow({ feed, server, clients, seconds, warmupSeconds, log, setMeasuring }) {
  feed.start();
  await sleep(warmupSeconds * 1000);
  log(`measuring ${seconds} s`);
  const cpu0 = processCpuSeconds(server.pid);
  const schedule0 = mainThreadSchedule(server.pid);
  const clientCpu0 = clients.pids.map(processCpuSeconds);
  const t0 = performance.now();
  const ticks0 = feed.sent();
  setMeasuring(true);
  await clients.all({ type: 'measure' });
  await sleep(seconds * 1000);
  await clients.all({ type: 'pause' });
  setMeasuring(false);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = processCpuSeconds(server.pid);
  const schedule1 = mainThreadSchedule(server.pid);
  const clientCpu1 = clients.pids.map(processCpuSeconds);
  const ticks = feed.sent() - ticks0;
  feed.stopTicking();
  await sleep(500);
  const answers = await clients.all({ type: 'results', sentAt: [...feed.sentAt] });
  return {
    answers,
    seconds: Number(elapsed.toFixed(1)),
    ticks_per_second: Number((ticks / elapsed).toFixed(1)),
    server_cpu_percent: Number((((cpu1 - cpu0) / elapsed) * 100).toFixed(1)),
    // Runnable but not running: time the machine's other load took from the server's event loop.
    server_main_thread: scheduleShare(schedule0, schedule1, elapsed),
    client_cpu_percent: Number((clientCpu1.reduce((s, c, i) => s + c - clientCpu0[i], 0) / elapsed / 0.01).toFixed(1)),
    client_event_loop_delay_p99_ms: Math.max(...answers.map((a) => a.loopP99)),
  };
}

// ---------------------------------------------------------------- latency histograms

/** 0.1 ms buckets: exact enough for a p99 and small enough to send between processes. */
const BUCKET_MS = 0.1;

export function histogram() {
  return new Map();
}

export function addSample(hist, ms) {
  const bucket = Math.max(0, Math.round(ms / BUCKET_MS));
  hist.set(bucket, (hist.get(bucket) ?? 0) + 1);
}

export function mergeInto(hist, entries) {
  for (const [bucket, count] of entries) hist.set(bucket, (hist.get(bucket) ?? 0) + count);
}

/** p50/p99/max and the count of a histogram, in ms. */
export function summarize(hist) {
  const buckets = [...hist.entries()].sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((n, [, c]) => n + c, 0);
  const at = (p) => {
    if (total === 0) return null;
    const rank = Math.ceil((p / 100) * total);
    let seen = 0;
    for (const [bucket, count] of buckets) {
      seen += count;
      if (seen >= rank) return Math.round(bucket * BUCKET_MS * 10) / 10;
    }
    return null;
  };
  return {
    samples: total,
    p50_ms: at(50),
    p99_ms: at(99),
    max_ms: total ? Math.round(buckets.at(-1)[0] * BUCKET_MS * 10) / 10 : null,
  };
}

/** Summary of plain samples (ms), e.g. the server's own fan-out times. */
export function summarizeList(list) {
  const hist = histogram();
  for (const ms of list) addSample(hist, ms);
  return summarize(hist);
}

// ---------------------------------------------------------------- client processes

/**
 * Forks `procs` copies of `script` with `--client`, hands each its share of `items`, and
 * returns handles to command them. A client process answers every command with one message.
 */
export async function forkClients(script, procs, items, shared) {
  const clients = [];
  for (let p = 0; p < procs; p++) {
    const share = items.slice(Math.floor((items.length * p) / procs), Math.floor((items.length * (p + 1)) / procs));
    const child = fork(script, ['--client'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    clients.push({ child, share });
  }
  const ask = (client, command) =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`client process exited with ${code}`));
      client.child.once('exit', onExit);
      client.child.once('message', (answer) => {
        client.child.off('exit', onExit);
        resolve(answer);
      });
      client.child.send(command);
    });
  await Promise.all(clients.map((c) => ask(c, { type: 'open', items: c.share, ...shared })));
  return {
    pids: clients.map((c) => c.child.pid),
    /** Sends a command to every client process; resolves with their answers. */
    all: (command) => Promise.all(clients.map((c) => ask(c, command))),
    stop: async () => {
      for (const c of clients) if (c.child.exitCode === null) c.child.kill('SIGTERM');
      await Promise.all(clients.map((c) => (c.child.exitCode === null ? new Promise((r) => c.child.once('exit', r)) : 0)));
    },
  };
}

/** Notes one arrival of the tick `key` (`${symbol} ${bid}`) at wall time `at`. */
export function noteArrival(arrivals, key, at) {
  const list = arrivals.get(key);
  if (list) list.push(at);
  else arrivals.set(key, [at]);
}

/** The latencies of noted arrivals (arrival − the feed's send of that tick), as histogram entries to send back. */
export function arrivalLatencies(arrivals, sentAt) {
  const hist = histogram();
  for (const [key, times] of arrivals) {
    const sent = sentAt.get(key);
    if (sent === undefined) continue;
    for (const at of times) addSample(hist, at - sent);
  }
  return [...hist];
}

/**
 * A client process's side of `forkClients`: `open(items, wsUrl)` opens its share of `sockets`;
 * `measure` and `pause` switch `setMeasuring` and the event-loop delay monitor; `results`
 * answers `results(sentAt)` (the feed's send times) with the loop delay's p99. SIGTERM ends it.
 */
export function answerCommands({ sockets, open, setMeasuring, results }) {
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  process.on('message', async (command) => {
    if (command.type === 'open') {
      await open(command.items, command.wsUrl);
      process.send({ opened: sockets.length });
    } else if (command.type === 'measure') {
      setMeasuring(true);
      loopDelay.enable();
      process.send({});
    } else if (command.type === 'pause') {
      setMeasuring(false);
      loopDelay.disable();
      process.send({});
    } else if (command.type === 'results') {
      // Closed from here on by the benchmark itself, not counted.
      for (const ws of sockets) ws.closing = true;
      process.send({ ...results(new Map(command.sentAt)), loopP99: Number((loopDelay.percentile(99) / 1e6).toFixed(1)) });
    }
  });
  process.on('SIGTERM', () => {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  });
}

/** The fd limit, after checking it is enough for `sockets`: the server holds one fd per socket (the client processes split the other ends). */
export function checkFdLimit(sockets) {
  const limit = fdLimit();
  if (limit !== undefined && limit < sockets + 200)
    throw new Error(`ulimit -n is ${limit}: ${sockets} sockets need about ${sockets + 200} (raise it with ulimit -n)`);
  return limit;
}

/** The current fd limit of this shell's processes (10,000 sockets need two fds each on one machine). */
export function fdLimit() {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    return Number(/Max open files\s+(\d+)/.exec(limits)[1]);
  } catch {
    return undefined;
  }
}

/** The share of `seconds` the main thread ran and waited to run, between two `mainThreadSchedule` readings. */
export function scheduleShare(before, after, seconds) {
  if (!before || !after) return null;
  const pct = (ms) => Number(((ms / (seconds * 1000)) * 100).toFixed(1));
  return {
    running_percent: pct(after.onCpuMs - before.onCpuMs),
    waiting_for_cpu_percent: pct(after.waitingMs - before.waitingMs),
  };
}
