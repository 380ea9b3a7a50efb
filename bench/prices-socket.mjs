#!/usr/bin/env node
// Price socket benchmark (issues 4 and 17): N /ws/prices/ subscribers on one server process
// (SQLite). The script is the server's external price feed (PRICE_SOURCE=external): every pair
// ticks once a second, the 12 pairs spread evenly over the second, so it knows when each tick left.
//
//   npx tsc -b server/tsconfig.json && node bench/prices-socket.mjs [--clients 10000] [--procs 4] [--seconds 30] [--symbol EURUSD] [--no-record]
//
// Figures over the measured window (after a few seconds of warm-up): tick → `price_update`
// arrival at each subscriber (the feed's send → the client's receipt, same machine, same
// clock); the server's own share, tick (stamped by the server as it arrives) → the last socket
// write of its fan-out, from the server's debug log line (LOG_LEVEL=debug; off otherwise);
// server CPU; server memory per socket (RSS after the subscriptions minus before, ÷ sockets).
// Subscribers are spread over the 12 pairs (--symbol puts them all on one: every tick is then a
// burst of N writes). The clients run in `--procs` child processes (default 4).
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { buildServer, freshDataDir, pairSymbols, parseArgs, sleep } from './lib.mjs';
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

if (process.argv.includes('--client')) runClientProcess();
else await main();

async function main() {
  const CLIENTS = Number(args.clients ?? 10_000);
  const PROCS = Math.max(1, Number(args.procs ?? 4));
  const SECONDS = Number(args.seconds ?? 30);
  const WARMUP_SECONDS = 3;
  const log = (...a) => console.error(`[bench ${(performance.now() / 1000).toFixed(1)}s]`, ...a);
  const limit = checkFdLimit(CLIENTS);

  if (!process.argv.includes('--skip-build')) buildServer();
  const symbols = await pairSymbols();
  const dataDir = await freshDataDir();
  const feed = await startFeed(symbols);
  const fanouts = [];
  let measuring = false;
  const server = await startServerOnFeed(dataDir, feed.url, (line) => {
    if (measuring && line.fanout === 'prices') fanouts.push(line.tick_to_last_write_ms);
  });
  log(`server ${server.url} (pid ${server.pid}); fd limit ${limit}`);
  let clients;
  try {
    await sleep(1_000);
    const rssBefore = rssBytes(server.pid);
    const one = args.symbol && args.symbol !== 'all' ? args.symbol.toUpperCase() : undefined;
    const items = Array.from({ length: CLIENTS }, (_, i) => ({ symbol: one ?? symbols[i % symbols.length] }));
    log(`opening ${CLIENTS} subscribers in ${PROCS} processes (${one ?? 'spread over the pairs'})`);
    const openedAt = performance.now();
    clients = await forkClients(import.meta.filename, PROCS, items, { wsUrl: `${server.url.replace(/^http/, 'ws')}/ws/prices/` });
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
    const latency = histogram();
    for (const a of answers) mergeInto(latency, a.price);
    const result = {
      benchmark: 'prices-socket',
      clients: CLIENTS,
      subscribed_to: one ?? 'spread over the 12 pairs',
      client_processes: PROCS,
      seconds: measured.seconds,
      ticks_per_second: measured.ticks_per_second,
      tick_to_price_update: summarize(latency),
      server_share: summarizeList(fanouts),
      server_cpu_percent: measured.server_cpu_percent,
      server_main_thread: measured.server_main_thread,
      client_cpu_percent: measured.client_cpu_percent,
      client_event_loop_delay_p99_ms: measured.client_event_loop_delay_p99_ms,
      server_rss_mib: Math.round(rssAfter / 2 ** 20),
      server_kib_per_socket: Number(((rssAfter - rssBefore) / CLIENTS / 1024).toFixed(2)),
      errors: answers.reduce((n, a) => n + a.errors, 0),
      sockets_closed: answers.reduce((n, a) => n + a.closed, 0),
    };
    console.log(JSON.stringify(result, null, 2));
    record(`prices-socket.sqlite${one ? `.${one}` : ''}`, {
      'tick→price_update p50 ms': { value: result.tick_to_price_update.p50_ms, better: 'lower' },
      'tick→price_update p99 ms': { value: result.tick_to_price_update.p99_ms, better: 'lower' },
      'server share p99 ms (tick→last write)': { value: result.server_share.p99_ms, better: 'lower' },
      'server CPU %': { value: result.server_cpu_percent, better: 'lower' },
      'server KiB per socket': { value: result.server_kib_per_socket, better: 'lower' },
    });
    const met =
      result.tick_to_price_update.p99_ms !== null &&
      result.tick_to_price_update.p99_ms <= 50 &&
      result.sockets_closed === 0 &&
      result.errors === 0;
    console.log(`p99 ${result.tick_to_price_update.p99_ms} ms: ${met ? 'meets' : 'MISSES'} the goal (p99 ≤ 50 ms, none closed)`);
    process.exitCode = met ? 0 : 1;
  } finally {
    await stopAll({ clients, server, feed, dataDir });
  }
}

// ---------------------------------------------------------------- a client process

/** Opens its share of the subscribers, then notes when each tick's price_update arrives (read with indexOf, not JSON.parse). */
function runClientProcess() {
  let measuring = false;
  /** `${symbol} ${bid}` → arrival times. */
  const arrivals = new Map();
  const sockets = [];
  let closed = 0;
  let errors = 0;
  const field = (text, label) => {
    const i = text.indexOf(label);
    if (i < 0) return undefined;
    let end = i + label.length;
    while (end < text.length && text[end] !== ',' && text[end] !== '}' && text[end] !== '"') end++;
    return text.slice(i + label.length, end);
  };

  function open({ symbol }, wsUrl) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { perMessageDeflate: false, skipUTF8Validation: true });
      sockets.push(ws);
      ws.on('error', reject);
      ws.on('close', () => {
        if (!ws.closing) closed++;
      });
      ws.on('open', () => {
        ws.send(JSON.stringify({ type: 'subscribe_prices', symbol, timeframe: '1m' }));
        resolve();
      });
      ws.on('message', (data) => {
        const at = wallNow();
        const text = data.toString();
        if (!measuring) return;
        if (text.startsWith('{"type":"price_update"')) {
          noteArrival(arrivals, `${field(text, '"symbol":"')} ${Number(field(text, '"bid":'))}`, at);
        } else if (text.startsWith('{"type":"error"')) errors++;
      });
    });
  }

  answerCommands({
    sockets,
    open: async (items, wsUrl) => {
      for (let i = 0; i < items.length; i += 50) await Promise.all(items.slice(i, i + 50).map((item) => open(item, wsUrl)));
    },
    setMeasuring: (on) => {
      measuring = on;
    },
    results: (sentAt) => ({ price: arrivalLatencies(arrivals, sentAt), closed, errors }),
  });
}
