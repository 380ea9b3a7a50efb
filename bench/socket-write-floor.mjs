#!/usr/bin/env node
// The floor under a socket fan-out on this machine (issue 17): how long one small write to
// each of N loopback TCP sockets takes with nothing else to do — no JSON, no WebSocket, no
// server. The readers run in `--procs` child processes on the same cores, as the socket
// benches' clients do. Three ways of writing, each timed over `--rounds` fan-outs 200 ms apart:
//
// - stream: `socket.write(buffer)`, what net.Socket (and ws) do;
// - direct: `fs.writeSync(fd, buffer)`, the system call alone (within 5 % of the stream when
//   measured, so the server keeps writing through net.Socket: docs/decisions.md);
// - direct ×2: the same split between the main thread and one worker thread (what two writer
//   threads of one process could reach at best on two cores).
//
//   node bench/socket-write-floor.mjs [--sockets 10000] [--procs 4] [--bytes 200] [--rounds 15] [--no-record]
//
// A fan-out of a tick to N sockets cannot take less than N × the per-write figure on one
// thread, so this bounds what tick → last write can be at 10,000 sockets before any product code.
import { fork } from 'node:child_process';
import { writeSync } from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { parseArgs, sleep } from './lib.mjs';
import { record } from './results.mjs';
import { checkFdLimit } from './socket-bench.mjs';

const args = parseArgs(process.argv.slice(2));

if (!isMainThread) runWorker();
else if (process.argv.includes('--client')) runClient();
else await main();

/** A writer thread: writes the buffer to each of its descriptors when told, answers the time taken. */
function runWorker() {
  const buffer = Buffer.alloc(workerData.bytes, 0x78);
  parentPort.on('message', () => {
    const t0 = performance.now();
    for (const fd of workerData.fds) writeSync(fd, buffer);
    parentPort.postMessage(performance.now() - t0);
  });
}

/** A reader process: opens its share of the connections (100 at a time) and drains them. */
function runClient() {
  const port = Number(args.port);
  const count = Number(args.count);
  const connect = () =>
    new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve());
      socket.once('error', reject);
      socket.on('data', () => {});
    });
  (async () => {
    for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, connect));
    process.send('open');
  })();
  process.on('message', (m) => m === 'exit' && process.exit(0));
}

async function main() {
  const SOCKETS = Number(args.sockets ?? 10_000);
  const PROCS = Math.max(1, Number(args.procs ?? 4));
  const BYTES = Number(args.bytes ?? 200);
  const ROUNDS = Number(args.rounds ?? 15);
  checkFdLimit(SOCKETS);

  const sockets = [];
  const server = net.createServer((s) => {
    s.setNoDelay(true);
    sockets.push(s);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const share = Math.ceil(SOCKETS / PROCS);
  const clients = [];
  for (let p = 0; p < PROCS; p++) {
    const child = fork(import.meta.filename, ['--client', '--port', String(port), '--count', String(share)]);
    clients.push(child);
    await new Promise((resolve) => child.once('message', resolve));
  }
  while (sockets.length < share * PROCS) await sleep(20);

  const buffer = Buffer.alloc(BYTES, 0x78);
  const half = Math.ceil(sockets.length / 2);
  const worker = new Worker(import.meta.filename, {
    workerData: { bytes: BYTES, fds: sockets.slice(half).map((s) => s._handle.fd) },
  });
  await sleep(500);

  const ways = {
    stream: async () => {
      for (const s of sockets) s.write(buffer);
    },
    direct: async () => {
      for (const s of sockets) writeSync(s._handle.fd, buffer);
    },
    'direct ×2': async () => {
      const theirs = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('go');
      for (let i = 0; i < half; i++) writeSync(sockets[i]._handle.fd, buffer);
      await theirs;
    },
  };
  const result = { benchmark: 'socket-write-floor', sockets: sockets.length, client_processes: PROCS, bytes: BYTES };
  for (const [way, fanOut] of Object.entries(ways)) {
    const times = [];
    for (let round = 0; round < ROUNDS; round++) {
      await sleep(200);
      const t0 = performance.now();
      await fanOut();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    result[way] = {
      fan_out_ms_median: Number(median.toFixed(1)),
      fan_out_ms_max: Number(times.at(-1).toFixed(1)),
      us_per_write: Number(((1000 * median) / sockets.length).toFixed(2)),
    };
  }
  console.log(JSON.stringify(result, null, 2));
  record('socket-write-floor', {
    'stream µs per write': { value: result.stream.us_per_write, better: 'lower' },
    'direct µs per write': { value: result.direct.us_per_write, better: 'lower' },
    'fan-out ms, stream': { value: result.stream.fan_out_ms_median, better: 'lower' },
    'fan-out ms, direct': { value: result.direct.fan_out_ms_median, better: 'lower' },
    'fan-out ms, direct ×2 threads': { value: result['direct ×2'].fan_out_ms_median, better: 'lower' },
  });

  await worker.terminate();
  for (const child of clients) child.send('exit');
  for (const s of sockets) s.destroy();
  server.close();
}
