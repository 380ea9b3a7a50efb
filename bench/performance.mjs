// Performance and journal benchmark: GET /api/trading/performance/ and the journal's first page
// for a trader with 100,000 closed trades, on the embedded default (SQLite).
//
//   node bench/performance.mjs [--trades 100000] [--seconds 10]
//
// Builds the server, prepares a fresh database with one trader (see lib.mjs) and writes the
// history straight into it: --trades round trips over the 12 pairs (an opening and a closing
// execution each, their orders, positions and ledger entries; the closing P&L varies between
// −50.00 and +50.00, some exactly 0). Writing 200,000 executions through the API would take
// minutes of this shared machine and is what bench/orders.mjs measures; here the statistics and
// the journal are then built by the server's own code: the first performance call of an account
// without a period replays its trades through the same fold the fills use
// (trading/performance/period.ts), and that call is timed too. One closed trade in ten is then
// tagged through PUT trading/journal/{id}/. Then, one connection each (autocannon: the latency of
// a page load): performance, the journal's first page, the journal by pair and by tag.
// Goal: p99 ≤ 20 ms for performance and the journal's first page. Prints a JSON summary; exits 1
// when the goal is missed.

import autocannon from 'autocannon';
import { buildServer, dist, insertRows, parseArgs, prepareDatabase, startServer, summary } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const TRADES = Number(args.trades ?? 100_000);
const SECONDS = Number(args.seconds ?? 10);
const TAG_EVERY = 10;

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** Writes TRADES round trips for the trader's account straight into the database. */
async function writeHistory(dataDir) {
  const { loadConfig } = await dist('config.js');
  const { openDatabase } = await dist('db/database.js');
  const { writeTransaction } = await dist('db/transaction.js');
  const config = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789' });
  const db = openDatabase(config.database);
  const account = await db.kysely.selectFrom('trading_accounts').selectAll().executeTakeFirstOrThrow();
  // The catalogue as the server seeds it at start (it keeps rows that exist).
  const { PAIR_SEEDS, seedRow } = await dist('market/catalogue.js');
  const { seedPairs } = await dist('market/repo.js');
  await seedPairs(db.kysely, PAIR_SEEDS.map(seedRow));
  const pairs = await db.kysely.selectFrom('fx_pairs').select(['id', 'symbol', 'digits']).orderBy('id').execute();
  const accountId = Number(account.id);
  let balance = Number(account.balance_minor);
  const start = Date.now() - TRADES * 60_000;
  const CHUNK = 2_000;
  for (let from = 0; from < TRADES; from += CHUNK) {
    const positions = [];
    const orders = [];
    const trades = [];
    const ledger = [];
    for (let i = from; i < Math.min(TRADES, from + CHUNK); i++) {
      const pair = pairs[i % pairs.length];
      const opened = start + i * 60_000;
      const closed = opened + 30_000;
      const id = i + 1;
      // −50.00 … +50.00, a breakeven every 101st trade; a deterministic walk, no Math.random.
      const pnl = i % 101 === 0 ? 0 : ((i * 7919) % 10_001) - 5_000;
      const entry = 10_000_000_000; // 1.0 × 10^10
      const quantity = 10; // 0.10 lots
      positions.push({
        id,
        account_id: accountId,
        pair_id: Number(pair.id),
        symbol: pair.symbol,
        quantity_centilots: 0,
        average_entry_price_e10: entry,
        realized_pnl_minor: pnl,
        status: 'CLOSED',
        created_at: opened,
        updated_at: closed,
        closed_at: closed,
      });
      for (const [k, side, at] of [
        [0, 'BUY', opened],
        [1, 'SELL', closed],
      ]) {
        orders.push({
          id: 2 * id - 1 + k,
          account_id: accountId,
          pair_id: Number(pair.id),
          symbol: pair.symbol,
          order_type: 'MARKET',
          side,
          quantity_centilots: quantity,
          filled_quantity_centilots: quantity,
          price_e10: null,
          average_fill_price_e10: entry,
          status: 'FILLED',
          rejection_reason: null,
          reason: 'client',
          position_id: id,
          client_price_e10: null,
          submitted_at: at,
          created_at: at,
          updated_at: at,
          time_in_force: 'GTC',
        });
        trades.push({
          id: 2 * id - 1 + k,
          account_id: accountId,
          order_id: 2 * id - 1 + k,
          position_id: id,
          pair_id: Number(pair.id),
          symbol: pair.symbol,
          side,
          quantity_centilots: quantity,
          price_e10: entry,
          realized_pnl_minor: k === 1 ? pnl : 0,
          executed_at: at,
        });
      }
      if (pnl !== 0) {
        balance += pnl;
        ledger.push({
          account_id: accountId,
          kind: 'realized_pnl',
          amount_minor: pnl,
          balance_after_minor: balance,
          reference: `trade:${2 * id}`,
          created_at: closed,
        });
      }
    }
    await writeTransaction(db, async (trx) => {
      await insertRows(trx, 'positions', positions);
      await insertRows(trx, 'orders', orders);
      await insertRows(trx, 'trades', trades);
      await insertRows(trx, 'ledger_entries', ledger);
      await trx.updateTable('trading_accounts').set({ balance_minor: balance }).where('id', '=', accountId).execute();
    });
  }
  await db.close();
}

