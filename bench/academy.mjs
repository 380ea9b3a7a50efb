// Academy benchmark: GET /api/academy/cohorts/{id}/roster/ and leaderboard/ for a cohort of
// 1,000 students with open positions, while prices tick at 100 a second.
//
//   node bench/academy.mjs [--students 1000] [--seconds 10] [--tick-rate 100] [--seed 20260401]
//
// Builds the server and prepares a fresh SQLite database straight through the built server's own
// modules (lib.mjs's way; a password hash per student would cost a second of scrypt each): an
// instructor with a session, a cohort, and --students members, each with an account, one to
// three open positions over the 12 pairs (a third of them with a stop loss), a pending order for
// every fifth, a current period with running statistics, an equity point before today and a last
// trade. The server then takes its prices from a feed this script serves
// (PRICE_SOURCE=external, server/src/market/sources/EXTERNAL_FEED.md) at --tick-rate ticks a
// second, a seeded random walk over the 12 pairs, so the live book revalues positions all along.
// Measured with one connection each (autocannon: the latency of a page load): the roster and the
// leaderboard. Goal: p99 ≤ 50 ms for both. Prints a JSON summary; exits 1 when the goal is missed.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { WebSocketServer } from 'ws';
import {
  buildServer,
  dist,
  FX_MIDS,
  freePort,
  insertBenchCohort,
  insertBenchUser,
  parseArgs,
  seededRandom,
  startServer,
  summary,
} from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const STUDENTS = Number(args.students ?? 1_000);
const SECONDS = Number(args.seconds ?? 10);
const TICK_RATE = Number(args['tick-rate'] ?? 100);
const SEED = Number(args.seed ?? 20260401);
const GOAL_P99_MS = 50;
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

const random = seededRandom;

