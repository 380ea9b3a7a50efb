import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import type { Pair, PairCatalog } from '../../market/index.js';
import { MemoryPriceBook } from '../../market/price-book.js';
import { MemoryBus } from '../../realtime/bus.js';
import type { OrderEngine } from './engine.js';
import { createOrderEngine } from './index.js';
import {
  ENGINE_TOPIC,
  type EngineChange,
  type ProtectionState,
  type RestingOrderState,
  type TriggerExecutor,
  type TriggerOutcome,
  type TriggerQuote,
} from './ports.js';

// The engine's runtime with a stand-in executor (the database side is E2E-tested in
// triggers.test.ts): leadership and loading, the bus, ordering and concurrency per account,
// failures, trailing writes, expiry.

const pair = (id: number, symbol: string, jpy = false): Pair => ({
  id,
  symbol,
  name: symbol,
  baseCurrency: symbol.slice(0, 3),
  quoteCurrency: symbol.slice(3),
  minLotSize: 0.01,
  maxLotSize: 100,
  contractSize: 100_000,
  spread: 1,
  pipSize: jpy ? 0.01 : 0.0001,
  digits: jpy ? 3 : 5,
  isActive: true,
});
const PAIRS = [pair(1, 'EURUSD'), pair(2, 'USDJPY', true)];
const catalog: PairCatalog = { list: () => PAIRS, get: (s) => PAIRS.find((p) => p.symbol === s.toUpperCase()) };

const logged: string[] = [];
const log = {
  info() {},
  warn() {},
  debug() {},
  error(_obj: unknown, msg: string) {
    logged.push(msg);
  },
} as unknown as FastifyBaseLogger;

let nextId = 1;
function order(fields: Partial<RestingOrderState> & Pick<RestingOrderState, 'side' | 'orderType' | 'price'>): RestingOrderState {
  const id = nextId++;
  return {
    orderId: id,
    accountId: 1,
    userId: 1,
    symbol: 'EURUSD',
    limitPrice: null,
    triggeredAt: null,
    expiresAt: null,
    createdAt: id,
    ...fields,
  };
}
function protection(fields: Partial<ProtectionState> & Pick<ProtectionState, 'long'>): ProtectionState {
  const id = nextId++;
  return {
    positionId: id,
    accountId: 1,
    userId: 1,
    symbol: 'EURUSD',
    stopLoss: null,
    takeProfit: null,
    trailingStopPips: null,
    openedAt: id,
    ...fields,
  };
}

type Call =
  | { call: 'fill'; orderId: number; quote: TriggerQuote }
  | { call: 'mark'; orderId: number }
  | { call: 'close'; positionId: number; reason: string; quote: TriggerQuote }
  | { call: 'expire'; orderId: number }
  | { call: 'save'; moves: Array<{ positionId: number; stopLoss: string }> }
  | { call: 'load' };

/** A TriggerExecutor that records its calls; `hook` may delay or fail one. */
class FakeExecutor implements TriggerExecutor {
  calls: Call[] = [];
  armed: { orders: RestingOrderState[]; protections: ProtectionState[] } = { orders: [], protections: [] };
  hook: (call: Call) => Promise<TriggerOutcome | undefined> | TriggerOutcome | undefined = () => undefined;

  private async run(call: Call, fallback: TriggerOutcome): Promise<TriggerOutcome> {
    this.calls.push(call);
    return (await this.hook(call)) ?? fallback;
  }
  fillPendingOrder(orderId: number, quote: TriggerQuote) {
    return this.run({ call: 'fill', orderId, quote }, 'filled');
  }
  markStopLimitTriggered(orderId: number) {
    return this.run({ call: 'mark', orderId }, 'filled');
  }
  closeByProtection(positionId: number, reason: string, quote: TriggerQuote) {
    return this.run({ call: 'close', positionId, reason, quote }, 'filled');
  }
  expireOrder(orderId: number) {
    return this.run({ call: 'expire', orderId }, 'expired');
  }
  async saveTrailingStops(moves: ReadonlyArray<{ positionId: number; stopLoss: string }>) {
    await this.run({ call: 'save', moves: [...moves] }, 'filled');
  }
  async loadArmed() {
    await this.run({ call: 'load' }, 'filled');
    return { orders: [...this.armed.orders], protections: [...this.armed.protections] };
  }
  names(): string[] {
    return this.calls.map((c) =>
      c.call === 'fill' || c.call === 'mark' || c.call === 'expire'
        ? `${c.call} ${c.orderId}`
        : c.call === 'close'
          ? `close ${c.positionId} ${c.reason}`
          : c.call,
    );
  }
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const engines: OrderEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await Promise.race([engine.stop(), new Promise((r) => setTimeout(r, 2_000))]);
  logged.length = 0;
});

