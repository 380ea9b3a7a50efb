#!/usr/bin/env node
// Trading socket benchmark (issues 4 and 17): N authenticated /ws/trading/ connections, each
// trader holding one open position and subscribed to P&L, on one server process (SQLite). The
// script is the server's external price feed (PRICE_SOURCE=external), so it knows when each
// tick left; every pair ticks once a second, the 12 pairs spread evenly over the second.
//
//   npx tsc -b server/tsconfig.json && node bench/trading-socket.mjs [--traders 10000] [--procs 4] [--seconds 30] [--spread] [--no-record]
//
// Figures, over the measured window after a few seconds of warm-up:
// - tick → `pnl_batch_update` arrival on every socket (the tick's send by the feed → the message
//   carrying its price at the client), and tick → `price_update` arrival;
// - the server's own share: tick (stamped by the server as it arrives) → the last socket write of
//   that tick's fan-out, from the server's own debug log line (LOG_LEVEL=debug; off otherwise);
// - server CPU, and memory per socket: the server's RSS after the sockets subscribed minus
//   before they opened, ÷ sockets.
// The clients run in `--procs` child processes (default 4) so their JSON work is spread and
// reported apart from the server's; the machine's other load still shares the cores.
// Everyone holds EURUSD by default (one tick = a P&L message to every socket: the harshest
// case); --spread puts trader i on pair i mod 12.
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { buildServer, pairSymbols, parseArgs, prepareDatabase, sleep } from './lib.mjs';
import { record } from './results.mjs';
import {
  answerCommands,
  arrivalLatencies,
  checkFdLimit,
  forkClients,
  histogram,
  measureWindow,
  mergeInto,
  noteArrival,
  rssBytes,
  startFeed,
  startServerOnFeed,
  stopAll,
  summarize,
  summarizeList,
  wallNow,
} from './socket-bench.mjs';

const args = parseArgs(process.argv.slice(2));
// A flag without a value is read from argv itself (parseArgs drops one given last).
const SPREAD = process.argv.includes('--spread');

if (process.argv.includes('--client')) runClientProcess();
else await main();