buildServer();
const { dataDir, traders } = await prepareDatabase(1);
const [trader] = traders;
const written = Date.now();
await writeHistory(dataDir);
const writeSeconds = (Date.now() - written) / 1000;
// 10,000 journal edits in a row during the setup: more than a trader's rate limit allows (docs/operations.md#rate-limits).
const server = await startServer(dataDir, { env: { RATE_LIMITS: 'false' } });
try {
  const headers = { authorization: trader.authorization };
  const getJson = async (url) => {
    const res = await fetch(`${server.url}${url}`, { headers });
    if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const rebuildStarted = performance.now();
  const first = (await getJson('/api/trading/performance/')).data;
  const rebuildMs = performance.now() - rebuildStarted;
  if (first.closed_trades !== TRADES) throw new Error(`performance counts ${first.closed_trades} closed trades, not ${TRADES}`);

  // Tag one closed trade in ten through the API (the journal's pages hold 20, so page by page).
  const tagged = Math.floor(TRADES / TAG_EVERY);
  const taggingStarted = performance.now();
  const firstPage = await getJson('/api/trading/journal/');
  const newest = firstPage.results[0].trade.id;
  for (let k = 0; k < tagged; k += 1) {
    const tradeId = newest - 2 * TAG_EVERY * k;
    const res = await fetch(`${server.url}/api/trading/journal/${tradeId}/`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        tags: ['breakout', `setup-${k % 7}`],
        note: k % 3 ? '' : 'Followed the plan.',
        rating: 1 + (k % 5),
      }),
    });
    if (res.status !== 200) throw new Error(`PUT journal answered ${res.status}: ${await res.text()}`);
  }
  const taggingSeconds = (performance.now() - taggingStarted) / 1000;

  const measure = async (pathAndQuery) =>
    summary(await run({ url: `${server.url}${pathAndQuery}`, connections: 1, duration: SECONDS, headers }));
  const results = {
    performance: await measure('/api/trading/performance/'),
    journal_first_page: await measure('/api/trading/journal/'),
    journal_by_pair: await measure('/api/trading/journal/?symbol=EURUSD'),
    journal_by_tag: await measure('/api/trading/journal/?tag=breakout'),
    journal_page_100: await measure('/api/trading/journal/?page=100'),
  };
  const byTag = await getJson('/api/trading/journal/?tag=breakout');
  const report = {
    closed_trades: TRADES,
    executions: 2 * TRADES,
    tagged_entries: byTag.count,
    setup_seconds: { write_history: writeSeconds, tag_through_api: Number(taggingSeconds.toFixed(1)) },
    first_call_builds_period_ms: Math.round(rebuildMs),
    seconds_per_run: SECONDS,
    ...results,
    goal: { p99_ms: 20, for: ['performance', 'journal_first_page'] },
  };
  report.goal_met =
    results.performance.latency_ms.p99 <= 20 &&
    results.journal_first_page.latency_ms.p99 <= 20 &&
    Object.values(results).every((r) => r.non_2xx === 0 && r.errors === 0);
  console.log(JSON.stringify(report, null, 2));
  process.exitCode = report.goal_met ? 0 : 1;
} finally {
  await server.stop();
}
