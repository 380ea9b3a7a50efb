import { Dec, journalPageSchema, maxDrawdownPct, performanceSchema } from '@pipdesk/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { ScriptedPriceSource } from '../../market/sources/scripted.js';
import { insertSignedInTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';

/**
 * Random orders through the API with random prices; afterwards the statistics the fills kept
 * must equal a reference computed from the stored executions alone (netting per pair tells the
 * closing ones), the max drawdown must equal the one of the stored curve, and the journal must
 * hold every closed trade. Replay a failure with PROPERTY_SEED=<seed printed below>.
 */

let t: TestApp;
const prices = new ScriptedPriceSource();
const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
const BASE: Record<string, number> = { EURUSD: 1.085, USDJPY: 150, EURJPY: 162.75, GBPUSD: 1.27 };
const DIGITS: Record<string, number> = { EURUSD: 5, USDJPY: 3, EURJPY: 3, GBPUSD: 5 };

beforeAll(async () => {
  t = await startTestApp({ priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000' } });
  for (const [symbol, bid] of Object.entries(BASE)) prices.push({ symbol, bid, ask: bid, timestamp: clock.now() });
});
afterAll(async () => {
  await t.close();
});

const step = fc.record({
  symbol: fc.constantFrom('EURUSD', 'USDJPY', 'EURJPY', 'GBPUSD'),
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  centilots: fc.integer({ min: 1, max: 30 }),
  // The pair's move from its base price, in points (the price source keeps one point of spread).
  points: fc.integer({ min: -400, max: 400 }),
  // The same move on the yen (the conversion rate of the yen pairs' P&L).
  yenPoints: fc.integer({ min: -400, max: 400 }),
});

describe('the statistics the fills keep', () => {
  it('equal the reference computed from the stored executions', async () => {
    const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31;
    console.log(`performance fills property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const trader = await insertSignedInTrader(t, { balanceMinor: 100_000_000 });
        for (const s of steps) {
          clock.advance(60_000);
          const move = (symbol: string, points: number) =>
            Number((BASE[symbol]! + points / 10 ** DIGITS[symbol]!).toFixed(DIGITS[symbol]!));
          prices.push({
            symbol: 'USDJPY',
            bid: move('USDJPY', s.yenPoints),
            ask: move('USDJPY', s.yenPoints),
            timestamp: clock.now(),
          });
          if (s.symbol !== 'USDJPY')
            prices.push({
              symbol: s.symbol,
              bid: move(s.symbol, s.points),
              ask: move(s.symbol, s.points),
              timestamp: clock.now(),
            });
          const res = await t.app.inject({
            method: 'POST',
            url: '/api/trading/place-market-order/',
            headers: trader.headers,
            payload: { symbol: s.symbol, side: s.side, quantity: s.centilots / 100 },
          });
          expect(res.statusCode, res.body).toBe(201);
        }

        // The reference: every closing execution's cents, in order.
        const trades = await t.ctx.db.kysely
          .selectFrom('trades')
          .selectAll()
          .where('account_id', '=', trader.accountId!)
          .orderBy('id')
          .execute();
        const net = new Map<string, number>();
        const closed: { symbol: string; cents: number; id: number }[] = [];
        for (const tr of trades) {
          const before = net.get(tr.symbol) ?? 0;
          const signed = (tr.side === 'BUY' ? 1 : -1) * Number(tr.quantity_centilots);
          net.set(tr.symbol, before + signed);
          if (before !== 0 && Math.sign(before) !== Math.sign(signed)) {
            closed.push({ symbol: tr.symbol, cents: Number(tr.realized_pnl_minor), id: Number(tr.id) });
          }
        }
        const wins = closed.filter((c) => c.cents > 0);
        const losses = closed.filter((c) => c.cents < 0);
        const sum = (xs: { cents: number }[]) => xs.reduce((a, c) => a + c.cents, 0);
        const money = (cents: number) => Dec.scaled(cents, 2).toNumber(2);
        const ratio = (a: Dec, b: Dec) => a.div(b).toNumber(2);

        const perf = performanceSchema.parse(
          (await t.app.inject({ method: 'GET', url: '/api/trading/performance/', headers: trader.headers })).json().data,
        );
        expect(perf.closed_trades).toBe(closed.length);
        expect([perf.wins, perf.losses, perf.breakevens]).toEqual([
          wins.length,
          losses.length,
          closed.length - wins.length - losses.length,
        ]);
        expect(perf.net_pnl).toBe(money(sum(closed)));
        expect(perf.profit_factor).toBe(losses.length ? ratio(Dec.scaled(sum(wins), 2), Dec.scaled(-sum(losses), 2)) : null);
        expect(perf.win_rate).toBe(
          wins.length + losses.length ? ratio(Dec.from(wins.length * 100), Dec.from(wins.length + losses.length)) : null,
        );
        expect(perf.largest_loss).toBe(losses.length ? money(Math.min(...losses.map((c) => c.cents))) : null);
        const account = await t.ctx.db.kysely
          .selectFrom('trading_accounts')
          .select('balance_minor')
          .where('id', '=', trader.accountId!)
          .executeTakeFirstOrThrow();
        expect(perf.start_balance).toBe(money(Number(account.balance_minor) - sum(closed)));
        for (const pair of perf.by_pair) {
          const mine = closed.filter((c) => c.symbol === pair.symbol);
          expect(pair.trades).toBe(mine.length);
          expect(pair.net_pnl).toBe(money(sum(mine)));
        }
        expect(perf.by_pair.reduce((a, p) => a + p.trades, 0)).toBe(closed.length);

        // One point per execution; the stored max drawdown is the curve's.
        const points = await t.ctx.db.kysely
          .selectFrom('equity_points')
          .selectAll()
          .where('account_id', '=', trader.accountId!)
          .orderBy('time')
          .orderBy('id')
          .execute();
        expect(points).toHaveLength(trades.length);
        expect(perf.max_drawdown_pct).toBe(maxDrawdownPct(points.map((p) => Dec.scaled(Number(p.equity_minor), 2))).toNumber(2));

        const journal = journalPageSchema.parse(
          (await t.app.inject({ method: 'GET', url: '/api/trading/journal/', headers: trader.headers })).json(),
        );
        expect(journal.count).toBe(closed.length);
        expect(journal.results.map((e) => e.trade.id)).toEqual(
          closed
            .map((c) => c.id)
            .reverse()
            .slice(0, 20),
        );
      }),
      { seed, numRuns: Number(process.env.PROPERTY_RUNS ?? 12) },
    );
  }, 120_000);
});
