// Valuation benchmark: what valuing an account's open positions costs on the order path, with
// `Pricing`'s valuation cache (docs/trading-rules.md, "Exact money"; docs/decisions.md).
//
//   node bench/valuation.mjs [--calls 20000] [--rounds 5]
//
// Builds the server and runs its `valueAccount` in this process on the seeded catalogue, every
// pair quoted, an account of 7 open positions (one per major):
// - same prices: every call between the same two ticks (the order path's usual case);
// - one pair ticking: EURUSD gets a new quote before every call;
// - past the cap: 150,000 positions valued in turn, one each call, with EURUSD ticking every
//   1,000 calls, so the cache (MAX_VALUATIONS) is always full and making room.
// And beside them, the reason the cache makes room many at a time: a Map of MAX_VALUATIONS
// entries where each new key first drops the oldest (`keys().next()` then `delete`), against
// dropping VALUATIONS_DROPPED_AT_ONCE at once: each walk from the Map's start steps over every
// deletion made before it.
// Prints µs per call (the median of the rounds after the first, which warms up). No goal: the
// figures go in the closing note and docs/decisions.md; there is nothing to record.

import { buildServer, dist, parseArgs, seededPairs } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const CALLS = Number(args.calls ?? 20000);
const ROUNDS = Number(args.rounds ?? 5);

buildServer();
const { Pricing, valueAccount, MAX_VALUATIONS, VALUATIONS_DROPPED_AT_ONCE } = await dist('trading/math.js');
const { Catalog } = await dist('market/catalogue.js');
const { REFERENCE_USD_VALUE } = await dist('market/legs.js');
const { MemoryPriceBook } = await dist('market/price-book.js');

const pairs = await seededPairs();
// Each pair at the reference mid (market/legs.ts), through the server's own price book.
const usd = (ccy) => (ccy === 'USD' ? 1 : REFERENCE_USD_VALUE[ccy]);
const PRICES = Object.fromEntries(
  pairs.map((p) => [p.symbol, Number((usd(p.baseCurrency) / usd(p.quoteCurrency)).toFixed(p.digits))]),
);
const book = new MemoryPriceBook((err) => {
  throw err;
});
const tick = (symbol, bid) => book.apply({ symbol, bid, ask: bid, mid: bid, timestamp: Date.now() });
for (const p of pairs) tick(p.symbol, PRICES[p.symbol]);
const pricing = new Pricing(new Catalog(pairs), book);

const majors = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'USDCAD', 'NZDUSD'];
const position = (id, symbol, centilots) => ({
  id,
  accountId: 1,
  pairId: pairs.find((p) => p.symbol === symbol).id,
  symbol,
  quantityCentilots: centilots,
  averageEntryPrice: String(PRICES[symbol]),
  status: 'OPEN',
  realizedPnlMinor: 0,
  createdAt: 0,
  updatedAt: 0,
  closedAt: null,
  stopLoss: null,
  takeProfit: null,
  trailingStopPips: null,
  protectionVersion: 0,
});
const account = majors.map((s, i) => position(i + 1, s, (i % 2 ? -1 : 1) * (10 + i)));

let sink = 0;
/** µs per call of `body(i)` over `calls` calls: the median of the rounds after the first. */
function measure(calls, body) {
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) sink += body(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e3 / calls);
  }
  const sorted = times.slice(1).sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)].toFixed(2));
}
const equity = (positions) => valueAccount(1_000_000_00, 100, positions, pricing).equity.toFixed(2).length;

const many = Array.from({ length: 150_000 }, (_, i) => position(1000 + i, majors[i % 7], 10));
const report = {
  positions: account.length,
  calls_per_round: CALLS,
  rounds: ROUNDS,
  us_per_valueAccount: {
    same_prices: measure(CALLS, () => equity(account)),
    one_pair_ticking: measure(CALLS, (i) => {
      tick('EURUSD', PRICES.EURUSD + (i % 100) * 1e-5);
      return equity(account);
    }),
    past_the_cap_one_position: measure(many.length, (i) => {
      if (i % 1000 === 0) tick('EURUSD', PRICES.EURUSD + (i % 100) * 1e-5);
      return equity([many[i]]);
    }),
  },
  us_per_new_key_in_a_full_map: {
    [`dropping_${VALUATIONS_DROPPED_AT_ONCE}_at_once`]: mapEviction(VALUATIONS_DROPPED_AT_ONCE),
    dropping_one_at_a_time: mapEviction(1),
  },
};
console.log(JSON.stringify(report, null, 2));
if (sink === 0) console.log('');

/** A Map kept at MAX_VALUATIONS entries, 150,000 new keys set in turn, making room `atOnce` at a time. */
function mapEviction(atOnce) {
  const map = new Map();
  let next = 0;
  return measure(150_000, () => {
    if (map.size >= MAX_VALUATIONS) {
      let dropping = atOnce;
      for (const oldest of map.keys()) {
        map.delete(oldest);
        if (--dropping === 0) break;
      }
    }
    map.set(next++, next);
    return 1;
  });
}
