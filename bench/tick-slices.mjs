// What a request waits behind the live book's ticks (docs/operations.md#ticks-in-slices), in one
// process, the same book applied whole and in slices by turns so both meet the same machine.
//
//   node bench/tick-slices.mjs [--positions 10000] [--rate 100] [--seconds 6] [--rounds 4] [--work-ms 1] [--seed 34] [--no-record]
//
// The built live book (server/dist/trading/live/book.js) holds --positions accounts with one open
// position each over the 12 pairs; ticks come at --rate a second round the pairs, a random walk.
// In the same process an HTTP server answers each call after --work-ms of work (about what the
// meter call costs). A client in a child process (so its clocks do not wait on the busy loop)
// calls it one call at a time and times each answer. Rounds alternate two books with the same
// positions: one that applies every tick whole (slices of Infinity, the shape before) and the
// server's (SLICE_POSITIONS a turn). Prints, for each shape: the calls' p50 / p99 / max, how late
// the ticks were applied (from the tick's arrival to the end of its last slice) p50 / p99 / max,
// and the ticks applied. Records `tick_slices` (bench/results.mjs).
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { buildServer, dist, parseArgs, seededPairs, seededRandom } from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));

// The client: a child process calling the server one call at a time for a given time.
if (process.env.TICK_SLICES_CLIENT) {
  const { port, ms } = JSON.parse(process.env.TICK_SLICES_CLIENT);
  const { request } = await import('node:http');
  const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
  const call = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - started));
      });
      req.on('error', reject);
      req.end();
    });
  const until = performance.now() + ms;
  const times = [];
  while (performance.now() < until) times.push(await call());
  process.send(times, () => process.exit(0));
} else {
  await main();
}

