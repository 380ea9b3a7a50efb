import type { OrderDto, PositionDto } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedPriceSource } from '../../market/index.js';
import { insertSignedInTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { auditAccount } from '../audit.js';

/**
 * Trailing stops between two writes (docs/order-engine.md#trailing-stops: a moved stop takes
 * effect in memory at once, is written at most once a second, never moves back). Two cases
 * the property test (orders.property.test.ts) found, end to end on a real server driven by a
 * scripted price source: a change of the position's protection, or a fill that replaces it,
 * arriving while a trailing move is not yet written.
 */

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

describe('trailing stops moved in memory and not yet written', () => {
  const prices = new ScriptedPriceSource();
  let t: TestApp;
  const tick = (bid: number, ask: number, symbol = 'EURUSD') => prices.push({ symbol, bid, ask, timestamp: Date.now() });

  beforeAll(async () => {
    tick(1.1, 1.1002);
    tick(150, 150.02, 'USDJPY');
    t = await startTestApp({ priceSource: prices, env: { CHART_HISTORY_DAYS: '0' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function call<T>(trader: Trader, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, status = 200) {
    const res = await t.app.inject({
      method,
      url: `/api/trading/${url}`,
      headers: trader.headers,
      ...(payload ? { payload } : {}),
    });
    if (res.statusCode !== status) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
    return res.json().data as T;
  }
  const market = async (trader: Trader, body: object) =>
    (await call<{ position: PositionDto }>(trader, 'POST', 'place-market-order/', { quantity: 0.1, ...body }, 201)).position;
  const orders = async (trader: Trader) =>
    (await t.app.inject({ method: 'GET', url: '/api/trading/orders/?page_size=100', headers: trader.headers })).json()
      .results as OrderDto[];
  const positions = async (trader: Trader) =>
    (await call<{ open_positions: PositionDto[] }>(trader, 'GET', 'platform-data/')).open_positions;

  it('a trailing stop with no stop loss starts at the fill: the answer, the positions table and the database carry it', async () => {
    tick(1.1, 1.1002);
    tick(150, 150.02, 'USDJPY');
    const trader = await insertSignedInTrader(t);
    const long = await market(trader, { symbol: 'EURUSD', side: 'BUY', trailing_stop_pips: 20 });
    expect(long.stop_loss, 'bid 1.10000 − 20 pips').toBe(1.098);
    const short = await market(trader, { symbol: 'USDJPY', side: 'SELL', trailing_stop_pips: 15 });
    expect(short.stop_loss, 'ask 150.020 + 15 pips').toBe(150.17);
    const listed = await positions(trader);
    expect(listed.find((p) => p.id === long.id)?.stop_loss).toBe(1.098);
    expect(listed.find((p) => p.id === short.id)?.stop_loss).toBe(150.17);
    const stored = await t.ctx.db.kysely
      .selectFrom('positions')
      .select(['id', 'stop_loss_e10'])
      .where('account_id', '=', trader.accountId!)
      .orderBy('id')
      .execute();
    expect(stored.map((r) => Number(r.stop_loss_e10) / 1e10)).toEqual([1.098, 150.17]);
    // A stop loss the trader sets is kept as given; the trailing moves it from there.
    const other = await insertSignedInTrader(t);
    expect((await market(other, { symbol: 'EURUSD', side: 'BUY', stop_loss: 1.09, trailing_stop_pips: 20 })).stop_loss).toBe(
      1.09,
    );
  });

  it('a PATCH of the take profit keeps the trailing stop where the ticks moved it (it never moves back)', async () => {
    tick(1.1, 1.1002);
    const trader = await insertSignedInTrader(t);
    const position = await market(trader, { symbol: 'EURUSD', side: 'BUY', stop_loss: 1.095, trailing_stop_pips: 20 });
    tick(1.1, 1.1002); // the stop trails to 1.0980
    tick(1.101, 1.1012); // 1.0990, in memory: written within a second
    // Changes only the take profit: "fields left out keep their value".
    await call(trader, 'PATCH', `positions/${position.id}/`, { take_profit: 1.12 });
    tick(1.0985, 1.0987); // at or below 1.0990: the trailing stop closes the position at this bid
    const close = await vi.waitFor(
      async () => {
        const o = (await orders(trader)).find((x) => x.reason === 'trailing_stop');
        expect(o?.status, 'the PATCH moved the trailing stop back to the one last written').toBe('FILLED');
        return o!;
      },
      { timeout: 3_000, interval: 20 },
    );
    expect(close).toMatchObject({ side: 'SELL', average_fill_price: 1.0985, position_id: position.id });
    expect(await auditAccount(t.ctx.db, trader.accountId!)).toEqual([]);
  });

  it('a fill that replaces the protection on the tick that moved the stop does not stop other trailing stops being written', async () => {
    tick(1.099, 1.0992);
    tick(150, 150.02, 'USDJPY');
    const replaced = await insertSignedInTrader(t);
    await market(replaced, { symbol: 'EURUSD', side: 'BUY', trailing_stop_pips: 20 });
    // Adds to the long and, carrying protection, replaces its protection (docs/orders.md#protection): no stop loss yet.
    const stop = await call<{ order: OrderDto }>(
      replaced,
      'POST',
      'place-pending-order/',
      { symbol: 'EURUSD', side: 'BUY', order_type: 'STOP', quantity: 0.1, price: 1.1, take_profit: 1.12, trailing_stop_pips: 20 },
      201,
    );
    const other = await insertSignedInTrader(t);
    await market(other, { symbol: 'USDJPY', side: 'BUY', trailing_stop_pips: 20 });

    tick(1.1, 1.1002); // moves the first long's stop to 1.0980 in memory, and fills the BUY STOP
    await vi.waitFor(async () => expect((await orders(replaced)).find((o) => o.id === stop.order.id)?.status).toBe('FILLED'), {
      timeout: 3_000,
      interval: 20,
    });
    tick(150.1, 150.12, 'USDJPY'); // the other trader's stop trails to 149.900
    const movedAt = Date.now();
    // Written within a second (the writer's period), whatever another position did.
    await vi.waitFor(
      async () => {
        const [p] = await positions(other);
        expect(p!.stop_loss, 'the trailing writer keeps failing on the replaced position (stop loss null)').toBe(149.9);
      },
      { timeout: 4_000, interval: 50 },
    );
    expect(Date.now() - movedAt).toBeLessThan(2_500); // one writer period plus a loaded CI machine's slack
  });
});
