import type { OrderDto, PlatformDataDto, PositionDto } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedPriceSource } from '../../market/index.js';
import { insertSignedInTrader } from '../../test/factories.js';
import { freshDatabase, startTestApp, type TestApp } from '../../test/helpers.js';
import { auditAccount } from '../audit.js';

// docs/order-engine.md end to end: a real server (SQLite, or PostgreSQL with TEST_DATABASE_URL)
// driven tick by tick by a scripted price source, observed only through the API.

type Trader = Awaited<ReturnType<typeof insertSignedInTrader>>;

/**
 * A trader with a funded account and a session, straight in the database: these tests are about
 * triggers, not sign-in (auth/login.test.ts), and two scrypt hashes per trader cost more than the
 * trigger table itself.
 */
const newTrader = (app: TestApp) => insertSignedInTrader(app);

/** How long a tick that must trigger nothing is given to (wrongly) trigger something. */
const QUIET_MS = 80;

function harness() {
  const h = {
    app: undefined as unknown as TestApp,
    prices: new ScriptedPriceSource(),
    tick(bid: number, ask: number, symbol = 'EURUSD') {
      h.prices.push({ symbol, bid, ask, timestamp: Date.now() });
    },
    async call<T>(t: Trader, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, status = 200): Promise<T> {
      const res = await h.app.app.inject({
        method,
        url: `/api/trading/${url}`,
        headers: t.headers,
        ...(payload ? { payload } : {}),
      });
      if (res.statusCode !== status) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
      return res.json().data as T;
    },
    async pending(t: Trader, body: object): Promise<OrderDto> {
      return (
        await h.call<{ order: OrderDto }>(t, 'POST', 'place-pending-order/', { quantity: 0.1, symbol: 'EURUSD', ...body }, 201)
      ).order;
    },
    async market(t: Trader, body: object): Promise<PositionDto> {
      return (
        await h.call<{ position: PositionDto }>(
          t,
          'POST',
          'place-market-order/',
          { quantity: 0.1, symbol: 'EURUSD', ...body },
          201,
        )
      ).position;
    },
    async orders(t: Trader): Promise<OrderDto[]> {
      const res = await h.app.app.inject({ method: 'GET', url: '/api/trading/orders/?page_size=100', headers: t.headers });
      return res.json().results as OrderDto[];
    },
    async order(t: Trader, id: number): Promise<OrderDto> {
      const found = (await h.orders(t)).find((o) => o.id === id);
      if (!found) throw new Error(`order ${id} not found`);
      return found;
    },
    platform: (t: Trader) => h.call<PlatformDataDto>(t, 'GET', 'platform-data/'),
    /** Retries `check` until it passes (the engine executes after the tick, asynchronously). */
    eventually: <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 5_000, interval: 20 }),
    quiet: () => new Promise((r) => setTimeout(r, QUIET_MS)),
  };
  return h;
}

async function start(h: ReturnType<typeof harness>, db?: { dataDir: string; pgSchema?: string }) {
  h.app = await startTestApp({
    priceSource: h.prices,
    env: { CHART_HISTORY_DAYS: '0' },
    ...(db ? { ...db, keep: true } : {}),
  });
}

