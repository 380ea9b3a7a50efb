// Soak (issue 36): the default install (SQLite, in-process bus, rate limits on) under a steady
// mixed load for a long time, to show that memory stays flat once warm and latency does not drift.
//
//   node bench/soak.mjs [--minutes 120] [--scale 1] [--warmup-minutes 5] [--sample-seconds 60]
//                       [--traders 200] [--skip-build]
//
// The load at --scale 1 (each rate is multiplied by --scale), open loop (each call is due at its
// time whatever the answers before it; latency counts from the due time, see pacedRun in lib.mjs):
// - 60 market orders a second: 55 of them cycle every trader over seven majors, buying for one
//   turn and selling the same quantity the next, so about half of them close a position by
//   netting (every third carries a far stop loss, so protections arm and disarm); 5 open a
//   0.01 EURGBP position that the close stream closes
// - 5 closes a second (`close-position/{id}/`), 2 s after their position opened
// - 10 pending orders a second: LIMITs 30% away from the price, GTD three minutes; every second
//   one is cancelled 30 s later, the others expire, so the resting book stays bounded
// - 100 reads a second: platform-data and the order list, half each
// - 500 trading sockets (2–3 a trader, subscribed to P&L) and 200 price sockets (two pairs each),
//   held by a child process so that their messages do not delay this process's timers.
// The server runs with `node --expose-gc` and DIAGNOSTIC_HEAP_SIGNAL=true: every --sample-seconds
// this script sends it SIGUSR2 and reads back the heap left after a full collection and the RSS
// (docs/operations.md#memory). Each interval prints the heap, the RSS, the market orders' p50/p99,
// every call's p99, the rate achieved and non-2xx answers, and sockets dropped.
// At the end: the heap slope after the warm-up (MB an hour, least squares), and the p99 drift
// (the median market p99 of the last quarter of the intervals after warm-up over the first
// quarter's). Exits 1 when the heap grows more than HEAP_SLOPE_LIMIT_MB_PER_HOUR, the p99
// drifts more than P99_DRIFT_LIMIT (ratio) and P99_DRIFT_FLOOR_MS, any call failed or a socket
// dropped. bench/README.md#soak-soakmjs has the figures.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { buildServer, pairSymbols, parseArgs, prepareDatabase, sleep, spawnServer, untilHealthy } from './lib.mjs';

/** Heap after collection may grow at most this much an hour once warm (2 h: 10 MB; the leak of issue 36 was ~29 MB/h). */
const HEAP_SLOPE_LIMIT_MB_PER_HOUR = 5;
/** The market p99 of the last quarter may exceed the first quarter's by at most this ratio… */
const P99_DRIFT_LIMIT = 1.25;
/** …or by at most this many ms (on a shared machine a few ms come and go). */
const P99_DRIFT_FLOOR_MS = 5;

const args = parseArgs(process.argv.slice(2));
if (process.argv.includes('--sockets')) runSocketClients();
else await main();

