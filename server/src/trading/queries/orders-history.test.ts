import type { Ordering, OrdersQuery } from '@pipdesk/contract';
import { type Compilable, CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import type { Database } from '../../db/schema.js';
import { writeTransaction } from '../../db/transaction.js';
import { MemoryBus } from '../../realtime/bus.js';
import { FakeMarket, insertTrader } from '../../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../../test/helpers.js';
import { countQuery, type OrderFilters, pageQuery } from '../history-repo.js';
import { createTradingService, type TradingServiceImpl } from '../service.js';
import { userId } from '../types.js';

// docs/orders.md#history-at-any-size: the orders list's count is kept by triggers and its pages
// are read from either end; whatever happened to the orders, the answer is the one a plain
// filter-sort-slice of the account's rows gives.

let t: TestApp;
let market: FakeMarket;
let service: TradingServiceImpl;
const clock = new ManualClock(Date.UTC(2026, 2, 2, 9, 0, 0));
const DAY = 86_400_000;

beforeAll(async () => {
  t = await startTestApp({ clock });
  market = new FakeMarket();
  for (const [symbol, bid] of [
    ['EURUSD', 1.1],
    ['GBPUSD', 1.27],
    ['USDJPY', 150],
    ['EURJPY', 162],
  ] as const) {
    market.set(symbol, bid, bid + (symbol.endsWith('JPY') ? 0.02 : 0.0002));
  }
  // A bus of its own: the app's trigger engine (on the app's own prices) must not fill these
  // pending orders while a check compares the rows with the answers.
  service = createTradingService({ ...t.ctx, bus: new MemoryBus() }, market);
});
afterAll(async () => {
  await t.close();
});

/** Deterministic generator (mulberry32), seeded: the seed is printed so a failure can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Row = {
  id: number;
  symbol: string;
  side: string;
  status: string;
  order_type: string;
  quantity_centilots: number;
  average_fill_price_e10: number | null;
  created_at: number;
};

async function rowsOf(accountId: number): Promise<Row[]> {
  const rows = await t.ctx.db.kysely
    .selectFrom('orders')
    .select(['id', 'symbol', 'side', 'status', 'order_type', 'quantity_centilots', 'average_fill_price_e10', 'created_at'])
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    quantity_centilots: Number(r.quantity_centilots),
    average_fill_price_e10: r.average_fill_price_e10 === null ? null : Number(r.average_fill_price_e10),
    created_at: Number(r.created_at),
  }));
}

/** What the orders list must answer, computed the plain way from every row. */
function expected(rows: Row[], query: OrdersQuery): number[] {
  // A date is a whole UTC day; a date-time without a zone is a UTC instant (docs/api.md#order-list).
  const day = (text: string, end: boolean) =>
    text.length === 10 ? Date.parse(`${text}T00:00:00.000Z`) + (end ? DAY - 1 : 0) : Date.parse(`${text}Z`);
  const pair = query.fx_pair?.toUpperCase().replace(/[/\s-]/g, '');
  const matching = rows.filter(
    (r) =>
      (!pair || r.symbol.includes(pair)) &&
      (!query.side || r.side === query.side) &&
      (!query.status || r.status === query.status) &&
      (!query.order_type || r.order_type === query.order_type) &&
      (!query.date_from || r.created_at >= day(query.date_from, false)) &&
      (!query.date_to || r.created_at <= day(query.date_to, true)),
  );
  const ordering = query.ordering ?? '-created_at';
  const sign = ordering.startsWith('-') ? -1 : 1;
  const key = ordering.replace('-', '');
  matching.sort((a, b) => {
    if (key === 'average_fill_price') {
      // Null fill prices last in both directions.
      if (a.average_fill_price_e10 === null || b.average_fill_price_e10 === null) {
        if (a.average_fill_price_e10 !== b.average_fill_price_e10) return a.average_fill_price_e10 === null ? 1 : -1;
      } else if (a.average_fill_price_e10 !== b.average_fill_price_e10) {
        return sign * (a.average_fill_price_e10 - b.average_fill_price_e10);
      }
    }
    if (key === 'quantity' && a.quantity_centilots !== b.quantity_centilots)
      return sign * (a.quantity_centilots - b.quantity_centilots);
    return sign * (a.created_at - b.created_at || a.id - b.id);
  });
  return matching.map((r) => r.id);
}

/** Every page of `query` at `pageSize`, checking each page's count, then the ids in page order. */
async function allPages(user: number, query: OrdersQuery, pageSize: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  const pages = Math.max(1, Math.ceil(count / pageSize));
  for (let page = 1; page <= pages + 1; page++) {
    const answer = await service.listOrders(userId(user), { ...query, page, page_size: pageSize });
    expect(answer.count, `page ${page} of ${JSON.stringify(query)}`).toBe(count);
    if (page > pages) expect(answer.results).toEqual([]);
    ids.push(...answer.results.map((o) => o.id));
  }
  return ids;
}

const QUERIES: OrdersQuery[] = [
  {},
  { fx_pair: 'eur' },
  { fx_pair: 'EUR/USD' },
  { fx_pair: 'jpy', side: 'SELL' },
  { side: 'BUY' },
  { status: 'PENDING' },
  { status: 'CANCELLED' },
  { status: 'FILLED', order_type: 'MARKET' },
  { status: 'REJECTED' },
  { status: 'PARTIALLY_FILLED' },
  { order_type: 'LIMIT' },
  { order_type: 'STOP_LIMIT', side: 'SELL' },
  { date_from: '2026-03-03' },
  { date_to: '2026-03-03' },
  { date_from: '2026-03-03', date_to: '2026-03-04', side: 'BUY' },
  { date_from: '2026-01-01' },
  { date_from: '2026-03-02T12:00:00', status: 'FILLED' },
  { date_to: '2026-12-31', side: 'SELL' },
  { date_from: '2026-03-02', date_to: '2026-03-30', fx_pair: 'usd' },
  { date_from: '2027-01-01' },
  { ordering: 'created_at' },
  { ordering: 'quantity', fx_pair: 'usd' },
  { ordering: '-quantity' },
  { ordering: 'average_fill_price' },
  { ordering: '-average_fill_price', status: 'FILLED' },
];

async function checkEveryQuery(user: number, accountId: number, pageSize: number) {
  const rows = await rowsOf(accountId);
  for (const query of QUERIES) {
    const want = expected(rows, query);
    const got = await allPages(user, query, pageSize, want.length);
    expect(got, JSON.stringify(query)).toEqual(want);
  }
}

describe('the orders list at any size', () => {
  it('answers the exact count and the same rows as a plain filter and sort, across orders, fills, cancels and a reset', async () => {
    const seed = Number(process.env.HISTORY_SEED ?? Date.now() % 1_000_000);
    console.log(`orders-history seed ${seed} (HISTORY_SEED=${seed} to replay)`);
    const next = random(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const trader = await insertTrader(t.ctx, { balanceMinor: 100_000_000 });
    const accountId = trader.accountId!;
    const pending: number[] = [];
    const step = async () => {
      // Sometimes in the same millisecond as the order before: ties break on id.
      if (next() < 0.8) clock.advance(Math.floor(next() * 6 * 3_600_000));
      const symbol = pick(['EURUSD', 'GBPUSD', 'USDJPY', 'EURJPY']);
      const side = pick(['BUY', 'SELL'] as const);
      const quote = market.prices.latest(symbol)!;
      const roll = next();
      if (roll < 0.55) {
        await service.placeMarketOrder(trader.userId, { symbol, side, quantity: (1 + Math.floor(next() * 30)) / 100 });
      } else if (roll < 0.6) {
        // More than the margin allows: stored REJECTED.
        await service.placeMarketOrder(trader.userId, { symbol, side, quantity: 5_000 }).catch(() => undefined);
      } else if (roll < 0.85) {
        const orderType = pick(['LIMIT', 'STOP', 'STOP_LIMIT'] as const);
        // Away from the market on the side each type needs (docs/orders.md#validation).
        const below = (orderType === 'LIMIT') === (side === 'BUY');
        const price = Number((below ? quote.bid * 0.9 : quote.ask * 1.1).toFixed(symbol.endsWith('JPY') ? 3 : 5));
        const { response } = await service.placePendingOrderDetailed(trader.userId, {
          symbol,
          side,
          order_type: orderType,
          quantity: 0.05,
          price,
          ...(orderType === 'STOP_LIMIT' ? { limit_price: price } : {}),
        });
        pending.push(response.order.id);
      } else if (pending.length > 0) {
        const id = pending.splice(Math.floor(next() * pending.length), 1)[0]!;
        await service.cancelOrder(trader.userId, id);
      }
    };
    for (let i = 0; i < 60; i++) await step();
    await checkEveryQuery(trader.userId, accountId, pick([3, 7, 20]));
    // The reset closes every position (orders of reason `reset`) and cancels the pending orders;
    // the list keeps the whole history of the account across periods.
    await service.resetAccount({ userId: userId(trader.userId), startingBalanceMinor: 100_000_000, actorUserId: trader.userId });
    pending.length = 0;
    for (let i = 0; i < 30; i++) await step();
    await checkEveryQuery(trader.userId, accountId, pick([4, 9, 100]));
    expect((await service.listOrders(userId(trader.userId), {})).count).toBe((await rowsOf(accountId)).length);
  }, 120_000);

  it('keeps the counts table equal to the orders through inserts, updates of any counted column and deletes', async () => {
    const a = await insertTrader(t.ctx);
    const b = await insertTrader(t.ctx);
    const db = t.ctx.db.kysely;
    const row = (accountId: number, symbol: string, status: 'PENDING' | 'FILLED', at: number) => ({
      account_id: accountId,
      pair_id: 1,
      symbol,
      order_type: 'LIMIT' as const,
      side: 'BUY' as const,
      quantity_centilots: 1,
      filled_quantity_centilots: 0,
      price_e10: 10_000_000_000,
      average_fill_price_e10: null,
      status,
      rejection_reason: null,
      reason: 'client' as const,
      position_id: null,
      client_price_e10: null,
      submitted_at: at,
      created_at: at,
      updated_at: at,
      time_in_force: 'GTC' as const,
    });
    await writeTransaction(t.ctx.db, async (trx) => {
      await trx
        .insertInto('orders')
        .values([
          row(a.accountId!, 'EURUSD', 'PENDING', 1),
          row(a.accountId!, 'EURUSD', 'PENDING', 2),
          row(b.accountId!, 'GBPUSD', 'FILLED', 3),
        ])
        .execute();
    });
    const counted = async () =>
      (
        await db
          .selectFrom('order_counts')
          .select(['account_id', 'symbol', 'side', 'status', 'order_type', 'n'])
          .where('account_id', 'in', [a.accountId!, b.accountId!])
          .where('n', '<>', 0)
          .orderBy('account_id')
          .orderBy('symbol')
          .orderBy('status')
          .execute()
      ).map((r) => ({ ...r, account_id: Number(r.account_id), n: Number(r.n) }));
    const truth = async () =>
      (
        await db
          .selectFrom('orders')
          .select(['account_id', 'symbol', 'side', 'status', 'order_type', (eb) => eb.fn.countAll<number>().as('n')])
          .where('account_id', 'in', [a.accountId!, b.accountId!])
          .groupBy(['account_id', 'symbol', 'side', 'status', 'order_type'])
          .orderBy('account_id')
          .orderBy('symbol')
          .orderBy('status')
          .execute()
      ).map((r) => ({ ...r, account_id: Number(r.account_id), n: Number(r.n) }));
    expect(await counted()).toEqual(await truth());
    expect(await counted()).toHaveLength(2);
    // A status change (what a fill, cancel or expiry does), a change of an uncounted column, and
    // an update that writes the same status again.
    const [first] = await db.selectFrom('orders').select('id').where('account_id', '=', a.accountId!).orderBy('id').execute();
    await db.updateTable('orders').set({ status: 'CANCELLED' }).where('id', '=', first!.id).execute();
    await db.updateTable('orders').set({ updated_at: 9 }).where('account_id', '=', a.accountId!).execute();
    await db.updateTable('orders').set({ status: 'FILLED' }).where('account_id', '=', b.accountId!).execute();
    await db
      .updateTable('orders')
      .set({ symbol: 'USDJPY', side: 'SELL', order_type: 'STOP' })
      .where('id', '=', first!.id)
      .execute();
    expect(await counted()).toEqual(await truth());
    await db.deleteFrom('orders').where('id', '=', first!.id).execute();
    expect(await counted()).toEqual(await truth());
    expect(await counted()).toEqual([
      { account_id: a.accountId!, symbol: 'EURUSD', side: 'BUY', status: 'PENDING', order_type: 'LIMIT', n: 1 },
      { account_id: b.accountId!, symbol: 'GBPUSD', side: 'BUY', status: 'FILLED', order_type: 'LIMIT', n: 1 },
    ]);
    // A transaction that rolls back leaves the counts as they were.
    await writeTransaction(t.ctx.db, async (trx) => {
      await trx
        .insertInto('orders')
        .values(row(a.accountId!, 'EURUSD', 'PENDING', 4))
        .execute();
      throw new Error('rolled back');
    }).catch(() => undefined);
    expect(await counted()).toEqual(await truth());
    // The list answers the counts' figure.
    expect((await service.listOrders(userId(a.userId), { fx_pair: 'eur' })).count).toBe(1);
  });

  it('reads a page and a date-range count from the covering index alone, and a plain count from order_counts', async () => {
    const trader = await insertTrader(t.ctx);
    const accountId = trader.accountId!;
    /** The plan of `query` as one line of text (PostgreSQL told not to prefer a scan of a table this small). */
    const plan = (query: (q: Kysely<Database>) => Compilable<unknown>) =>
      t.ctx.db.kysely.transaction().execute(async (trx) => {
        const compiled = query(trx).compile();
        if (testDbKind === 'postgres') {
          await sql`set local enable_seqscan = off`.execute(trx);
          await sql`set local enable_bitmapscan = off`.execute(trx);
          const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(
            CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
          );
          return rows.rows.map((r) => r['QUERY PLAN']).join(' | ');
        }
        const rows = await trx.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        return rows.rows.map((r) => r.detail).join(' | ');
      });
    const page = (f: OrderFilters, ordering: Ordering, offset: number) => (q: Kysely<Database>) =>
      pageQuery(q, accountId, f, ordering, offset, 20, 1_000);
    const indexOnly =
      testDbKind === 'postgres' ? /Index Only Scan( Backward)? using orders_history_idx/ : /COVERING INDEX orders_history_idx/;
    for (const [f, offset] of [
      [{}, 0],
      [{}, 960],
      [{ side: 'SELL', status: 'CANCELLED', orderType: 'LIMIT', symbolContains: 'EUR' }, 40],
      [{ createdFrom: Date.UTC(2026, 0, 1), createdTo: Date.UTC(2026, 1, 1) }, 500],
    ] as const) {
      expect(await plan(page(f, '-created_at', offset)), JSON.stringify(f)).toMatch(indexOnly);
    }
    expect(await plan((q) => countQuery(q, accountId, { createdFrom: Date.UTC(2026, 0, 1), side: 'BUY' }))).toMatch(indexOnly);
    expect(await plan((q) => countQuery(q, accountId, { status: 'FILLED', symbolContains: 'JPY' }))).toMatch(
      testDbKind === 'postgres' ? /order_counts_pk/ : /order_counts USING PRIMARY KEY/,
    );
  });
});
