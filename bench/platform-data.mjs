// platform-data benchmark: GET /api/trading/platform-data/ for a trader with 12 open positions
// and 5,000 orders, on the embedded default (SQLite).
//
//   node bench/platform-data.mjs [--seconds 15] [--connections 10] [--rate 200]
//
// Builds the server, prepares a fresh database with one trader (see lib.mjs), starts
// `node server/dist/main.js`, places the 5,000 orders through the API (one lane per pair:
// BUY/SELL pairs that net to flat, then a last BUY, so all 12 pairs end with an open position
// and the history holds ~2,500 closed positions and 5,000 trades), then drives platform-data
// three times: one connection (autocannon: the latency of a dashboard load), open-loop at a
// steady offered --rate per second over --connections (latency under load; pacedRun in
// lib.mjs), and --connections saturated (autocannon: the capacity; its latency is just
// connections ÷ throughput). Goal: p99 < 15 ms for the first two.
// Prints a JSON summary; exits 1 when missed.
import autocannon from 'autocannon';
import { buildServer, pacedRun, pairSymbols, parseArgs, prepareDatabase, startServer, summary } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.seconds ?? 15);
const CONNECTIONS = Number(args.connections ?? 10);
const RATE = Number(args.rate ?? 200);

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

buildServer();
const PAIRS = await pairSymbols();
// 10 lanes of 416 and 2 of 414 round trips' legs (all even: each lane ends flat), plus one BUY each: 5,000 orders.
const LEGS = PAIRS.map((_, i) => (i < 10 ? 416 : 414));
const { dataDir, traders } = await prepareDatabase(1);
const [trader] = traders;
const server = await startServer(dataDir);
try {
  const place = async (symbol, side, quantity) => {
    const res = await fetch(`${server.url}/api/trading/place-market-order/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: trader.authorization },
      body: JSON.stringify({ symbol, side, quantity }),
    });
    if (res.status !== 201) throw new Error(`order answered ${res.status}: ${await res.text()}`);
  };
  const started = Date.now();
  await Promise.all(
    PAIRS.map(async (symbol, lane) => {
      for (let i = 0; i < LEGS[lane]; i++) await place(symbol, i % 2 ? 'SELL' : 'BUY', (1 + (Math.floor(i / 2) % 10)) / 100);
      await place(symbol, 'BUY', 0.1);
    }),
  );
  const setupSeconds = (Date.now() - started) / 1000;

  const check = await (
    await fetch(`${server.url}/api/trading/platform-data/`, { headers: { authorization: trader.authorization } })
  ).json();
  const openPositions = check.data.open_positions.length;
  const count = (
    await (
      await fetch(`${server.url}/api/trading/orders/?page_size=1`, { headers: { authorization: trader.authorization } })
    ).json()
  ).count;

  const options = {
    url: `${server.url}/api/trading/platform-data/`,
    headers: { authorization: trader.authorization },
    duration: SECONDS,
  };
  const single = summary(await run({ ...options, connections: 1 }));
  const atRate = await pacedRun({
    url: server.url,
    rate: RATE,
    seconds: SECONDS,
    connections: CONNECTIONS,
    request: () => ({ method: 'GET', path: '/api/trading/platform-data/', headers: { authorization: trader.authorization } }),
  });
  const saturated = summary(await run({ ...options, connections: CONNECTIONS }));
  const report = {
    orders: count,
    open_positions: openPositions,
    setup_seconds: setupSeconds,
    answer_bytes: JSON.stringify(check).length,
    one_connection: single,
    [`${CONNECTIONS}_connections_at_${RATE}_per_second`]: atRate,
    [`${CONNECTIONS}_connections_saturated`]: saturated,
    goal: { p99_ms: 15 },
  };
  report.goal_met =
    count === 5000 &&
    openPositions === 12 &&
    single.latency_ms.p99 < 15 &&
    atRate.latency_ms.p99 < 15 &&
    single.non_2xx + atRate.non_2xx + saturated.non_2xx === 0;
  console.log(JSON.stringify(report, null, 2));
  process.exitCode = report.goal_met ? 0 : 1;
} finally {
  await server.stop();
}