async function main() {
  const MINUTES = Number(args.minutes ?? 120);
  const SCALE = Number(args.scale ?? 1);
  const WARMUP_MINUTES = Number(args['warmup-minutes'] ?? Math.min(5, MINUTES / 4));
  const SAMPLE_SECONDS = Number(args['sample-seconds'] ?? 60);
  const TRADERS = Number(args.traders ?? 200);
  const TRADING_SOCKETS = Math.round(500 * Math.min(1, SCALE));
  const PRICE_SOCKETS = Math.round(200 * Math.min(1, SCALE));
  const rate = { market: 55 * SCALE, opener: 5 * SCALE, pending: 10 * SCALE, read: 100 * SCALE };
  const log = (...a) => console.error(`[soak ${new Date().toISOString().slice(11, 19)}]`, ...a);

  if (!process.argv.includes('--skip-build')) buildServer();
  const symbols = await pairSymbols();
  log(`seeding ${TRADERS} traders`);
  const { dataDir, traders } = await prepareDatabase(TRADERS, { perTransaction: 100 });
  const spawned = await spawnServer(dataDir, {
    nodeArgs: ['--expose-gc'],
    stdout: 'pipe',
    env: {
      PRICE_SOURCE: 'simulator',
      PRICE_SEED: '20260401',
      // The default install: rate limits on (each trader's load is far below them).
      RATE_LIMITS: 'true',
      DIAGNOSTIC_HEAP_SIGNAL: 'true',
    },
  });
  const { child, url } = spawned;
  const heapLines = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    try {
      const parsed = JSON.parse(line);
      if (parsed.msg === 'heap after gc') heapLines.push(parsed);
    } catch {}
  });
  await untilHealthy(spawned);
  log(`server ${url} (pid ${child.pid})`);
  const heapNow = async () => {
    const seen = heapLines.length;
    child.kill('SIGUSR2');
    for (let i = 0; i < 200 && heapLines.length === seen; i++) await sleep(50);
    const line = heapLines.at(-1);
    if (heapLines.length === seen || !line.collected) throw new Error('the server did not answer SIGUSR2 with a collection');
    return { heapMb: line.heap_used / 2 ** 20, rssMb: line.rss / 2 ** 20 };
  };

  // The latest mid of each pair, for prices away from the market (one price socket of our own).
  const mids = await watchMids(url, symbols);

  const sockets = fork(new URL(import.meta.url).pathname, ['--sockets'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const socketReport = () =>
    new Promise((resolve) => {
      sockets.once('message', resolve);
      sockets.send({ type: 'report' });
    });
  sockets.send({
    type: 'open',
    url: url.replace('http', 'ws'),
    tokens: traders.map((t) => t.authorization.slice('Bearer '.length)),
    tradingSockets: TRADING_SOCKETS,
    priceSockets: PRICE_SOCKETS,
    symbols,
  });
  await new Promise((resolve) => sockets.once('message', resolve));
  log(`${TRADING_SOCKETS} trading and ${PRICE_SOCKETS} price sockets open`);

  const agent = new Agent({ keepAlive: true, maxSockets: 128 });
  const target = new URL(url);
  /** Latencies (ms from the due time) and statuses of the current interval, per kind of call. */
  let interval = newInterval();
  const totals = { calls: 0, non2xx: 0, errors: 0, byStatus: {} };
  let closedPositions = 0;
  let resets = 0;
  const call = (kind, due, method, path, trader, body, headers = {}, retried = false) =>
    new Promise((resolve) => {
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method,
          path,
          agent,
          headers: {
            authorization: trader.authorization,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const ms = performance.now() - due;
            interval.latencies[kind] ??= [];
            interval.latencies[kind].push(ms);
            totals.calls += 1;
            if (res.statusCode < 200 || res.statusCode >= 300) {
              totals.non2xx += 1;
              interval.non2xx += 1;
              const key = `${kind} ${res.statusCode}`;
              totals.byStatus[key] = (totals.byStatus[key] ?? 0) + 1;
              if (totals.non2xx <= 5) log(`${key}: ${Buffer.concat(chunks).toString().slice(0, 300)}`);
              return resolve(undefined);
            }
            let answer;
            try {
              answer = JSON.parse(Buffer.concat(chunks).toString());
            } catch {}
            // Positions closed (by netting or by a close): what issue 36's leak grew with.
            if (answer?.data?.position?.status === 'CLOSED') closedPositions += 1;
            resolve(answer);
          });
        },
      );
      req.on('error', (err) => {
        // A kept-alive socket the server closed as idle just as it was reused: the request never
        // reached the server, so it is sent again once on a new socket (Node's documented pattern).
        if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) {
          resets += 1;
          return resolve(call(kind, due, method, path, trader, body, headers, true));
        }
        totals.errors += 1;
        interval.errors += 1;
        if (totals.errors <= 5) log(`${kind} error: ${err.message}`);
        resolve(undefined);
      });
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  const MAJORS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'USDCAD', 'NZDUSD'];
  const farFrom = (symbol, factor) => {
    const digits = symbol.includes('JPY') ? 3 : 5;
    return Number((mids.get(symbol) * factor).toFixed(digits));
  };
  const streams = {
    // Trader k % N on major ⌊k / N⌋ % 7: a turn over every trader and major buys, the next sells
    // the same quantity back, closing each position by netting.
    market: (k, due) => {
      const trader = traders[k % TRADERS];
      const symbol = MAJORS[Math.floor(k / TRADERS) % MAJORS.length];
      const buying = Math.floor(k / (TRADERS * MAJORS.length)) % 2 === 0;
      const body = { symbol, side: buying ? 'BUY' : 'SELL', quantity: (1 + ((k % TRADERS) % 5)) / 100 };
      if (buying && k % 3 === 0) body.stop_loss = farFrom(symbol, 0.9);
      return call('market', due, 'POST', '/api/trading/place-market-order/', trader, body, { 'idempotency-key': randomUUID() });
    },
    // A 0.01 EURGBP position for trader k % N, closed 2 s later (the trader's next is 40 s away at scale 1).
    opener: async (k, due) => {
      const trader = traders[k % TRADERS];
      const answer = await call('market', due, 'POST', '/api/trading/place-market-order/', trader, {
        symbol: 'EURGBP',
        side: 'BUY',
        quantity: 0.01,
      });
      const id = answer?.data?.position?.id;
      if (id === undefined) return;
      await sleep(2000);
      await call('close', performance.now(), 'POST', `/api/trading/close-position/${id}/`, trader, {});
    },
    pending: async (k, due) => {
      const trader = traders[(k * 7) % TRADERS];
      const symbol = MAJORS[k % MAJORS.length];
      const buying = k % 4 < 2;
      const answer = await call(
        'pending',
        due,
        'POST',
        '/api/trading/place-pending-order/',
        trader,
        {
          symbol,
          side: buying ? 'BUY' : 'SELL',
          order_type: 'LIMIT',
          quantity: 0.01,
          price: farFrom(symbol, buying ? 0.7 : 1.3),
          time_in_force: 'GTD',
          expires_at: new Date(Date.now() + 180_000).toISOString(),
        },
        { 'idempotency-key': randomUUID() },
      );
      const id = answer?.data?.order?.id;
      if (id === undefined || k % 2 === 1) return;
      await sleep(30_000);
      await call('cancel', performance.now(), 'POST', `/api/trading/orders/${id}/cancel/`, trader, {});
    },
    read: (k, due) => {
      const trader = traders[(k * 13) % TRADERS];
      return k % 2 === 0
        ? call('read', due, 'GET', '/api/trading/platform-data/', trader)
        : call('read', due, 'GET', '/api/trading/orders/?page_size=20', trader);
    },
  };

  const started = performance.now();
  const endAt = started + MINUTES * 60_000;
  const pending = new Set();
  // One scheduler for every stream: each call is due at start + i ÷ rate, late ones go at once.
  const next = Object.fromEntries(Object.keys(streams).map((name) => [name, 0]));
  let running = true;
  const schedule = () => {
    if (!running) return;
    const now = performance.now();
    let soonest = Number.POSITIVE_INFINITY;
    for (const [name, fire] of Object.entries(streams)) {
      for (;;) {
        const due = started + (next[name] * 1000) / rate[name];
        if (due > now) {
          soonest = Math.min(soonest, due);
          break;
        }
        const p = fire(next[name]++, due);
        pending.add(p);
        p.finally(() => pending.delete(p));
      }
    }
    setTimeout(schedule, Math.max(0, Math.min(soonest, endAt) - performance.now()));
  };
  schedule();

  const samples = [];
  const first = await heapNow();
  log(`heap after gc at start ${first.heapMb.toFixed(1)} MB, rss ${first.rssMb.toFixed(0)} MB`);
  const pct = (list, p) => {
    if (!list?.length) return null;
    const sorted = [...list].sort((a, b) => a - b);
    return Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1));
  };
  console.log('minute  heap_MB  rss_MB  market_p50  market_p99  all_p99  calls/s  non2xx  sockets_dropped  positions_closed');
  while (performance.now() < endAt) {
    await sleep(Math.min(SAMPLE_SECONDS * 1000, endAt - performance.now()));
    const done = interval;
    interval = newInterval();
    const { heapMb, rssMb } = await heapNow();
    const socketsNow = await socketReport();
    const minute = (performance.now() - started) / 60_000;
    const all = Object.values(done.latencies).flat();
    const sample = {
      minute: Number(minute.toFixed(1)),
      heap_mb: Number(heapMb.toFixed(1)),
      rss_mb: Number(rssMb.toFixed(0)),
      market_p50_ms: pct(done.latencies.market, 50),
      market_p99_ms: pct(done.latencies.market, 99),
      all_p99_ms: pct(all, 99),
      calls_per_second: Math.round(all.length / ((performance.now() - done.since) / 1000)),
      non_2xx: done.non2xx,
      errors: done.errors,
      sockets_dropped: socketsNow.dropped,
      closed_positions: closedPositions,
    };
    samples.push(sample);
    console.log(
      [
        sample.minute.toFixed(1).padStart(6),
        sample.heap_mb.toFixed(1).padStart(7),
        String(sample.rss_mb).padStart(6),
        String(sample.market_p50_ms).padStart(10),
        String(sample.market_p99_ms).padStart(10),
        String(sample.all_p99_ms).padStart(8),
        String(sample.calls_per_second).padStart(7),
        String(sample.non_2xx + sample.errors).padStart(7),
        String(sample.sockets_dropped).padStart(15),
        String(sample.closed_positions).padStart(16),
      ].join('  '),
    );
  }
  running = false;
  await Promise.all(pending);
  const socketsEnd = await socketReport();
  sockets.send({ type: 'stop' });
  agent.destroy();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });

  const warm = samples.filter((s) => s.minute >= WARMUP_MINUTES);
  const slope = slopePerHour(warm.map((s) => [s.minute, s.heap_mb]));
  // Heap growth per position closed after the warm-up, by the same least squares against the count.
  const perClose = slopePer(warm.map((s) => [s.closed_positions, s.heap_mb * 2 ** 20]));
  const rssSlope = slopePerHour(warm.map((s) => [s.minute, s.rss_mb]));
  const quarter = Math.max(1, Math.floor(warm.length / 4));
  const median = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const p99First = median(warm.slice(0, quarter).map((s) => s.market_p99_ms));
  const p99Last = median(warm.slice(-quarter).map((s) => s.market_p99_ms));
  const drifted = p99Last > p99First * P99_DRIFT_LIMIT && p99Last - p99First > P99_DRIFT_FLOOR_MS;
  const report = {
    minutes: MINUTES,
    scale: SCALE,
    offered_calls_per_second: Math.round(
      rate.market + rate.opener * 2 + rate.pending * 1.5 + rate.read, // an opener is followed by a close, every second pending order by a cancel
    ),
    traders: TRADERS,
    trading_sockets: TRADING_SOCKETS,
    price_sockets: PRICE_SOCKETS,
    warmup_minutes: WARMUP_MINUTES,
    heap_mb_after_gc: { start: Number(first.heapMb.toFixed(1)), warm: warm[0]?.heap_mb, end: samples.at(-1)?.heap_mb },
    rss_mb: { start: Number(first.rssMb.toFixed(0)), warm: warm[0]?.rss_mb, end: samples.at(-1)?.rss_mb },
    heap_slope_mb_per_hour: Number(slope.toFixed(1)),
    rss_slope_mb_per_hour: Number(rssSlope.toFixed(1)),
    closed_positions: closedPositions,
    heap_bytes_per_closed_position: Math.round(perClose),
    market_p99_ms: { first_quarter: p99First, last_quarter: p99Last },
    calls: totals.calls,
    calls_per_second_achieved: Math.round(totals.calls / ((performance.now() - started) / 1000)),
    non_2xx: totals.non2xx,
    errors: totals.errors,
    non_2xx_by_call: totals.byStatus,
    idle_sockets_reset_and_resent: resets,
    sockets: socketsEnd,
    limits: {
      heap_slope_mb_per_hour: HEAP_SLOPE_LIMIT_MB_PER_HOUR,
      p99_drift: `last quarter ≤ ${P99_DRIFT_LIMIT} × first quarter or + ${P99_DRIFT_FLOOR_MS} ms`,
    },
  };
  const failures = [
    slope > HEAP_SLOPE_LIMIT_MB_PER_HOUR && `heap grows ${slope.toFixed(1)} MB/h after warm-up`,
    drifted && `market p99 drifted ${p99First} → ${p99Last} ms`,
    totals.non2xx + totals.errors > 0 && `${totals.non2xx} non-2xx answers and ${totals.errors} errors`,
    socketsEnd.dropped > 0 && `${socketsEnd.dropped} sockets dropped`,
  ].filter(Boolean);
  report.passed = failures.length === 0;
  report.failures = failures;
  console.log(JSON.stringify(report, null, 2));
  process.exit(failures.length ? 1 : 0);
}