describe('triggers end to end', () => {
  const h = harness();
  beforeAll(async () => {
    h.tick(1.1, 1.1002);
    h.tick(150, 150.02, 'USDJPY');
    await start(h);
  });
  afterAll(async () => {
    await h.app?.close();
  });

  describe('the trigger table, row by row, both sides, at the price and through a gap', () => {
    // [side, type, price, a tick that must not trigger it, the tick at the price → its fill, a gap → its fill]
    const rows: Array<{
      name: string;
      side: 'BUY' | 'SELL';
      type: 'LIMIT' | 'STOP';
      price: number;
      quiet: [number, number];
      at: [number, number, number];
      gap: [number, number, number];
    }> = [
      // The bid at the price is not enough for a buy: it compares the ask.
      {
        name: 'BUY LIMIT',
        side: 'BUY',
        type: 'LIMIT',
        price: 1.099,
        quiet: [1.099, 1.0991],
        at: [1.0988, 1.099, 1.099],
        gap: [1.0968, 1.097, 1.097],
      },
      {
        name: 'SELL LIMIT',
        side: 'SELL',
        type: 'LIMIT',
        price: 1.101,
        quiet: [1.1009, 1.1011],
        at: [1.101, 1.1012, 1.101],
        gap: [1.103, 1.1032, 1.103],
      },
      {
        name: 'BUY STOP',
        side: 'BUY',
        type: 'STOP',
        price: 1.101,
        quiet: [1.1007, 1.1009],
        at: [1.1008, 1.101, 1.101],
        gap: [1.103, 1.1032, 1.1032],
      },
      {
        name: 'SELL STOP',
        side: 'SELL',
        type: 'STOP',
        price: 1.099,
        quiet: [1.0991, 1.0993],
        at: [1.099, 1.0992, 1.099],
        gap: [1.095, 1.0952, 1.095],
      },
    ];

    for (const row of rows) {
      it(`${row.name} fills at the tick's price (a gap fills ${row.type === 'LIMIT' ? 'better' : 'worse'})`, async () => {
        for (const [bid, ask, fill] of [row.at, row.gap]) {
          h.tick(1.1, 1.1002);
          const t = await newTrader(h.app);
          const placed = await h.pending(t, { side: row.side, order_type: row.type, price: row.price });
          expect(placed.status).toBe('PENDING');
          h.tick(...row.quiet);
          await h.quiet();
          expect((await h.order(t, placed.id)).status).toBe('PENDING');
          h.tick(bid, ask);
          const filled = await h.eventually(async () => {
            const o = await h.order(t, placed.id);
            expect(o.status).toBe('FILLED');
            return o;
          });
          expect(filled.average_fill_price).toBe(fill);
          expect(filled.reason).toBe('client');
          const [position] = (await h.platform(t)).open_positions;
          expect(position).toMatchObject({
            side: row.side === 'BUY' ? 'LONG' : 'SHORT',
            quantity: row.side === 'BUY' ? 0.1 : -0.1,
            average_entry_price: fill,
          });
          expect(await auditAccount(h.app.ctx.db, t.accountId!)).toEqual([]);
        }
      });
    }

    const protectionRows: Array<{
      name: string;
      side: 'BUY' | 'SELL';
      protection: { stop_loss?: number; take_profit?: number };
      reason: 'stop_loss' | 'take_profit';
      quiet: [number, number];
      at: [number, number, number];
      gap: [number, number, number];
    }> = [
      {
        name: 'stop loss of a LONG',
        side: 'BUY',
        protection: { stop_loss: 1.095 },
        reason: 'stop_loss',
        quiet: [1.0951, 1.0953],
        at: [1.095, 1.0952, 1.095],
        gap: [1.09, 1.0902, 1.09],
      },
      {
        name: 'take profit of a LONG',
        side: 'BUY',
        protection: { take_profit: 1.105 },
        reason: 'take_profit',
        quiet: [1.1049, 1.1051],
        at: [1.105, 1.1052, 1.105],
        gap: [1.11, 1.1102, 1.11],
      },
      {
        name: 'stop loss of a SHORT',
        side: 'SELL',
        protection: { stop_loss: 1.105 },
        reason: 'stop_loss',
        quiet: [1.1047, 1.1049],
        at: [1.1048, 1.105, 1.105],
        gap: [1.11, 1.1102, 1.1102],
      },
      {
        name: 'take profit of a SHORT',
        side: 'SELL',
        protection: { take_profit: 1.095 },
        reason: 'take_profit',
        quiet: [1.0949, 1.0951],
        at: [1.0948, 1.095, 1.095],
        gap: [1.09, 1.0902, 1.0902],
      },
    ];

    for (const row of protectionRows) {
      it(`the ${row.name} closes the whole position at the tick's price`, async () => {
        for (const [bid, ask, fill] of [row.at, row.gap]) {
          h.tick(1.1, 1.1002);
          const t = await newTrader(h.app);
          const position = await h.market(t, { side: row.side, quantity: 0.3, ...row.protection });
          h.tick(...row.quiet);
          await h.quiet();
          expect((await h.platform(t)).open_positions.map((p) => p.id)).toEqual([position.id]);
          h.tick(bid, ask);
          const close = await h.eventually(async () => {
            const o = (await h.orders(t)).find((x) => x.reason === row.reason);
            expect(o?.status).toBe('FILLED');
            return o!;
          });
          expect(close).toMatchObject({
            order_type: 'MARKET',
            side: row.side === 'BUY' ? 'SELL' : 'BUY',
            quantity: 0.3,
            average_fill_price: fill,
            position_id: position.id,
          });
          expect((await h.platform(t)).open_positions).toEqual([]);
          expect(await auditAccount(h.app.ctx.db, t.accountId!)).toEqual([]);
        }
      });
    }
  });

  it('a STOP_LIMIT triggers and fills on the same tick, or rests as a LIMIT until its limit is reached', async () => {
    h.tick(1.1, 1.1002);
    const t = await newTrader(h.app);
    const sameTick = await h.pending(t, { side: 'BUY', order_type: 'STOP_LIMIT', price: 1.101, limit_price: 1.1015 });
    const rests = await h.pending(t, { side: 'SELL', order_type: 'STOP_LIMIT', price: 1.099, limit_price: 1.0995 });
    h.tick(1.101, 1.1012); // crosses the BUY's stop; ask 1.1012 ≤ its limit 1.1015
    const filled = await h.eventually(async () => {
      const o = await h.order(t, sameTick.id);
      expect(o.status).toBe('FILLED');
      return o;
    });
    expect(filled.average_fill_price).toBe(1.1012);
    expect(filled.triggered_at).not.toBeNull();

    h.tick(1.0988, 1.099); // crosses the SELL's stop; bid 1.0988 < its limit 1.0995: it rests
    const triggered = await h.eventually(async () => {
      const o = await h.order(t, rests.id);
      expect(o.triggered_at).not.toBeNull();
      return o;
    });
    expect(triggered.status).toBe('PENDING');
    h.tick(1.0994, 1.0996);
    await h.quiet();
    expect((await h.order(t, rests.id)).status).toBe('PENDING');
    h.tick(1.0997, 1.0999); // bid ≥ 1.0995: a SELL LIMIT filled at this bid
    await h.eventually(async () => {
      const o = await h.order(t, rests.id);
      expect(o.status).toBe('FILLED');
      expect(o.average_fill_price).toBe(1.0997);
    });
  });

  it('runs one account’s triggers of one tick in order: protection first, then orders, older first', async () => {
    h.tick(1.1, 1.1002);
    const t = await newTrader(h.app);
    const long = await h.market(t, { side: 'BUY', stop_loss: 1.095 });
    const olderStop = await h.pending(t, { side: 'SELL', order_type: 'STOP', price: 1.095 });
    const newerLimit = await h.pending(t, { side: 'BUY', order_type: 'LIMIT', price: 1.0955 });
    // One tick crosses all three. The stop loss closes the LONG, the SELL STOP then opens a
    // SHORT, and the BUY LIMIT closes it. Any other order would leave a position open.
    h.tick(1.094, 1.0942);
    await h.eventually(async () => {
      const orders = await h.orders(t);
      expect(orders.find((o) => o.id === newerLimit.id)?.status).toBe('FILLED');
    });
    const data = await h.platform(t);
    expect(data.open_positions).toEqual([]);
    const trades = [...data.recent_trades].sort((a, b) => a.id - b.id);
    const orders = await h.orders(t);
    const reasonOf = (orderId: number) => orders.find((o) => o.id === orderId)!.reason;
    expect(trades.map((x) => [x.side, x.price, reasonOf(x.order), x.position === long.id])).toEqual([
      ['BUY', 1.1002, 'client', true],
      ['SELL', 1.094, 'stop_loss', true],
      ['SELL', 1.094, 'client', false],
      ['BUY', 1.0942, 'client', false],
    ]);
    expect(trades.slice(2).map((x) => x.order)).toEqual([olderStop.id, newerLimit.id]);
    expect(await auditAccount(h.app.ctx.db, t.accountId!)).toEqual([]);
  });

  it('a SHORT’s trailing stop follows the ask down, never up, and closes as a trailing stop', async () => {
    h.tick(150, 150.02, 'USDJPY');
    const t = await newTrader(h.app);
    const short = await h.market(t, { symbol: 'USDJPY', side: 'SELL', trailing_stop_pips: 25 });
    h.tick(149.8, 149.82, 'USDJPY'); // ask + 0.25 = 150.07
    h.tick(149.9, 149.92, 'USDJPY'); // up: stays
    await h.eventually(async () => {
      const [p] = (await h.platform(t)).open_positions;
      expect(p!.stop_loss).toBe(150.07);
    });
    h.tick(150.05, 150.07, 'USDJPY');
    const close = await h.eventually(async () => {
      const o = (await h.orders(t)).find((x) => x.reason === 'trailing_stop');
      expect(o?.status).toBe('FILLED');
      return o!;
    });
    expect(close).toMatchObject({ side: 'BUY', average_fill_price: 150.07, position_id: short.id });
  });

  it('expires a GTD order within a second of its expiry', async () => {
    h.tick(1.1, 1.1002);
    const t = await newTrader(h.app);
    const expiresAt = Date.now() + 1_200;
    const gtd = await h.pending(t, {
      side: 'BUY',
      order_type: 'LIMIT',
      price: 1.09,
      time_in_force: 'GTD',
      expires_at: new Date(expiresAt).toISOString(),
    });
    expect(gtd.status).toBe('PENDING');
    const expired = await h.eventually(async () => {
      const o = await h.order(t, gtd.id);
      expect(o.status).toBe('EXPIRED');
      return o;
    });
    const lateBy = Date.parse(expired.updated_at) - expiresAt;
    expect(lateBy).toBeGreaterThanOrEqual(0);
    expect(lateBy).toBeLessThanOrEqual(1_000);
    h.tick(1.0898, 1.09); // would have filled it
    await h.quiet();
    expect((await h.order(t, gtd.id)).status).toBe('EXPIRED');
  });
});

