// History benchmark: the orders list (first page, a deep page, every filter and ordering),
// platform-data and the journal's first page for a trader with 100,000 orders.
//
//   node bench/history.mjs [--orders 100000] [--requests 300] [--db postgres] [--no-record]
//
// Builds the server, prepares a fresh database with one trader (see lib.mjs) and writes the
// history straight into it in bulk (the API would take many minutes of this shared machine and
// is what bench/orders.mjs measures), shaped as the order path writes it: round trips over the
// 12 pairs on both sides (MARKET, and LIMIT / STOP / STOP_LIMIT that filled), closes by the
// trader or by a stop loss, take profit or trailing stop, cancelled and expired pending orders,
// rejected orders with their reason, 12 open positions and 20 orders still PENDING; each fill
// has its execution, each realized P&L its ledger entry. The first performance call then builds
// the period and the journal from the trades with the server's own code. On PostgreSQL the
// tables are vacuumed and analyzed once after the load, as autovacuum would within a minute.
//
// Each call is then requested --requests times one after the other (after 20 unrecorded warm-up
// requests) and timed from send to the last byte: p50, p99 and max per call. Goal: p99 ≤ 10 ms
// for the orders list's first page, a filtered page, platform-data and the journal's first page.
// Prints a JSON summary, records it (bench/results.mjs: `history.sqlite` / `history.postgres`)
// and exits 1 when the goal is missed.
import { Agent, request as httpRequest } from 'node:http';
import { benchDb, buildServer, databaseUrlFor, dist, insertRows, parseArgs, prepareDatabase, startServer } from './lib.mjs';
import { record } from './results.mjs';

const args = parseArgs(process.argv.slice(2));
const ORDERS = Number(args.orders ?? 100_000);
const REQUESTS = Number(args.requests ?? 300);
const GOAL_MS = 10;
const OPEN_POSITIONS = 12;
const PENDING = 20;
const DAY = 86_400_000;

