// Shared by bench/trading-socket.mjs and bench/prices-socket.mjs: the external price feed the
// benchmark drives (so it knows when each tick left), the built server started on it with its
// log on standard output (the server's own fan-out timing lines, LOG_LEVEL=debug), client
// processes (so the clients' JSON parsing does not share one event loop with the feed), and
// latency histograms that add up across processes.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { WebSocketServer } from 'ws';
import { freePort, root, sleep } from './lib.mjs';

export const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

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
 * Starts `server/dist/main.js` on `dataDir` with the feed as its price source. Its JSON log
 * lines on standard output go to `onLog` (the fan-out timing lines need LOG_LEVEL=debug).
 */
export async function startServerOnFeed(dataDir, feedUrl, { nodeArgs = [], env = {}, onLog = () => {} } = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'server/dist/main.js')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      JWT_SECRET,
      PRICE_SOURCE: 'external',
      EXTERNAL_FEED_URL: feedUrl,
      CHART_HISTORY_DAYS: '0',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      WEB_DIST: path.join(dataDir, 'no-web'),
      RATE_LIMITS: 'false',
      METRICS_TOKEN: '',
      METRICS_PORT: '',
      ...env,
    },
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    try {
      onLog(JSON.parse(line));
    } catch {}
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/api/health/`);
      if (res.ok && (await res.json()).data?.price_source?.connected) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('server did not become healthy');
    await sleep(200);
  }
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

/** Resident memory of a process in bytes (Linux /proc). */
export function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) * 1024;
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

/** The current fd limit of this shell's processes (10,000 sockets need two fds each on one machine). */
export function fdLimit() {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    return Number(/Max open files\s+(\d+)/.exec(limits)[1]);
  } catch {
    return undefined;
  }
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

/** The share of `seconds` the main thread ran and waited to run, between two `mainThreadSchedule` readings. */
export function scheduleShare(before, after, seconds) {
  if (!before || !after) return null;
  const pct = (ms) => Number(((ms / (seconds * 1000)) * 100).toFixed(1));
  return {
    running_percent: pct(after.onCpuMs - before.onCpuMs),
    waiting_for_cpu_percent: pct(after.waitingMs - before.waitingMs),
  };
}