function newInterval() {
  return { since: performance.now(), latencies: {}, non2xx: 0, errors: 0 };
}

/** Least-squares slope of [minute, MB] points, in MB an hour (0 with fewer than two). */
function slopePerHour(points) {
  return slopePer(points) * 60;
}

/** Least-squares slope of [x, y] points (0 with fewer than two). */
function slopePer(points) {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/** A price socket subscribed to every pair, keeping each pair's latest mid; resolves once all have one. */
async function watchMids(url, symbols) {
  const mids = new Map();
  const ws = new WebSocket(`${url.replace('http', 'ws')}/ws/prices/`, { perMessageDeflate: false });
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.type === 'price_update') mids.set(m.symbol, Number(m.price));
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  for (const symbol of symbols) ws.send(JSON.stringify({ type: 'subscribe_prices', symbol }));
  while (mids.size < symbols.length) await sleep(100);
  return mids;
}

/** The child process holding the sockets: opens them on 'open', counts what arrives, reports drops. */
function runSocketClients() {
  const sockets = [];
  let dropped = 0;
  let messages = 0;
  let errors = 0;
  let stopping = false;
  const connect = (address, onOpen) =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(address, { perMessageDeflate: false, skipUTF8Validation: true });
      sockets.push(ws);
      ws.once('error', reject);
      ws.on('close', (code) => {
        if (!stopping) {
          dropped += 1;
          if (dropped <= 5) console.error(`[soak sockets] a socket closed: ${code}`);
        }
      });
      ws.on('message', (data) => {
        messages += 1;
        const text = data.toString();
        if (text.startsWith('{"type":"error"')) errors += 1;
        onOpen(ws, text, resolve);
      });
      ws.once('open', () => onOpen(ws, null, resolve));
    });
  process.on('message', async (m) => {
    if (m.type === 'open') {
      const opens = [];
      for (let i = 0; i < m.tradingSockets; i++) {
        const token = m.tokens[i % m.tokens.length];
        opens.push(
          connect(`${m.url}/ws/trading/`, (ws, text, resolve) => {
            if (text?.startsWith('{"type":"auth_required"')) ws.send(JSON.stringify({ type: 'authenticate', token }));
            else if (text?.startsWith('{"type":"connection_established"')) {
              ws.send(JSON.stringify({ type: 'subscribe_to_pnl' }));
              resolve();
            }
          }),
        );
        if (opens.length % 50 === 0) await Promise.all(opens.slice(-50));
      }
      for (let i = 0; i < m.priceSockets; i++) {
        opens.push(
          connect(`${m.url}/ws/prices/`, (ws, text, resolve) => {
            if (text !== null) return;
            ws.send(JSON.stringify({ type: 'subscribe_prices', symbol: m.symbols[i % m.symbols.length] }));
            ws.send(JSON.stringify({ type: 'subscribe_prices', symbol: m.symbols[(i + 5) % m.symbols.length] }));
            resolve();
          }),
        );
        if (opens.length % 50 === 0) await Promise.all(opens.slice(-50));
      }
      await Promise.all(opens);
      process.send({ type: 'opened' });
    } else if (m.type === 'report') {
      process.send({ open: sockets.filter((ws) => ws.readyState === WebSocket.OPEN).length, dropped, messages, errors });
    } else if (m.type === 'stop') {
      stopping = true;
      for (const ws of sockets) ws.terminate();
      process.exit(0);
    }
  });
}