/** Writes ORDERS orders (with their executions, positions and ledger entries) for the trader's account. */
async function writeHistory(dataDir) {
  const { loadConfig } = await dist('config.js');
  const { openDatabase } = await dist('db/database.js');
  const { writeTransaction } = await dist('db/transaction.js');
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrlFor(dataDir),
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
  });
  const db = openDatabase(config.database);
  const account = await db.kysely.selectFrom('trading_accounts').selectAll().executeTakeFirstOrThrow();
  const { PAIR_SEEDS, seedRow } = await dist('market/catalogue.js');
  const { seedPairs } = await dist('market/repo.js');
  await seedPairs(db.kysely, PAIR_SEEDS.map(seedRow));
  const pairs = await db.kysely.selectFrom('fx_pairs').select(['id', 'symbol']).orderBy('id').execute();
  const accountId = Number(account.id);
  let balance = Number(account.balance_minor);
  // About 500 orders a day: 100,000 orders span some 200 days up to an hour ago.
  const spacing = 173_000;
  const start = Date.now() - 3_600_000 - ORDERS * spacing;
  const entry = 10_000_000_000; // 1.0 × 10^10

  let orderId = 0;
  let positionId = 0;
  let tradeId = 0;
  let orders = [];
  let positions = [];
  let trades = [];
  let ledger = [];
  const order = (i, fields) => {
    const at = start + i * spacing;
    orderId += 1;
    orders.push({
      id: orderId,
      account_id: accountId,
      pair_id: Number(fields.pair.id),
      symbol: fields.pair.symbol,
      order_type: fields.type ?? 'MARKET',
      side: fields.side,
      quantity_centilots: fields.quantity,
      filled_quantity_centilots: fields.status === 'FILLED' ? fields.quantity : 0,
      price_e10: fields.type && fields.type !== 'MARKET' ? (fields.price ?? entry - 5_000_000) : null,
      average_fill_price_e10: fields.status === 'FILLED' ? entry + ((i * 7919) % 2_000_000) : null,
      status: fields.status,
      rejection_reason: fields.rejection ?? null,
      reason: fields.reason ?? 'client',
      position_id: fields.positionId ?? null,
      client_price_e10: null,
      submitted_at: at,
      created_at: at,
      updated_at: at,
      time_in_force: fields.expires ? 'GTD' : 'GTC',
      expires_at: fields.expires ? at + DAY : null,
      limit_price_e10: fields.type === 'STOP_LIMIT' ? entry - 6_000_000 : null,
      triggered_at: null,
      stop_loss_e10: null,
      take_profit_e10: null,
      trailing_stop_pips: null,
    });
    return { id: orderId, at };
  };
  const fill = (o, pair, side, quantity, posId, pnl) => {
    tradeId += 1;
    trades.push({
      id: tradeId,
      account_id: accountId,
      order_id: o.id,
      position_id: posId,
      pair_id: Number(pair.id),
      symbol: pair.symbol,
      side,
      quantity_centilots: quantity,
      price_e10: entry,
      realized_pnl_minor: pnl,
      executed_at: o.at,
    });
    if (pnl !== 0) {
      balance += pnl;
      ledger.push({
        account_id: accountId,
        kind: 'realized_pnl',
        amount_minor: pnl,
        balance_after_minor: balance,
        reference: `trade:${tradeId}`,
        created_at: o.at,
      });
    }
  };
  const position = (pair, quantity, openedAt, closedAt, pnl) => {
    positionId += 1;
    positions.push({
      id: positionId,
      account_id: accountId,
      pair_id: Number(pair.id),
      symbol: pair.symbol,
      quantity_centilots: closedAt === null ? quantity : 0,
      average_entry_price_e10: entry,
      realized_pnl_minor: pnl,
      status: closedAt === null ? 'OPEN' : 'CLOSED',
      created_at: openedAt,
      updated_at: closedAt ?? openedAt,
      closed_at: closedAt,
    });
    return positionId;
  };
  const flush = async () => {
    await writeTransaction(db, async (trx) => {
      await insertRows(trx, 'positions', positions);
      await insertRows(trx, 'orders', orders);
      await insertRows(trx, 'trades', trades);
      await insertRows(trx, 'ledger_entries', ledger);
    });
    orders = [];
    positions = [];
    trades = [];
    ledger = [];
  };

  const CLOSE_REASONS = ['client', 'client', 'close', 'stop_loss', 'take_profit', 'trailing_stop', 'client', 'close'];
  const FILLED_TYPES = ['MARKET', 'MARKET', 'MARKET', 'LIMIT', 'MARKET', 'STOP', 'MARKET', 'STOP_LIMIT'];
  const closedPart = ORDERS - OPEN_POSITIONS - PENDING;
  let i = 0;
  let block = 0;
  while (i < closedPart) {
    const pair = pairs[block % pairs.length];
    const side = block % 3 === 0 ? 'SELL' : 'BUY';
    const opposite = side === 'BUY' ? 'SELL' : 'BUY';
    const quantity = 1 + (block % 50);
    const k = block % 10;
    if (k === 7 && i + 1 <= closedPart) {
      // A pending order that never filled: cancelled by the trader, or expired (GTD).
      const type = ['LIMIT', 'STOP', 'STOP_LIMIT'][block % 3];
      order(i, { pair, side, quantity, type, status: block % 20 === 7 ? 'EXPIRED' : 'CANCELLED', expires: block % 20 === 7 });
      i += 1;
    } else if (k === 9 && i + 1 <= closedPart) {
      order(i, { pair, side, quantity: 500, status: 'REJECTED', rejection: 'Insufficient margin' });
      i += 1;
    } else if (i + 2 <= closedPart) {
      // A round trip: the opening fill, then the close that realizes P&L.
      const pnl = block % 101 === 0 ? 0 : ((block * 7919) % 10_001) - 5_000;
      const posId = position(pair, quantity, start + i * spacing, start + (i + 1) * spacing, pnl);
      const opened = order(i, { pair, side, quantity, type: FILLED_TYPES[block % 8], status: 'FILLED', positionId: posId });
      fill(opened, pair, side, quantity, posId, 0);
      const reason = CLOSE_REASONS[block % 8];
      const closed = order(i + 1, { pair, side: opposite, quantity, status: 'FILLED', reason, positionId: posId });
      fill(closed, pair, opposite, quantity, posId, pnl);
      i += 2;
    } else {
      order(i, { pair, side, quantity, status: 'REJECTED', rejection: 'Insufficient margin' });
      i += 1;
    }
    block += 1;
    if (orders.length >= 5_000) await flush();
  }
  for (let p = 0; p < OPEN_POSITIONS; p++, i++) {
    const pair = pairs[p % pairs.length];
    const at = start + i * spacing;
    const posId = position(pair, 10, at, null, 0);
    fill(order(i, { pair, side: 'BUY', quantity: 10, status: 'FILLED', positionId: posId }), pair, 'BUY', 10, posId, 0);
  }
  for (let p = 0; p < PENDING; p++, i++) {
    // Far from any price, so that none fills while the benchmark runs.
    const side = p % 2 ? 'SELL' : 'BUY';
    const price = side === 'BUY' ? 100_000_000 : 10_000_000_000_000;
    order(i, { pair: pairs[p % pairs.length], side, quantity: 5, type: 'LIMIT', status: 'PENDING', price });
  }
  await flush();
  await db.kysely.updateTable('trading_accounts').set({ balance_minor: balance }).where('id', '=', accountId).execute();
  if (db.kind === 'postgres') {
    const { sql } = await import('kysely');
    // The ids were given explicitly: move the sequences past them, as the order path would have.
    for (const table of ['orders', 'positions', 'trades']) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(
        db.kysely,
      );
    }
    await sql`vacuum analyze`.execute(db.kysely);
  }
  await db.close();
  return { orders: orderId, trades: tradeId, positions: positionId };
}

