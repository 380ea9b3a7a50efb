// Order engine benchmark, part two (issue 12): a burst of triggers on one tick against the real
// server on SQLite (the embedded default: every fill fsynced before it is announced).
//
//   node bench/order-burst.mjs [--orders 1000] [--positions 0] [--traders 200] [--timeout 30]
//
// Builds the server, prepares a fresh database with --traders traders (lib.mjs), and starts
// `node server/dist/main.js` with PRICE_SOURCE=external on a feed this script runs
// (server/src/market/sources/EXTERNAL_FEED.md), so it decides every price and knows when the
// crossing tick left. Every trader opens a /ws/trading/ socket. Then, through the real HTTP API:
// --orders pending EURUSD orders spread evenly over the traders (POST
// trading/place-pending-order/, each with an Idempotency-Key: BUY STOP and SELL LIMIT, 0.01–0.10
// lots, 5–50 pips above the price, GTC) and, with --positions N, N more traders each open a
// EURUSD LONG with a take profit 5–50 pips above (a market order with take_profit): N protection
// closes more. One EURUSD tick 60 pips up then crosses every one of them.
// Measured from the moment that tick is written to the feed socket:
// - acknowledged: each order's `order_confirmation` on its trader's socket (sent after the fill
//   committed), for a pending order its FILLED order, for a position the MARKET order closing it
//   (`reason` take_profit); tick-to-fill latency p50/p99/max over every trigger;
// - on disk: the database read every 25 ms (read-only, beside the server) until every pending
//   order is FILLED and every position CLOSED; the first read that sees them all.
// Goal: every trigger executed and acknowledged within 2 s. Prints a JSON summary; exits 1 when
// the goal is missed (or a trigger did not fill).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import WebSocket, { WebSocketServer } from 'ws';
import { buildServer, pairSymbols, parseArgs, prepareDatabase, processCpuSeconds, sleep, startServer } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const ORDERS = Number(args.orders ?? 1000);
const POSITIONS = Number(args.positions ?? 0);
const TRADERS = Number(args.traders ?? 200);
const TIMEOUT_S = Number(args.timeout ?? 30);
const GOAL_MS = 2000;
const SYMBOL = 'EURUSD';
const PIP = 0.0001;

buildServer();
const PAIRS = await pairSymbols();
const { dataDir, traders } = await prepareDatabase(TRADERS + POSITIONS);

// ---------------------------------------------------------------- the price feed

/** Every pair's bid (ask = bid + 1 pip, or 0.01 for JPY-quoted pairs). */
const bids = Object.fromEntries(PAIRS.map((s) => [s, s.endsWith('JPY') ? 150 : 1]));
bids[SYMBOL] = 1.085;
const quote = (symbol) => {
  const digits = symbol.endsWith('JPY') ? 3 : 5;
  const bid = Number(bids[symbol].toFixed(digits));
  return { symbol, bid, ask: Number((bid + (symbol.endsWith('JPY') ? 0.01 : PIP)).toFixed(digits)) };
};
const feed = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((r) => feed.once('listening', r));
const feedSockets = new Set();
const sendAll = () => {
  const frame = JSON.stringify({ type: 'ticks', ticks: PAIRS.map(quote) });
  for (const s of feedSockets) s.send(frame);
};
feed.on('connection', (socket) => {
  feedSockets.add(socket);
  socket.on('close', () => feedSockets.delete(socket));
  sendAll();
});
// A quiet feed counts as disconnected after 10 s.
const heartbeat = setInterval(sendAll, 1_000);

const server = await startServer(dataDir, {
  env: { PRICE_SOURCE: 'external', EXTERNAL_FEED_URL: `ws://127.0.0.1:${feed.address().port}` },
});
const db = new SQLite(path.join(dataDir, 'pipdesk.sqlite'), { readonly: true, fileMustExist: true });

