import { Dec, equityCurveSchema, maxDrawdownPct, performanceSchema } from '@pipdesk/contract';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import type { Database } from '../../db/schema.js';
import { writeTransaction } from '../../db/transaction.js';
import { ScriptedPriceSource } from '../../market/sources/scripted.js';
import { insertSignedInTrader } from '../../test/factories.js';
import { startTestApp, type TestApp, testDbKind } from '../../test/helpers.js';
import { Pricing } from '../math.js';
import { currentPeriodOf } from '../performance/service.js';
import { insertPoints } from './repo.js';
import { EquitySampler, THIN_AFTER_MS } from './sampler.js';

let t: TestApp;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;
const HOUR = 60 * 60 * 1000;

function quote(symbol: string, bid: number) {
  prices.push({ symbol, bid, ask: bid, timestamp: clock.now() });
}
const get = (trader: Trader, url: string) => t.app.inject({ method: 'GET', url, headers: trader.headers });
/** A market BUY of one lot of EURUSD. */
const buyLot = (trader: Trader) =>
  t.app.inject({
    method: 'POST',
    url: '/api/trading/place-market-order/',
    headers: trader.headers,
    payload: { symbol: 'EURUSD', side: 'BUY', quantity: 1 },
  });

/**
 * Another transaction that takes `locks` and then stays open until `release` is called (on
 * PostgreSQL, beside the app's own connections): resolves once the locks are held.
 */
async function holdOpen(locks: (trx: Kysely<Database>) => Promise<unknown>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held!: () => void;
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const done = t.ctx.db.kysely.transaction().execute(async (trx) => {
    await locks(trx);
    held();
    await released;
  });
  await holding;
  return {
    release: async () => {
      release();
      await done;
    },
  };
}
const sampler = (isLeader = true) =>
  new EquitySampler(
    { db: t.ctx.db, clock, pricing: new Pricing(t.market.pairs, t.market.prices), log: t.ctx.log },
    () => isLeader,
  );