/** `count` requests one after the other (after `warmup` unrecorded): latency from send to the last byte. */
async function timeCall(url, pathAndQuery, authorization, count = REQUESTS, warmup = 20) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const once = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: pathAndQuery, headers: { authorization }, agent },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  const latencies = [];
  let non2xx = 0;
  let last;
  for (let n = 0; n < warmup + count; n++) {
    last = await once();
    if (n < warmup) continue;
    latencies.push(last.ms);
    if (last.status < 200 || last.status > 299) non2xx += 1;
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p) => Number(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2));
  return {
    p50: at(50),
    p99: at(99),
    max: Number(latencies.at(-1).toFixed(2)),
    requests: count,
    non_2xx: non2xx,
    answer: JSON.parse(last.body.toString('utf8')),
  };
}

buildServer();
const { dataDir, traders } = await prepareDatabase(1);
const [trader] = traders;
const writeStarted = Date.now();
const written = await writeHistory(dataDir);
const writeSeconds = (Date.now() - writeStarted) / 1000;
const server = await startServer(dataDir);
try {
  const { authorization } = trader;
  // The first performance call builds the period and the journal from the trades (timed apart).
  const periodStarted = performance.now();
  const perf = await fetch(`${server.url}/api/trading/performance/`, { headers: { authorization } });
  if (!perf.ok) throw new Error(`performance answered ${perf.status}`);
  const periodMs = Math.round(performance.now() - periodStarted);

  const today = new Date();
  const dayText = (d) => new Date(d).toISOString().slice(0, 10);
  const middlePage = Math.max(1, Math.floor(written.orders / 20 / 2));
  const lastPage = Math.max(1, Math.ceil(written.orders / 20));
  const CALLS = {
    orders_first_page: '/api/trading/orders/',
    orders_page_2: '/api/trading/orders/?page=2',
    orders_middle_page: `/api/trading/orders/?page=${middlePage}`,
    orders_last_page: `/api/trading/orders/?page=${lastPage}`,
    orders_by_pair: '/api/trading/orders/?fx_pair=EURUSD',
    orders_by_currency: '/api/trading/orders/?fx_pair=jpy',
    orders_by_side: '/api/trading/orders/?side=SELL',
    orders_by_status_cancelled: '/api/trading/orders/?status=CANCELLED',
    orders_by_status_pending: '/api/trading/orders/?status=PENDING',
    orders_by_type_stop_limit: '/api/trading/orders/?order_type=STOP_LIMIT',
    orders_none_match: '/api/trading/orders/?status=PARTIALLY_FILLED',
    orders_last_week: `/api/trading/orders/?date_from=${dayText(today.getTime() - 7 * DAY)}&date_to=${dayText(today)}`,
    orders_since_a_year: `/api/trading/orders/?date_from=${dayText(today.getTime() - 365 * DAY)}`,
    orders_all_filters: `/api/trading/orders/?fx_pair=USD&side=BUY&status=FILLED&order_type=MARKET&date_from=${dayText(today.getTime() - 30 * DAY)}`,
    orders_filtered_page_50: '/api/trading/orders/?status=FILLED&side=BUY&page=50',
    orders_by_quantity: '/api/trading/orders/?ordering=-quantity',
    orders_by_fill_price: '/api/trading/orders/?ordering=average_fill_price',
    platform_data: '/api/trading/platform-data/',
    journal_first_page: '/api/trading/journal/',
    journal_by_pair: '/api/trading/journal/?symbol=EURUSD',
  };
  const results = {};
  for (const [name, call] of Object.entries(CALLS)) {
    const { answer, ...figures } = await timeCall(server.url, call, authorization);
    const count = answer.count ?? answer.data?.recent_orders?.length;
    results[name] = { ...figures, count };
    console.error(`${name}: p50 ${figures.p50} ms, p99 ${figures.p99} ms (count ${count})`);
  }
  const goalCalls = ['orders_first_page', 'orders_by_side', 'orders_last_week', 'platform_data', 'journal_first_page'];
  const report = {
    db: benchDb,
    ...written,
    setup_seconds: { write_history: writeSeconds, first_performance_call_ms: periodMs },
    requests_per_call: REQUESTS,
    results,
    goal: { p99_ms: GOAL_MS, for: goalCalls },
  };
  report.goal_met =
    results.orders_first_page.count === written.orders &&
    goalCalls.every((c) => results[c].p99 <= GOAL_MS) &&
    Object.values(results).every((r) => r.non_2xx === 0);
  console.log(JSON.stringify(report, null, 2));
  record(
    `history.${benchDb}`,
    Object.fromEntries(
      Object.entries(results).flatMap(([name, r]) => [
        [`${name} p50 ms`, { value: r.p50, better: 'lower' }],
        [`${name} p99 ms`, { value: r.p99, better: 'lower' }],
      ]),
    ),
  );
  process.exitCode = report.goal_met ? 0 : 1;
} finally {
  await server.stop();
}