async function pool(items, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function post(trader, route, body) {
  const res = await fetch(`${server.url}/api/trading/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: trader.authorization, 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 201) throw new Error(`${route} answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}

let tickSentAt;
/** Trigger id (`o<order id>` or `p<position id>`) → ms from the tick to its acknowledgement. */
const acked = new Map();
const outcomes = {};

try {
  // ---------------------------------------------------------------- sockets

  await pool(
    traders,
    50,
    (trader) =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws/trading/`);
        trader.ws = ws;
        ws.on('error', reject);
        ws.on('message', (data) => {
          const at = performance.now();
          const text = data.toString();
          if (text.startsWith('{"type":"price_update"')) return;
          const message = JSON.parse(text);
          if (message.type === 'auth_required')
            ws.send(JSON.stringify({ type: 'authenticate', token: trader.authorization.slice(7) }));
          else if (message.type === 'connection_established') resolve();
          else if (message.type === 'order_confirmation' && tickSentAt !== undefined) {
            const { order, position } = message.data;
            const id = order.order_type === 'MARKET' ? `p${position.id}` : `o${order.id}`;
            const kind = `${order.order_type} ${order.status} ${order.reason}`;
            outcomes[kind] = (outcomes[kind] ?? 0) + 1;
            if (!acked.has(id)) acked.set(id, at - tickSentAt);
          }
        });
      }),
  );

  // ---------------------------------------------------------------- the triggers to be

  const { bid, ask } = quote(SYMBOL);
  const jobs = [];
  for (let i = 0; i < ORDERS; i++) {
    const buy = i % 2 === 0;
    const away = (5 + ((i * 37) % 46)) * PIP; // 5–50 pips, spread out
    jobs.push({
      trader: traders[i % TRADERS],
      route: 'place-pending-order/',
      body: {
        symbol: SYMBOL,
        // BUY STOP above the ask, SELL LIMIT above the bid: a rise crosses both.
        side: buy ? 'BUY' : 'SELL',
        order_type: buy ? 'STOP' : 'LIMIT',
        quantity: (1 + (i % 10)) / 100,
        price: Number(((buy ? ask : bid) + away).toFixed(5)),
      },
    });
  }
  for (let i = 0; i < POSITIONS; i++) {
    jobs.push({
      trader: traders[TRADERS + i],
      route: 'place-market-order/',
      body: {
        symbol: SYMBOL,
        side: 'BUY',
        quantity: (1 + (i % 10)) / 100,
        take_profit: Number((bid + (5 + (i % 46)) * PIP).toFixed(5)),
      },
    });
  }
  const placeStart = performance.now();
  const expected = new Set();
  await pool(jobs, 16, async (job) => {
    const data = await post(job.trader, job.route, job.body);
    if (job.route === 'place-pending-order/') {
      if (data.order.status !== 'PENDING') throw new Error(`placed ${JSON.stringify(data.order)}`);
      expected.add(`o${data.order.id}`);
    } else expected.add(`p${data.position.id}`);
  });
  const placeSeconds = (performance.now() - placeStart) / 1000;
  const pendingIds = [...expected].filter((id) => id.startsWith('o')).map((id) => Number(id.slice(1)));
  const positionIds = [...expected].filter((id) => id.startsWith('p')).map((id) => Number(id.slice(1)));
  await sleep(1_000); // the engine learns of them over the bus; let the placements' own traffic settle

  const countFilled = db.prepare(
    `SELECT count(*) AS n FROM orders WHERE status = 'FILLED' AND id IN (${pendingIds.join(',') || 'NULL'})`,
  );
  const countClosed = db.prepare(
    `SELECT count(*) AS n FROM positions WHERE status = 'CLOSED' AND id IN (${positionIds.join(',') || 'NULL'})`,
  );
  const onDisk = () => countFilled.get().n + countClosed.get().n;
  if (onDisk() !== 0) throw new Error('something filled before the tick');

  // ---------------------------------------------------------------- the tick

  const cpu0 = processCpuSeconds(server.pid);
  bids[SYMBOL] += 60 * PIP;
  const frame = JSON.stringify({ type: 'tick', ...quote(SYMBOL) });
  tickSentAt = performance.now();
  for (const s of feedSockets) s.send(frame);

  let allOnDiskMs;
  let diskReads = 0;
  const deadline = tickSentAt + TIMEOUT_S * 1000;
  while (performance.now() < deadline) {
    await sleep(25);
    if (allOnDiskMs === undefined) {
      const readAt = performance.now();
      diskReads++;
      if (onDisk() === expected.size) allOnDiskMs = readAt - tickSentAt;
    }
    if (allOnDiskMs !== undefined && [...expected].every((id) => acked.has(id))) break;
  }
  const wallSeconds = (performance.now() - tickSentAt) / 1000;
  const cpu1 = processCpuSeconds(server.pid);
  await sleep(300);

  // ---------------------------------------------------------------- the figures

  const latencies = [...expected].map((id) => acked.get(id)).filter((ms) => ms !== undefined);
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
  const r = (x) => (x === undefined ? null : Math.round(x * 10) / 10);
  const statuses = Object.fromEntries(
    db
      .prepare(`SELECT status, count(*) AS n FROM orders WHERE id IN (${pendingIds.join(',') || 'NULL'}) GROUP BY status`)
      .all()
      .map((row) => [row.status, row.n]),
  );
  const report = {
    benchmark: 'order-burst (triggers on one tick, SQLite)',
    traders: TRADERS + POSITIONS,
    pending_orders: pendingIds.length,
    protected_positions: positionIds.length,
    placement_seconds: Number(placeSeconds.toFixed(1)),
    triggers: expected.size,
    acknowledged: latencies.length,
    tick_to_fill_ms: { p50: r(at(50)), p99: r(at(99)), max: r(latencies.at(-1)) },
    all_on_disk_ms: r(allOnDiskMs),
    disk_reads: diskReads,
    pending_order_statuses_on_disk: statuses,
    confirmations: outcomes,
    server_cpu_seconds_during_burst: cpu0 === undefined ? null : Number((cpu1 - cpu0).toFixed(2)),
    goal: { all_acknowledged_and_on_disk_within_ms: GOAL_MS },
  };
  report.goal_met =
    latencies.length === expected.size &&
    latencies.at(-1) <= GOAL_MS &&
    allOnDiskMs !== undefined &&
    allOnDiskMs <= GOAL_MS &&
    (statuses.FILLED ?? 0) === pendingIds.length;
  if (wallSeconds >= TIMEOUT_S) report.timed_out_after_s = TIMEOUT_S;
  console.log(JSON.stringify(report, null, 2));
  process.exitCode = report.goal_met ? 0 : 1;
} finally {
  clearInterval(heartbeat);
  for (const trader of traders) trader.ws?.terminate();
  db.close();
  await server.stop();
  for (const s of feedSockets) s.terminate();
  feed.close();
}