beforeAll(async () => {
  t = await startTestApp({ priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000' } });
  quote('EURUSD', 1.1);
});
afterAll(async () => {
  await t.close();
});

describe('the leader’s 15-minute points', () => {
  it('writes one point per account with open positions, in one batch, and moves the max drawdown', async () => {
    const open = await insertSignedInTrader(t);
    const idle = await insertSignedInTrader(t);
    quote('EURUSD', 1.1);
    expect((await buyLot(open)).statusCode).toBe(201); // bought at 1.10001: equity 9,999.00
    clock.advance(15 * 60 * 1000);
    quote('EURUSD', 1.09); // the long is −1,001.00: equity 8,999.00
    // A follower writes nothing.
    await sampler(false).runOnce();
    expect(equityCurveSchema.parse((await get(open, '/api/trading/equity-curve/')).json().data)).toHaveLength(1);
    await sampler(true).runOnce();
    const curve = equityCurveSchema.parse((await get(open, '/api/trading/equity-curve/')).json().data);
    expect(curve.map((p) => [p.equity, p.balance])).toEqual([
      [9999, 10000],
      [8999, 10000],
    ]);
    expect(curve[1]!.time).toBe(new Date(clock.now()).toISOString());
    expect(equityCurveSchema.parse((await get(idle, '/api/trading/equity-curve/')).json().data)).toEqual([]);
    const perf = performanceSchema.parse((await get(open, '/api/trading/performance/')).json().data);
    expect(perf.max_drawdown_pct).toBe(10); // (9,999 − 8,999) ÷ 9,999 = 10.001 %
    expect(perf.equity).toBe(8999);
    quote('EURUSD', 1.1);
  });
});

// A fill locks its account, then writes the period and an equity point (whose key takes a share lock
// on the period); the sampler used to lock the periods, then write points (whose key takes a share
// lock on the account): crossed, the two deadlocked. It now locks the accounts first.
describe.runIf(testDbKind === 'postgres')('a sample beside a fill on PostgreSQL', () => {
  it('loses neither’s drawdown: the period’s max drawdown is the fold of every point written', async () => {
    const trader = await insertSignedInTrader(t);
    quote('EURUSD', 1.1);
    expect((await buyLot(trader)).statusCode).toBe(201); // equity 9,999.00: the peak
    // A gate: until it opens, no equity point can be written, so the sampler waits to commit.
    const gate = await holdOpen((trx) => sql`lock table equity_points in share mode`.execute(trx));
    clock.advance(15 * 60 * 1000);
    quote('EURUSD', 1.09); // the sample sees 8,999.00: a 10 % drawdown from 9,999.00
    const sampling = sampler().sample();
    await new Promise((resolve) => setTimeout(resolve, 200));
    quote('EURUSD', 1.1);
    // The fill, at 9,998.00, comes while the sample has not committed; its fold must keep the sample's drawdown.
    const second = buyLot(trader);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A deadlock between them would be found only after PostgreSQL's deadlock_timeout, and one of
    // them rolled back and retried: both finishing sooner means neither waited on the other in a circle.
    const { rows } = await sql<{
      ms: number;
    }>`select extract(epoch from current_setting('deadlock_timeout')::interval) * 1000 as ms`.execute(t.ctx.db.kysely);
    const opening = performance.now();
    await gate.release();
    await sampling; // (the first test’s trader is sampled too)
    expect((await second).statusCode).toBe(201);
    const waited = performance.now() - opening;
    expect(waited).toBeLessThan(Number(rows[0]!.ms));

    const period = await t.ctx.db.kysely
      .selectFrom('performance_periods')
      .selectAll()
      .where('account_id', '=', trader.accountId!)
      .where('ended_at', 'is', null)
      .executeTakeFirstOrThrow();
    const points = await t.ctx.db.kysely
      .selectFrom('equity_points')
      .select('equity_minor')
      .where('period_id', '=', period.id)
      .orderBy('id')
      .execute();
    expect(points.map((p) => Number(p.equity_minor))).toEqual([999900, 899900, 999800]);
    const folded = maxDrawdownPct(points.map((p) => Dec.scaled(Number(p.equity_minor), 2)));
    expect(Dec.from(period.max_drawdown_pct).toString()).toBe(folded.toString());
    quote('EURUSD', 1.1);
  });
});

describe.runIf(testDbKind === 'postgres')('an account held by another transaction', () => {
  it('is skipped by the sample, which neither waits for it nor holds up the others', async () => {
    const held = await insertSignedInTrader(t);
    const free = await insertSignedInTrader(t);
    quote('EURUSD', 1.1);
    for (const trader of [held, free]) expect((await buyLot(trader)).statusCode).toBe(201);
    const points = async (trader: Trader) =>
      equityCurveSchema.parse((await get(trader, '/api/trading/equity-curve/')).json().data).length;
    // A long transaction holding the account, as a fill or a reset does while it runs.
    const holder = await holdOpen((trx) =>
      trx.selectFrom('trading_accounts').select('id').where('id', '=', held.accountId!).forUpdate().execute(),
    );
    clock.advance(15 * 60 * 1000);
    await sampler().sample(); // returns while the account is still held
    expect(await points(held)).toBe(1);
    expect(await points(free)).toBe(2);
    await holder.release();
    clock.advance(15 * 60 * 1000);
    await sampler().sample();
    expect(await points(held)).toBe(2);
    expect(await points(free)).toBe(3);
  });
});

describe('thinning', () => {
  it('keeps the max drawdown’s peak and trough and leaves recent points alone', async () => {
    const trader = await insertSignedInTrader(t);
    const account = await t.ctx.db.kysely
      .selectFrom('trading_accounts')
      .selectAll()
      .where('id', '=', trader.accountId!)
      .executeTakeFirstOrThrow();
    const period = await currentPeriodOf(t.ctx, account);
    // 40 days ago, a point every 5 minutes for 3 hours: a peak of 12,000 in the first hour, a
    // trough of 9,000 in the third, noise around them; and a few recent points.
    const start = Math.floor((clock.now() - 40 * 24 * HOUR) / HOUR) * HOUR;
    const values: number[] = [];
    for (let i = 0; i < 36; i++) values.push(10_500 + ((i * 37) % 11) * 50);
    values[7] = 12_000;
    values[30] = 9_000;
    const old = values.map((v, i) => ({
      account_id: trader.accountId!,
      period_id: Number(period.id),
      time: start + i * 5 * 60 * 1000,
      equity_minor: v * 100,
      balance_minor: 1_000_000,
    }));
    const recent = [10_100, 10_200, 10_050].map((v, i) => ({
      ...old[0]!,
      time: clock.now() - (3 - i) * HOUR,
      equity_minor: v * 100,
    }));
    await writeTransaction(t.ctx.db, (trx) => insertPoints(trx, [...old, ...recent]));

    const removed = await sampler().thin();
    expect(removed).toBeGreaterThan(0);
    const rows = await t.ctx.db.kysely
      .selectFrom('equity_points')
      .selectAll()
      .where('period_id', '=', Number(period.id))
      .orderBy('time')
      .execute();
    const keptOld = rows.filter((r) => Number(r.time) < clock.now() - THIN_AFTER_MS);
    expect(keptOld.length).toBeLessThanOrEqual(3 * 6);
    expect(keptOld.map((r) => Number(r.equity_minor))).toEqual(expect.arrayContaining([1_200_000, 900_000]));
    const drawdown = (equities: number[]) => maxDrawdownPct(equities.map((c) => Dec.scaled(c, 2)));
    expect(drawdown(keptOld.map((r) => Number(r.equity_minor))).toFixed(4)).toBe('25.0000');
    expect(drawdown(rows.map((r) => Number(r.equity_minor))).eq(drawdown([...old, ...recent].map((p) => p.equity_minor)))).toBe(
      true,
    );
    expect(rows.filter((r) => Number(r.time) >= clock.now() - THIN_AFTER_MS)).toHaveLength(3);
    // Thinning again removes nothing: what is left is already one bucket's keepers.
    expect(await sampler().thin()).toBe(0);
  });
});