async function main() {
  const POSITIONS = Number(args.positions ?? 10_000);
  const RATE = Number(args.rate ?? 100);
  const SECONDS = Number(args.seconds ?? 6);
  const ROUNDS = Number(args.rounds ?? 4);
  const WORK_MS = Number(args['work-ms'] ?? 1);
  const SEED = Number(args.seed ?? 34);

  buildServer();
  const { REFERENCE_USD_VALUE } = await dist('market/legs.js');
  const { LiveBook, SLICE_POSITIONS } = await dist('trading/live/book.js');
  const PAIRS = await seededPairs();
  const usd = (ccy) => (ccy === 'USD' ? 1 : REFERENCE_USD_VALUE[ccy]);
  const mid = Object.fromEntries(PAIRS.map((p) => [p.symbol, usd(p.baseCurrency) / usd(p.quoteCurrency)]));
  const random = seededRandom(SEED);
  const quoteOf = (pair, m) => {
    const bid = Number(m.toFixed(pair.digits));
    const ask = Number((m + pair.pipSize * 2).toFixed(pair.digits));
    return { symbol: pair.symbol, bid, ask, mid: (bid + ask) / 2, timestamp: Date.now() };
  };

  /** A book with the bench's positions, notifying nothing (the work measured is the revaluation). */
  const makeBook = (slice) => {
    // Each account's notification records when the tick it belongs to was last worked on.
    const book = new LiveBook(PAIRS, () => {}, undefined, slice);
    for (const pair of PAIRS) book.seedPrice(quoteOf(pair, mid[pair.symbol]));
    const pick = seededRandom(SEED + 1);
    for (let i = 1; i <= POSITIONS; i++) {
      const pair = PAIRS[i % PAIRS.length];
      const lots = 1 + Math.floor(pick() * 50);
      book.loadAccount({
        accountId: i,
        userId: i,
        balanceMinor: 10_000_000,
        leverage: 30,
        status: 'ACTIVE',
        positions: [
          {
            id: i,
            accountId: i,
            pairId: pair.id,
            symbol: pair.symbol,
            quantityCentilots: pick() < 0.5 ? lots : -lots,
            averageEntryPrice: mid[pair.symbol].toFixed(pair.digits),
            status: 'OPEN',
            realizedPnlMinor: 0,
            createdAt: 0,
            updatedAt: 0,
            closedAt: null,
          },
        ],
      });
    }
    return book;
  };
  const shapes = [
    { name: 'whole', book: makeBook(Number.POSITIVE_INFINITY), calls: [], lateness: [], ticks: 0 },
    { name: 'slices', book: makeBook(SLICE_POSITIONS), calls: [], lateness: [], ticks: 0 },
  ];

  // The server: each call does WORK_MS of work on the loop, as a meter call does.
  const server = createServer((_req, res) => {
    const until = performance.now() + WORK_MS;
    while (performance.now() < until) {}
    res.end('ok');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();

  const walk = { ...mid };
  let n = 0;
  /**
   * Ticks at RATE a second into `shape`'s book for `ms`, as a feed's socket delivers them: each
   * tick is due at its time on the feed's schedule, and a loop that was busy gets the ones it
   * missed together when it looks again. A tick's lateness runs from when it was due to when the
   * book has applied it (its pending count fell below the ticks that came after it).
   */
  const tickFor = (shape, ms) =>
    new Promise((resolve) => {
      const period = 1000 / RATE;
      const started = performance.now();
      let sent = 0;
      const dueTimes = [];
      const settle = () => {
        const pending = shape.book.ticksPending();
        while (dueTimes.length > pending) shape.lateness.push(performance.now() - dueTimes.shift());
      };
      const feed = setInterval(() => {
        const now = performance.now();
        const dueCount = Math.min(Math.floor((Math.min(now, started + ms) - started) / period), Math.round(ms / period));
        for (; sent < dueCount; sent++) {
          const pair = PAIRS[n++ % PAIRS.length];
          walk[pair.symbol] += (random() < 0.5 ? -1 : 1) * pair.pipSize * 0.2;
          dueTimes.push(started + (sent + 1) * period);
          shape.book.onTick(quoteOf(pair, walk[pair.symbol]));
          shape.ticks++;
          settle();
        }
        settle();
        if (now >= started + ms && sent >= Math.round(ms / period) && dueTimes.length === 0) {
          clearInterval(feed);
          resolve();
        }
      }, 1);
    });
  const callFor = (ms) =>
    new Promise((resolve, reject) => {
      const child = fork(new URL(import.meta.url), [], {
        env: { ...process.env, TICK_SLICES_CLIENT: JSON.stringify({ port, ms }) },
      });
      child.on('message', resolve);
      child.on('error', reject);
    });

  // Warm-up of both, then rounds in turn.
  for (const shape of shapes) await tickFor(shape, 1_000);
  for (const shape of shapes) {
    shape.lateness.length = 0;
    shape.ticks = 0;
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const shape of r % 2 === 0 ? shapes : [...shapes].reverse()) {
      const [calls] = await Promise.all([callFor(SECONDS * 1000), tickFor(shape, SECONDS * 1000)]);
      shape.calls.push(...calls);
    }
  }
  server.close();

  const pct = (values, p) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
  };
  const fig = (values) => ({
    n: values.length,
    p50: Number(pct(values, 50)?.toFixed(2)),
    p99: Number(pct(values, 99)?.toFixed(2)),
    max: Number(Math.max(...values).toFixed(2)),
  });
  const out = {
    positions: POSITIONS,
    rate: RATE,
    seconds: SECONDS * ROUNDS,
    work_ms: WORK_MS,
    slice_positions: SLICE_POSITIONS,
    load: (await import('node:os')).loadavg().map((v) => Number(v.toFixed(2))),
  };
  for (const shape of shapes)
    out[shape.name] = { calls_ms: fig(shape.calls), tick_applied_late_ms: fig(shape.lateness), ticks: shape.ticks };
  console.log(JSON.stringify(out, null, 2));
  record('tick_slices', {
    whole_call_p99_ms: { value: out.whole.calls_ms.p99, better: 'lower' },
    slices_call_p99_ms: { value: out.slices.calls_ms.p99, better: 'lower' },
    slices_tick_late_p99_ms: { value: out.slices.tick_applied_late_ms.p99, better: 'lower' },
  });
}