async function main() {
  const TRADERS = Number(args.traders ?? 10_000);
  const PROCS = Math.max(1, Number(args.procs ?? 4));
  const SECONDS = Number(args.seconds ?? 30);
  const WARMUP_SECONDS = 3;
  const log = (...a) => console.error(`[bench ${(performance.now() / 1000).toFixed(1)}s]`, ...a);
  const limit = checkFdLimit(TRADERS);

  if (!process.argv.includes('--skip-build')) buildServer();
  const symbols = await pairSymbols();
  log(`seeding ${TRADERS} traders`);
  // No password hash per trader (not what is measured); 500 traders per transaction.
  const { dataDir, traders } = await prepareDatabase(TRADERS, { balanceMinor: 100_000_000, perTransaction: 500 });
  const feed = await startFeed(symbols);
  const fanouts = [];
  let measuring = false;
  const server = await startServerOnFeed(dataDir, feed.url, (line) => {
    if (measuring && line.fanout) fanouts.push(line);
  });
  log(`server ${server.url} (pid ${server.pid}); fd limit ${limit}`);
  let clients;
  try {
    log(`placing ${TRADERS} market orders (0.10 lot each, ${SPREAD ? 'spread over the pairs' : 'all EURUSD'})`);
    await pool(traders, 32, async (t, i) => {
      t.symbol = SPREAD ? symbols[i % symbols.length] : 'EURUSD';
      const res = await fetch(`${server.url}/api/trading/place-market-order/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: t.authorization },
        body: JSON.stringify({ symbol: t.symbol, side: 'BUY', quantity: 0.1 }),
      });
      if (res.status !== 201) throw new Error(`order answered ${res.status}: ${await res.text()}`);
    });
    await sleep(1_000);
    const rssBefore = rssBytes(server.pid);
    log(`opening ${TRADERS} trading sockets in ${PROCS} processes`);
    const openedAt = performance.now();
    clients = await forkClients(import.meta.filename, PROCS, traders, {
      wsUrl: `${server.url.replace(/^http/, 'ws')}/ws/trading/`,
    });
    log(`all subscribed in ${((performance.now() - openedAt) / 1000).toFixed(1)} s`);
    await sleep(2_000);
    const rssAfter = rssBytes(server.pid);

    const measured = await measureWindow({
      feed,
      server,
      clients,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      log,
      setMeasuring: (on) => {
        measuring = on;
      },
    });
    const { answers } = measured;

    const pnl = histogram();
    const price = histogram();
    for (const a of answers) {
      mergeInto(pnl, a.pnl);
      mergeInto(price, a.price);
    }
    const share = (kind) => summarizeList(fanouts.filter((f) => f.fanout === kind).map((f) => f.tick_to_last_write_ms));
    const result = {
      benchmark: 'trading-socket',
      traders: TRADERS,
      positions: SPREAD ? 'one per trader, spread over the 12 pairs' : 'one EURUSD per trader',
      client_processes: PROCS,
      seconds: measured.seconds,
      ticks_per_second: measured.ticks_per_second,
      tick_to_pnl_batch_update: summarize(pnl),
      tick_to_price_update: summarize(price),
      server_share_pnl: share('pnl'),
      server_share_price_update: share('trading-price'),
      server_cpu_percent: measured.server_cpu_percent,
      server_main_thread: measured.server_main_thread,
      client_cpu_percent: measured.client_cpu_percent,
      client_event_loop_delay_p99_ms: measured.client_event_loop_delay_p99_ms,
      server_rss_mib: Math.round(rssAfter / 2 ** 20),
      server_kib_per_socket: Number(((rssAfter - rssBefore) / TRADERS / 1024).toFixed(2)),
      sockets_closed: answers.reduce((n, a) => n + a.closed, 0),
    };
    console.log(JSON.stringify(result, null, 2));
    record(`trading-socket.sqlite${SPREAD ? '.spread' : ''}`, {
      'tick→pnl_batch_update p50 ms': { value: result.tick_to_pnl_batch_update.p50_ms, better: 'lower' },
      'tick→pnl_batch_update p99 ms': { value: result.tick_to_pnl_batch_update.p99_ms, better: 'lower' },
      'tick→price_update p99 ms': { value: result.tick_to_price_update.p99_ms, better: 'lower' },
      'server share p99 ms (tick→last P&L write)': { value: result.server_share_pnl.p99_ms, better: 'lower' },
      'server CPU %': { value: result.server_cpu_percent, better: 'lower' },
      'server KiB per socket': { value: result.server_kib_per_socket, better: 'lower' },
    });
    const met =
      result.tick_to_pnl_batch_update.p99_ms !== null &&
      result.tick_to_pnl_batch_update.p99_ms <= 50 &&
      result.server_kib_per_socket <= 10 &&
      result.sockets_closed === 0;
    console.log(
      `P&L p99 ${result.tick_to_pnl_batch_update.p99_ms} ms, ${result.server_kib_per_socket} KiB per socket: ${met ? 'meets' : 'MISSES'} the goal (p99 ≤ 50 ms, ≤ 10 KB per socket, none closed)`,
    );
    process.exitCode = met ? 0 : 1;
  } finally {
    await stopAll({ clients, server, feed, dataDir });
  }
}

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

// ---------------------------------------------------------------- a client process

/**
 * Opens its share of the sockets (authenticate, subscribe_to_pnl), then, while measuring,
 * notes when each tick's P&L and price messages arrive; the latencies are worked out at the
 * end, once the feed's send times are known. Messages are read with indexOf, not JSON.parse,
 * to keep the clients' share of the two cores small.
 */
function runClientProcess() {
  let measuring = false;
  /** `${symbol} ${price}` → arrival times (one per socket: a socket counts a tick once). */
  const pnlArrivals = new Map();
  const priceArrivals = new Map();
  const sockets = [];
  let closed = 0;
  const numberAfter = (text, label) => {
    const i = text.indexOf(label);
    if (i < 0) return undefined;
    let end = i + label.length;
    while (end < text.length && text[end] !== ',' && text[end] !== '}') end++;
    return text.slice(i + label.length, end);
  };

  function open(trader, wsUrl) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { perMessageDeflate: false, skipUTF8Validation: true });
      sockets.push(ws);
      let lastPnl = '';
      let subscribed = false;
      ws.on('error', reject);
      ws.on('close', () => {
        if (!ws.closing) closed++;
      });
      ws.on('message', (data) => {
        const at = wallNow();
        const text = data.toString();
        if (measuring && text.startsWith('{"type":"pnl_batch_update"')) {
          const price = numberAfter(text, '"current_price":');
          const key = `${trader.symbol} ${Number(price)}`;
          if (key !== lastPnl) {
            lastPnl = key;
            noteArrival(pnlArrivals, key, at);
          }
        } else if (measuring && text.startsWith('{"type":"price_update"')) {
          const symbol = numberAfter(text, '"symbol":"')?.replace('"', '');
          noteArrival(priceArrivals, `${symbol} ${Number(numberAfter(text, '"bid":'))}`, at);
        } else if (!subscribed) {
          if (text.includes('"auth_required"'))
            ws.send(JSON.stringify({ type: 'authenticate', token: trader.authorization.slice(7) }));
          else if (text.includes('"connection_established"')) ws.send('{"type":"subscribe_to_pnl"}');
          else if (text.includes('"pnl_subscription_confirmed"')) {
            subscribed = true;
            resolve();
          } else if (text.includes('"error"')) reject(new Error(text));
        }
      });
    });
  }

  answerCommands({
    sockets,
    open: (items, wsUrl) => pool(items, 50, (t) => open(t, wsUrl)),
    setMeasuring: (on) => {
      measuring = on;
    },
    results: (sentAt) => ({
      pnl: arrivalLatencies(pnlArrivals, sentAt),
      price: arrivalLatencies(priceArrivals, sentAt),
      closed,
    }),
  });
}