describe('a LONG’s trailing stop across a restart', () => {
  const h = harness();
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase();
    h.tick(1.1, 1.1002);
    await start(h, db);
  });
  afterAll(async () => {
    await h.app?.close();
    await db?.drop();
  });

  it('rises with the bid, holds when it falls, is at most a second behind on disk, and survives a restart', async () => {
    const t = await newTrader(h.app);
    const position = await h.market(t, { side: 'BUY', trailing_stop_pips: 20 });
    expect(position.stop_loss, 'a trailing stop with no stop loss starts at the fill: bid 1.1000 − 20 pips').toBe(1.098);
    const storedStop = async () => (await h.platform(t)).open_positions[0]?.stop_loss ?? null;

    h.tick(1.1, 1.1002); // the stop set at the fill, 1.0980, stays
    h.tick(1.101, 1.1012); // 1.0990
    h.tick(1.103, 1.1032); // 1.1010
    h.tick(1.102, 1.1022); // falls: stays at 1.1010
    h.tick(1.1015, 1.1017); // still above the stop: no close
    // Written within a second, without a restart.
    const movedAt = Date.now();
    await h.eventually(async () => expect(await storedStop()).toBe(1.101));
    expect(Date.now() - movedAt).toBeLessThan(2_500); // the one-second timer, the write, the polling, and a loaded CI machine
    expect((await h.orders(t)).filter((o) => o.reason === 'trailing_stop')).toEqual([]);

    // Moves made just before a stop are written by the stop itself.
    h.tick(1.104, 1.1042); // 1.1020
    await h.app.close();
    h.prices = new ScriptedPriceSource();
    h.tick(1.1035, 1.1037);
    await start(h, db);
    const t2 = { ...t, headers: t.headers };
    expect(await storedStop()).toBe(1.102);

    h.tick(1.1025, 1.1027); // above the stop: nothing
    await h.quiet();
    expect((await h.platform(t2)).open_positions).toHaveLength(1);
    h.tick(1.106, 1.1062); // 1.1040
    h.tick(1.104, 1.1042); // at the stop: closes at this bid
    const close = await h.eventually(async () => {
      const o = (await h.orders(t2)).find((x) => x.reason === 'trailing_stop');
      expect(o?.status).toBe('FILLED');
      return o!;
    });
    expect(close).toMatchObject({ side: 'SELL', average_fill_price: 1.104, position_id: position.id });
    expect(await auditAccount(h.app.ctx.db, t.accountId!)).toEqual([]);
  });
});