const MIDS = FX_MIDS;

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** The cohort, its instructor and students, written in one transaction. */
async function prepare(rand) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pipdesk-bench-'));
  const { loadConfig } = await dist('config.js');
  const { openDatabase } = await dist('db/database.js');
  const { migrateToLatest } = await dist('migrations.js');
  const { writeTransaction } = await dist('db/transaction.js');
  const { openAccount } = await dist('accounts/repo.js');
  const { insertSession } = await dist('auth/repo.js');
  const { createTokens, newTokenId } = await dist('auth/tokens.js');
  const { PAIR_SEEDS, seedRow } = await dist('market/catalogue.js');
  const { seedPairs } = await dist('market/repo.js');
  const config = loadConfig({ DATA_DIR: dataDir, JWT_SECRET, ACCESS_TOKEN_TTL_MINUTES: '1440', LOG_LEVEL: 'warn' });
  const db = openDatabase(config.database);
  await migrateToLatest(db);
  await seedPairs(db.kysely, PAIR_SEEDS.map(seedRow));
  const pairs = await db.kysely.selectFrom('fx_pairs').select(['id', 'symbol', 'digits']).orderBy('id').execute();
  const now = Date.now();
  const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
  const sessionId = newTokenId();
  const e10 = (price) => Math.round(price * 1e10);

  const { instructorId, cohortId } = await writeTransaction(db, async (trx) => {
    const insertUser = (i, role) =>
      insertBenchUser(trx, {
        email: `academy${i}@example.com`,
        fullName: role === 'instructor' ? 'Bench Instructor' : `Bench Student ${i}`,
        role,
        now,
      });
    const instructor = await insertUser(0, 'instructor');
    await insertSession(trx, { id: sessionId, userId: instructor, now });
    const cohort = await insertBenchCohort(trx, { instructorId: instructor, now });

    for (let i = 1; i <= STUDENTS; i++) {
      const userId = await insertUser(i, 'trader');
      await trx.insertInto('cohort_members').values({ cohort_id: cohort, user_id: userId, added_at: now, active: 1 }).execute();
      const { accountId } = await openAccount(trx, {
        userId,
        balanceMinor: 1_000_000,
        leverage: 100,
        now: now - 10 * 86_400_000,
      });
      // One to three open positions on distinct pairs, 0.01–0.20 lots, a third with a stop loss.
      const count = 1 + Math.floor(rand() * 3);
      const first = Math.floor(rand() * pairs.length);
      for (let k = 0; k < count; k++) {
        const pair = pairs[(first + k * 5) % pairs.length];
        const mid = MIDS[pair.symbol];
        const long = rand() < 0.5;
        const lots = 1 + Math.floor(rand() * 20);
        const opened = now - Math.floor(rand() * 5 * 86_400_000);
        await trx
          .insertInto('positions')
          .values({
            account_id: accountId,
            pair_id: Number(pair.id),
            symbol: pair.symbol,
            quantity_centilots: long ? lots : -lots,
            average_entry_price_e10: e10(mid),
            realized_pnl_minor: 0,
            status: 'OPEN',
            created_at: opened,
            updated_at: opened,
            closed_at: null,
            stop_loss_e10: rand() < 1 / 3 ? e10(long ? mid * 0.95 : mid * 1.05) : null,
            take_profit_e10: null,
            trailing_stop_pips: null,
          })
          .execute();
      }
      if (i % 5 === 0) {
        const pair = pairs[i % pairs.length];
        await trx
          .insertInto('orders')
          .values({
            account_id: accountId,
            pair_id: Number(pair.id),
            symbol: pair.symbol,
            order_type: 'LIMIT',
            side: 'BUY',
            quantity_centilots: 10,
            filled_quantity_centilots: 0,
            price_e10: e10(MIDS[pair.symbol] * 0.9),
            average_fill_price_e10: null,
            status: 'PENDING',
            rejection_reason: null,
            reason: 'client',
            position_id: null,
            client_price_e10: null,
            submitted_at: now,
            created_at: now,
            updated_at: now,
            time_in_force: 'GTC',
            expires_at: null,
            limit_price_e10: null,
            triggered_at: null,
            stop_loss_e10: null,
            take_profit_e10: null,
            trailing_stop_pips: null,
          })
          .execute();
      }
      // The period's running statistics as the fills would have left them, a last trade and a point before today.
      const wins = Math.floor(rand() * 20);
      const losses = Math.floor(rand() * 20);
      const period = Number(
        (
          await trx
            .insertInto('performance_periods')
            .values({
              account_id: accountId,
              started_at: now - 10 * 86_400_000,
              start_balance_minor: 1_000_000,
              ended_at: null,
              closed_trades: wins + losses,
              wins,
              losses,
              breakevens: 0,
              gross_profit_minor: wins * 2_500,
              gross_loss_minor: -losses * 2_000,
              largest_win_minor: wins ? 5_000 : null,
              largest_loss_minor: losses ? -4_000 : null,
              current_win_streak: 0,
              current_loss_streak: 0,
              longest_win_streak: Math.min(wins, 3),
              longest_loss_streak: Math.min(losses, 3),
              peak_equity_minor: 1_010_000,
              max_drawdown_pct: (rand() * 10).toFixed(4),
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id,
      );
      await trx
        .insertInto('equity_points')
        .values({
          account_id: accountId,
          period_id: period,
          time: dayStart - 60_000,
          equity_minor: 1_000_000,
          balance_minor: 1_000_000,
        })
        .execute();
      const pair = pairs[first];
      const order = Number(
        (
          await trx
            .insertInto('orders')
            .values({
              account_id: accountId,
              pair_id: Number(pair.id),
              symbol: pair.symbol,
              order_type: 'MARKET',
              side: 'BUY',
              quantity_centilots: 1,
              filled_quantity_centilots: 1,
              price_e10: null,
              average_fill_price_e10: e10(MIDS[pair.symbol]),
              status: 'FILLED',
              rejection_reason: null,
              reason: 'client',
              position_id: null,
              client_price_e10: null,
              submitted_at: now - 3_600_000,
              created_at: now - 3_600_000,
              updated_at: now - 3_600_000,
              time_in_force: 'GTC',
              expires_at: null,
              limit_price_e10: null,
              triggered_at: null,
              stop_loss_e10: null,
              take_profit_e10: null,
              trailing_stop_pips: null,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id,
      );
      const position = await trx
        .selectFrom('positions')
        .select('id')
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('trades')
        .values({
          account_id: accountId,
          order_id: order,
          position_id: Number(position.id),
          pair_id: Number(pair.id),
          symbol: pair.symbol,
          side: 'BUY',
          quantity_centilots: 1,
          price_e10: e10(MIDS[pair.symbol]),
          realized_pnl_minor: 0,
          executed_at: now - 3_600_000,
        })
        .execute();
    }
    return { instructorId: instructor, cohortId: cohort };
  });
  const { token } = await createTokens(config, { now: () => Date.now() }).sign('access', instructorId, sessionId);
  await db.close();
  return { dataDir, cohortId, authorization: `Bearer ${token}` };
}

/** The price feed: every pair once on connect, then `TICK_RATE` ticks a second round the pairs. */
async function startFeed(rand) {
  const port = await freePort();
  const wss = new WebSocketServer({ port, host: '127.0.0.1' });
  const mids = { ...MIDS };
  const symbols = Object.keys(mids);
  let sent = 0;
  const quote = (symbol) => {
    const mid = mids[symbol];
    const digits = symbol.endsWith('JPY') ? 3 : 5;
    const point = 10 ** -digits;
    const bid = Number((mid - point).toFixed(digits));
    const ask = Number((mid + point).toFixed(digits));
    return { symbol, bid, ask };
  };
  wss.on('connection', (socket) => {
    socket.send(JSON.stringify({ type: 'ticks', ticks: symbols.map(quote) }));
  });
  let i = 0;
  const started = performance.now();
  const timer = setInterval(() => {
    // Catch up to the wall clock: the interval's own jitter must not lower the rate.
    const due = Math.floor(((performance.now() - started) / 1000) * TICK_RATE);
    const ticks = [];
    while (sent + ticks.length < due) {
      const symbol = symbols[i++ % symbols.length];
      mids[symbol] *= 1 + (rand() - 0.5) * 2e-4;
      ticks.push(quote(symbol));
    }
    if (ticks.length === 0) return;
    sent += ticks.length;
    const frame = JSON.stringify(ticks.length === 1 ? { type: 'tick', ...ticks[0] } : { type: 'ticks', ticks });
    for (const client of wss.clients) client.send(frame);
  }, 5);
  return {
    url: `ws://127.0.0.1:${port}`,
    sent: () => sent,
    stop: () => {
      clearInterval(timer);
      for (const client of wss.clients) client.terminate();
      return new Promise((resolve) => wss.close(resolve));
    },
  };
}

console.error(`seed ${SEED}`);
const rand = random(SEED);
buildServer();
const preparedAt = performance.now();
const { dataDir, cohortId, authorization } = await prepare(rand);
const prepareSeconds = (performance.now() - preparedAt) / 1000;
const feed = await startFeed(rand);
const server = await startServer(dataDir, { env: { PRICE_SOURCE: 'external', EXTERNAL_FEED_URL: feed.url } });
let failed = false;
try {
  const headers = { authorization };
  const check = await fetch(`${server.url}/api/academy/cohorts/${cohortId}/roster/`, { headers });
  if (!check.ok) throw new Error(`roster answered ${check.status}: ${await check.text()}`);
  const rows = (await check.json()).data;
  if (rows.length !== STUDENTS) throw new Error(`the roster has ${rows.length} rows, not ${STUDENTS}`);
  const open = rows.reduce((n, r) => n + r.open_positions, 0);

  const measure = async (url) => {
    const ticksBefore = feed.sent();
    const startedAt = performance.now();
    const result = summary(await run({ url: `${server.url}${url}`, connections: 1, duration: SECONDS, headers }));
    const seconds = (performance.now() - startedAt) / 1000;
    return { ...result, ticks_per_second: Math.round((feed.sent() - ticksBefore) / seconds) };
  };
  const results = {
    roster: await measure(`/api/academy/cohorts/${cohortId}/roster/`),
    leaderboard: await measure(`/api/academy/cohorts/${cohortId}/leaderboard/`),
  };
  const ok = Object.values(results).every((r) => r.latency_ms.p99 <= GOAL_P99_MS && r.non_2xx === 0 && r.errors === 0);
  failed = !ok;
  console.log(
    JSON.stringify(
      {
        seed: SEED,
        students: STUDENTS,
        open_positions: open,
        tick_rate: TICK_RATE,
        prepare_seconds: Number(prepareSeconds.toFixed(1)),
        goal: `p99 <= ${GOAL_P99_MS} ms`,
        ok,
        ...results,
      },
      null,
      2,
    ),
  );
} finally {
  await server.stop();
  await feed.stop();
}
process.exit(failed ? 1 : 0);
