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
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { buildServer, freshDataDir, pairSymbols, parseArgs, processCpuSeconds, sleep } from './lib.mjs';
import { record } from './results.mjs';
import {
  addSample,
  fdLimit,
  forkClients,
  histogram,
  mainThreadSchedule,
  mergeInto,
  rssBytes,
  scheduleShare,
  startFeed,
  startServerOnFeed,
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
  const limit = fdLimit();
  // The server holds one fd per socket (the client processes split the other ends).
  if (limit !== undefined && limit < CLIENTS + 200)
    throw new Error(`ulimit -n is ${limit}: ${CLIENTS} sockets need about ${CLIENTS + 200} (raise it with ulimit -n)`);

  if (!process.argv.includes('--skip-build')) buildServer();
  const symbols = await pairSymbols();
  const dataDir = await freshDataDir();
  const feed = await startFeed(symbols);
  const fanouts = [];
  let measuring = false;
  const server = await startServerOnFeed(dataDir, feed.url, {
    nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    env: { LOG_LEVEL: 'debug' },
    onLog: (line) => {
      if (measuring && line.fanout === 'prices') fanouts.push(line.tick_to_last_write_ms);
    },
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

    feed.start();
    await sleep(WARMUP_SECONDS * 1000);
    log(`measuring ${SECONDS} s`);
    const cpu0 = processCpuSeconds(server.pid);
    const schedule0 = mainThreadSchedule(server.pid);
    const clientCpu0 = clients.pids.map(processCpuSeconds);
    const t0 = performance.now();
    const ticks0 = feed.sent();
    measuring = true;
    await clients.all({ type: 'measure' });
    await sleep(SECONDS * 1000);
    await clients.all({ type: 'pause' });
    measuring = false;
    const elapsed = (performance.now() - t0) / 1000;
    const cpu1 = processCpuSeconds(server.pid);
    const schedule1 = mainThreadSchedule(server.pid);
    const clientCpu1 = clients.pids.map(processCpuSeconds);
    const ticks = feed.sent() - ticks0;
    feed.stopTicking();
    await sleep(500);
    const answers = await clients.all({ type: 'results', sentAt: [...feed.sentAt] });
    const latency = histogram();
    for (const a of answers) mergeInto(latency, a.price);
    const result = {
      benchmark: 'prices-socket',
      clients: CLIENTS,
      subscribed_to: one ?? 'spread over the 12 pairs',
      client_processes: PROCS,
      seconds: Number(elapsed.toFixed(1)),
      ticks_per_second: Number((ticks / elapsed).toFixed(1)),
      tick_to_price_update: summarize(latency),
      server_share: summarizeList(fanouts),
      server_cpu_percent: Number((((cpu1 - cpu0) / elapsed) * 100).toFixed(1)),
      // Runnable but not running: time the machine's other load took from the server's event loop.
      server_main_thread: scheduleShare(schedule0, schedule1, elapsed),
      client_cpu_percent: Number((clientCpu1.reduce((s, c, i) => s + c - clientCpu0[i], 0) / elapsed / 0.01).toFixed(1)),
      client_event_loop_delay_p99_ms: Math.max(...answers.map((a) => a.loopP99)),
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
    await clients?.stop();
    await server.stop();
    await feed.stop();
    const { rmSync } = await import('node:fs');
    rmSync(dataDir, { recursive: true, force: true });
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
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
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
          const key = `${field(text, '"symbol":"')} ${Number(field(text, '"bid":'))}`;
          const list = arrivals.get(key);
          if (list) list.push(at);
          else arrivals.set(key, [at]);
        } else if (text.startsWith('{"type":"error"')) errors++;
      });
    });
  }

  process.on('message', async (command) => {
    if (command.type === 'open') {
      for (let i = 0; i < command.items.length; i += 50)
        await Promise.all(command.items.slice(i, i + 50).map((item) => open(item, command.wsUrl)));
      process.send({ opened: sockets.length });
    } else if (command.type === 'measure') {
      measuring = true;
      loopDelay.enable();
      process.send({});
    } else if (command.type === 'pause') {
      measuring = false;
      loopDelay.disable();
      process.send({});
    } else if (command.type === 'results') {
      const sentAt = new Map(command.sentAt);
      const hist = histogram();
      for (const [key, times] of arrivals) {
        const sent = sentAt.get(key);
        if (sent === undefined) continue;
        for (const at of times) addSample(hist, at - sent);
      }
      for (const ws of sockets) ws.closing = true;
      process.send({ price: [...hist], closed, errors, loopP99: Number((loopDelay.percentile(99) / 1e6).toFixed(1)) });
    }
  });
  process.on('SIGTERM', () => {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  });
}