async function harness(options: { leader?: boolean; armed?: FakeExecutor['armed'] } = {}) {
  const clock = new ManualClock(1_000_000);
  const bus = new MemoryBus();
  const prices = new MemoryPriceBook((err) => {
    throw err;
  });
  const executor = new FakeExecutor();
  if (options.armed) executor.armed = options.armed;
  const leadership = { leader: options.leader ?? true };
  const engine = createOrderEngine(
    { bus, clock, log },
    { market: { pairs: catalog, prices, isLeader: () => leadership.leader }, executor },
    { checkEveryMs: 5, trailingWriteEveryMs: 40, retryAfterMs: 50 },
  );
  engines.push(engine);
  await engine.start();
  const tick = (bid: number, ask: number, symbol = 'EURUSD') =>
    prices.apply({ symbol, bid, ask, mid: (bid + ask) / 2, timestamp: clock.now() }, clock.now());
  const publish = (change: EngineChange) => bus.publish('message', { topic: ENGINE_TOPIC, payload: change });
  return { clock, bus, prices, executor, leadership, engine, tick, publish };
}

describe('the order engine', () => {
  it('on the leader, loads the armed orders at start and fills at the triggering tick’s price', async () => {
    const limit = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    const sl = protection({ long: true, stopLoss: '1.0950' });
    const h = await harness({ armed: { orders: [limit], protections: [sl] } });
    expect(h.engine.status()).toMatchObject({ mode: 'leading', orders: 1, protections: 1 });
    h.tick(1.1001, 1.1003);
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load']);
    h.tick(1.0985, 1.0987); // a gap through the limit: filled at this ask, better than asked
    await h.engine.idle();
    expect(h.executor.calls[1]).toEqual({
      call: 'fill',
      orderId: limit.orderId,
      quote: { symbol: 'EURUSD', bid: '1.09850', ask: '1.09870', timestamp: h.clock.now(), receivedAt: h.clock.now() },
    });
    h.tick(1.094, 1.0942);
    await h.engine.idle();
    expect(h.executor.names().slice(2)).toEqual([`close ${sl.positionId} stop_loss`]);
    expect(h.engine.status()).toMatchObject({ orders: 0, protections: 0, held: 0 });
  });

  it('never touches the executor on a tick that triggers nothing', async () => {
    const h = await harness({
      armed: { orders: [order({ side: 'SELL', orderType: 'LIMIT', price: '1.2000' })], protections: [] },
    });
    for (let i = 0; i < 200; i++) h.tick(1.1 + i * 0.00001, 1.1002 + i * 0.00001);
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load']);
  });

  it('a follower neither loads nor acts; once it leads it loads before acting on a tick', async () => {
    const limit = order({ side: 'SELL', orderType: 'LIMIT', price: '1.1000' });
    const h = await harness({ leader: false, armed: { orders: [limit], protections: [] } });
    h.tick(1.101, 1.1012);
    expect(h.executor.names()).toEqual([]);
    expect(h.engine.status().mode).toBe('follower');

    const load = deferred<void>();
    h.executor.hook = (call) => (call.call === 'load' ? load.promise.then(() => undefined) : undefined);
    h.leadership.leader = true;
    h.tick(1.101, 1.1012); // noticed: loading starts; this tick is not acted on
    expect(h.engine.status().mode).toBe('loading');
    const placedMeanwhile = order({ side: 'BUY', orderType: 'STOP', price: '1.1010' });
    h.publish({ kind: 'order', order: placedMeanwhile }); // applied after the load
    h.tick(1.1011, 1.1013);
    expect(h.executor.names()).toEqual(['load']);
    load.resolve();
    await vi.waitFor(() => expect(h.engine.status().mode).toBe('leading'));
    h.tick(1.1011, 1.1013);
    await h.engine.idle();
    expect(h.executor.names().slice(1).sort()).toEqual([`fill ${limit.orderId}`, `fill ${placedMeanwhile.orderId}`].sort());
  });

  it('stops acting when it stops leading, and reloads when it leads again', async () => {
    const h = await harness();
    h.leadership.leader = false;
    const limit = order({ side: 'SELL', orderType: 'LIMIT', price: '1.1000' });
    h.publish({ kind: 'order', order: limit });
    h.tick(1.101, 1.1012);
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load']);
    expect(h.engine.status().mode).toBe('follower');
    h.executor.armed = { orders: [limit], protections: [] };
    h.leadership.leader = true;
    await vi.waitFor(() => expect(h.engine.status().mode).toBe('leading'));
    h.tick(1.101, 1.1012);
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load', 'load', `fill ${limit.orderId}`]);
  });

  it('follows orders and protection over the bus', async () => {
    const h = await harness();
    const limit = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    const cancelled = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000' });
    const p = protection({ long: false, takeProfit: '1.1000' });
    h.publish({ kind: 'order', order: limit });
    h.publish({ kind: 'order', order: cancelled });
    h.publish({ kind: 'order_gone', orderId: cancelled.orderId, symbol: 'EURUSD' });
    h.publish({ kind: 'protection', protection: p });
    h.publish({ kind: 'order', order: { ...limit, price: '1.0990' } }); // modified
    h.tick(1.0997, 1.0999);
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load', `close ${p.positionId} take_profit`]);
    h.publish({ kind: 'protection_gone', positionId: p.positionId, symbol: 'EURUSD' });
    h.tick(1.0988, 1.099);
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load', `close ${p.positionId} take_profit`, `fill ${limit.orderId}`]);
  });

  it('runs one account’s triggers one after another in order, other accounts alongside', async () => {
    const olderOrder = order({ side: 'SELL', orderType: 'STOP', price: '1.0990', accountId: 1 });
    const newerOrder = order({ side: 'BUY', orderType: 'LIMIT', price: '1.0990', accountId: 1 });
    const position = protection({ long: true, stopLoss: '1.0995', accountId: 1, openedAt: 999 });
    const otherAccount = order({ side: 'SELL', orderType: 'STOP', price: '1.0990', accountId: 2 });
    const h = await harness({ armed: { orders: [newerOrder, olderOrder, otherAccount], protections: [position] } });
    const gates = new Map<string, ReturnType<typeof deferred<void>>>();
    h.executor.hook = async (call) => {
      const gate = deferred<void>();
      gates.set(`${call.call} ${'orderId' in call ? call.orderId : 'positionId' in call ? call.positionId : ''}`, gate);
      await gate.promise;
      return undefined;
    };
    h.tick(1.098, 1.0982);
    // Account 1 waits on its first step; account 2 runs at the same time.
    await vi.waitFor(() =>
      expect(h.executor.names().slice(1).sort()).toEqual(
        [`close ${position.positionId} stop_loss`, `fill ${otherAccount.orderId}`].sort(),
      ),
    );
    gates.get(`close ${position.positionId}`)!.resolve();
    await vi.waitFor(() => expect(h.executor.names()).toContain(`fill ${olderOrder.orderId}`));
    expect(h.executor.names()).not.toContain(`fill ${newerOrder.orderId}`);
    gates.get(`fill ${olderOrder.orderId}`)!.resolve();
    await vi.waitFor(() => expect(h.executor.names()).toContain(`fill ${newerOrder.orderId}`));
    for (const gate of gates.values()) gate.resolve();
    await h.engine.idle();
    const account1 = h.executor.names().filter((n) => !n.endsWith(` ${otherAccount.orderId}`));
    expect(account1).toEqual([
      'load',
      `close ${position.positionId} stop_loss`,
      `fill ${olderOrder.orderId}`,
      `fill ${newerOrder.orderId}`,
    ]);
  });

  it('a later tick’s triggers of an account wait for the earlier ones', async () => {
    const first = order({ side: 'SELL', orderType: 'LIMIT', price: '1.1000' });
    const second = order({ side: 'SELL', orderType: 'LIMIT', price: '1.1010' });
    const h = await harness({ armed: { orders: [first, second], protections: [] } });
    const gate = deferred<void>();
    h.executor.hook = (call) =>
      call.call === 'fill' && call.orderId === first.orderId ? gate.promise.then(() => undefined) : undefined;
    h.tick(1.1, 1.1002);
    h.tick(1.101, 1.1012);
    await vi.waitFor(() => expect(h.executor.names()).toEqual(['load', `fill ${first.orderId}`]));
    await new Promise((r) => setTimeout(r, 20));
    expect(h.executor.names()).toEqual(['load', `fill ${first.orderId}`]);
    gate.resolve();
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load', `fill ${first.orderId}`, `fill ${second.orderId}`]);
  });

  it('a failure is logged and retried on a later crossing tick; the rest carries on; a stale one is dropped', async () => {
    const failing = order({ side: 'BUY', orderType: 'STOP', price: '1.1000', accountId: 1 });
    const fine = order({ side: 'BUY', orderType: 'STOP', price: '1.1000', accountId: 2 });
    const stale = order({ side: 'BUY', orderType: 'STOP', price: '1.1000', accountId: 3 });
    const h = await harness({ armed: { orders: [failing, fine, stale], protections: [] } });
    let failures = 1;
    h.executor.hook = (call) => {
      if (call.call === 'fill' && call.orderId === failing.orderId && failures-- > 0) throw new Error('database away');
      if (call.call === 'fill' && call.orderId === stale.orderId) return 'stale';
      return undefined;
    };
    h.tick(1.1, 1.1002);
    await h.engine.idle();
    expect(logged).toEqual(['order engine: filling an order failed; retrying']);
    expect(h.executor.names().slice(1).sort()).toEqual(
      [`fill ${failing.orderId}`, `fill ${fine.orderId}`, `fill ${stale.orderId}`].sort(),
    );
    // Not before the retry delay…
    h.tick(1.1, 1.1002);
    await h.engine.idle();
    expect(h.executor.calls.length).toBe(4);
    // …then on the next tick that still crosses it.
    h.clock.advance(60);
    await new Promise((r) => setTimeout(r, 30));
    h.tick(1.1, 1.1002);
    await h.engine.idle();
    expect(h.executor.names().slice(4)).toEqual([`fill ${failing.orderId}`]);
    expect(h.engine.status()).toMatchObject({ orders: 0, held: 0 });
  });

  it('a protection close the executor refuses is re-armed; one found stale is dropped', async () => {
    const refused = protection({ long: true, stopLoss: '1.1000', accountId: 1 });
    const stale = protection({ long: true, stopLoss: '1.1000', accountId: 2 });
    const h = await harness({ armed: { orders: [], protections: [refused, stale] } });
    h.executor.hook = (call) =>
      call.call === 'close' ? (call.positionId === refused.positionId ? 'rejected' : 'stale') : undefined;
    h.tick(1.099, 1.0992);
    await h.engine.idle();
    h.executor.hook = () => undefined;
    h.clock.advance(60);
    await new Promise((r) => setTimeout(r, 30));
    h.tick(1.099, 1.0992);
    await h.engine.idle();
    expect(h.executor.names().slice(1)).toEqual([
      `close ${refused.positionId} stop_loss`,
      `close ${stale.positionId} stop_loss`,
      `close ${refused.positionId} stop_loss`,
    ]);
  });

  it('a STOP_LIMIT records its trigger, then fills on the same tick at that tick’s price', async () => {
    const stopLimit = order({ side: 'SELL', orderType: 'STOP_LIMIT', price: '1.1000', limitPrice: '1.0990' });
    const resting = order({ side: 'SELL', orderType: 'STOP_LIMIT', price: '1.1000', limitPrice: '1.1005' });
    const h = await harness({ armed: { orders: [stopLimit, resting], protections: [] } });
    h.tick(1.0995, 1.0997);
    await h.engine.idle();
    expect(h.executor.names()).toEqual([
      'load',
      `mark ${stopLimit.orderId}`,
      `fill ${stopLimit.orderId}`,
      `mark ${resting.orderId}`,
    ]);
    expect(h.executor.calls[2]).toMatchObject({ quote: { bid: '1.09950', ask: '1.09970' } });
    h.tick(1.1005, 1.1007);
    await h.engine.idle();
    expect(h.executor.names().slice(4)).toEqual([`fill ${resting.orderId}`]);
  });

  it('moves trailing stops in memory at once and writes them at most once a period, batched', async () => {
    const a = protection({ long: true, trailingStopPips: 10 });
    const b = protection({ long: false, stopLoss: '151.000', trailingStopPips: 10, symbol: 'USDJPY' });
    const h = await harness({ armed: { orders: [], protections: [a, b] } });
    for (let i = 0; i < 50; i++) {
      h.tick(1.1 + i * 0.0001, 1.1002 + i * 0.0001);
      h.tick(150 - i * 0.01, 150.02 - i * 0.01, 'USDJPY');
    }
    // The last ticks: EURUSD bid 1.1049, USDJPY ask 149.530.
    const saves = () => h.executor.calls.filter((c) => c.call === 'save');
    expect(saves()).toEqual([]);
    await vi.waitFor(() => expect(saves().length).toBe(1));
    expect(saves()[0]!.moves).toEqual(
      expect.arrayContaining([
        { positionId: a.positionId, stopLoss: '1.1039' },
        { positionId: b.positionId, stopLoss: '149.63' },
      ]),
    );
    // A failed write is written again, with the latest value.
    h.executor.hook = (call) => {
      if (call.call === 'save' && saves().length === 2) throw new Error('database away');
      return undefined;
    };
    h.tick(1.106, 1.1062);
    await vi.waitFor(() => expect(saves().length).toBe(2));
    h.tick(1.107, 1.1072);
    await vi.waitFor(() => expect(saves().length).toBe(3));
    expect(saves()[2]!.moves).toEqual([{ positionId: a.positionId, stopLoss: '1.106' }]);
    // Nothing moved: nothing written.
    await new Promise((r) => setTimeout(r, 100));
    expect(saves().length).toBe(3);
  });

  it('writes the unwritten trailing stops when it stops', async () => {
    const a = protection({ long: true, trailingStopPips: 10 });
    const h = await harness({ armed: { orders: [], protections: [a] } });
    h.tick(1.1, 1.1002);
    await h.engine.stop();
    expect(h.executor.calls.filter((c) => c.call === 'save')).toEqual([
      { call: 'save', moves: [{ positionId: a.positionId, stopLoss: '1.099' }] },
    ]);
  });

  it('expires GTD orders within a second without a tick, and before a tick could fill them', async () => {
    const h = await harness();
    const soon = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000', expiresAt: h.clock.now() + 500 });
    const later = order({ side: 'BUY', orderType: 'LIMIT', price: '1.1000', expiresAt: h.clock.now() + 5_000 });
    h.publish({ kind: 'order', order: soon });
    h.publish({ kind: 'order', order: later });
    h.clock.advance(500);
    await vi.waitFor(() => expect(h.executor.names()).toEqual(['load', `expire ${soon.orderId}`]));
    h.clock.advance(4_500);
    h.tick(1.099, 1.0992); // crosses `later`, which expired at this very moment
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load', `expire ${soon.orderId}`, `expire ${later.orderId}`]);
  });

  it('retries a failed load', async () => {
    const limit = order({ side: 'SELL', orderType: 'LIMIT', price: '1.1000' });
    const h = await harness({ leader: false, armed: { orders: [limit], protections: [] } });
    let fail = true;
    h.executor.hook = (call) => {
      if (call.call === 'load' && fail) {
        fail = false;
        throw new Error('database away');
      }
      return undefined;
    };
    h.leadership.leader = true;
    await vi.waitFor(() => expect(logged).toContain('order engine: loading the armed orders failed; retrying'));
    expect(h.engine.status().mode).toBe('follower');
    h.clock.advance(60);
    await vi.waitFor(() => expect(h.engine.status().mode).toBe('leading'));
    h.tick(1.101, 1.1012);
    await h.engine.idle();
    expect(h.executor.names()).toEqual(['load', 'load', `fill ${limit.orderId}`]);
  });
});
