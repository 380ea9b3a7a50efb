import {
  type ModifyOrderRequest,
  type ModifyPositionRequest,
  modifyOrderRequestSchema,
  modifyPositionRequestSchema,
  placePendingOrderRequestSchema,
} from '@pipdesk/contract';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { AppError } from '../../errors.js';
import { ScriptedPriceSource } from '../../market/index.js';
import { MemoryBus } from '../../realtime/bus.js';
import { FakeMarket, insertTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { auditAccount } from '../audit.js';
import { createTradingService } from '../service.js';
import { createOrderEngine } from './index.js';

/**
 * Random sequences of ticks, market orders with protection, pending orders of every type (GTC
 * and GTD), modifications, cancels, protection changes, closes (whole and partial), time
 * passing and the trailing-stop writer firing, run through the real commands and the real
 * trigger engine (the one the app builds, fed by a price book the test ticks, on the
 * database of the run), against a small reference model of the rules (docs/orders.md, docs/order-engine.md)
 * (docs/orders.md, docs/order-engine.md) with no code shared with the server. After every step:
 * the ledger and position invariants hold (audit.ts), every order is stored as the model says
 * (status, fill price, triggered, prices, expiry, protection), the open positions and the
 * balance are the model's.
 *
 * Deterministic: the clock is manual, the engine's timers are parked (expiry runs on ticks, the
 * trailing writer is a step of its own), and after each tick the test waits for the engine to
 * be idle. Replay a failure with ORDERS_PROPERTY_SEED=<seed printed below>
 * (ORDERS_PROPERTY_RUNS for more runs).
 */

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
type Dn = InstanceType<typeof D>;

const SYMBOLS = ['EURUSD', 'USDJPY'] as const;
type Sym = (typeof SYMBOLS)[number];
const DIGITS: Record<Sym, number> = { EURUSD: 5, USDJPY: 3 };
/** Prices are held in points (10^-digits); a pip is 10 points on both pairs. */
const CENTER: Record<Sym, number> = { EURUSD: 110_000, USDJPY: 150_000 };
const PIP = 10;
const CONTRACT = 100_000;
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 5, 12, 0, 0);

const toNumber = (s: Sym, points: number) => points / 10 ** DIGITS[s];
const toDec = (s: Sym, points: number) => new D(points).div(10 ** DIGITS[s]);
const toE10 = (s: Sym, points: number | null) => (points === null ? null : points * 10 ** (10 - DIGITS[s]));

type Side = 'BUY' | 'SELL';
type PendingType = 'LIMIT' | 'STOP' | 'STOP_LIMIT';
type Status = 'PENDING' | 'FILLED' | 'CANCELLED' | 'EXPIRED' | 'REJECTED';
type Reason = 'client' | 'close' | 'stop_loss' | 'take_profit' | 'trailing_stop';

/** A protection distance in points from the reference price: positive is the valid side, null none. */
type Dist = number | null;

type Action =
  | { kind: 'tick'; symbol: Sym; move: number; jump: boolean; spread: number }
  | { kind: 'retick'; symbol: Sym }
  | { kind: 'market'; symbol: Sym; side: Side; centilots: number; sl: Dist; tp: Dist; trail: number | null }
  | {
      kind: 'pending';
      symbol: Sym;
      side: Side;
      type: PendingType;
      centilots: number;
      dist: number;
      limitDist: number;
      gtdSeconds: number | null;
      sl: Dist;
      tp: Dist;
      trail: number | null;
    }
  | {
      kind: 'modify';
      pick: number;
      dist?: number;
      limitDist?: number;
      tif?: { tif?: 'GTC' | 'GTD'; seconds?: number | null };
      sl?: Dist;
      tp?: Dist;
      trail?: number | null;
    }
  | { kind: 'cancel'; pick: number }
  | { kind: 'protect'; pick: number; sl?: Dist; tp?: Dist; trail?: number | null }
  | { kind: 'close'; pick: number; part: number | null }
  | { kind: 'advance'; seconds: number }
  | { kind: 'write' };

// ------------------------------------------------------------------ the generators

const symbolArb = fc.constantFrom(...SYMBOLS);
const sideArb = fc.constantFrom<Side>('BUY', 'SELL');
const centilotsArb = fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 400 }));
/** Mostly valid (positive), sometimes on the wrong side or at the price (a 400). */
const distArb = fc.oneof(
  { weight: 9, arbitrary: fc.integer({ min: 1, max: 100 }) },
  { weight: 1, arbitrary: fc.integer({ min: -20, max: 0 }) },
);
const protDistArb: fc.Arbitrary<Dist> = fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: distArb });
const trailArb = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 5, max: 30 }) });

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      symbol: symbolArb,
      move: fc.integer({ min: -80, max: 80 }),
      // Now and then a jump (a gap) to anywhere near the centre instead of a move.
      jump: fc.integer({ min: 0, max: 4 }).map((n) => n === 4),
      spread: fc.integer({ min: 1, max: 20 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retick' as const), symbol: symbolArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('market' as const),
      symbol: symbolArb,
      side: sideArb,
      centilots: centilotsArb,
      sl: protDistArb,
      tp: protDistArb,
      trail: trailArb,
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('pending' as const),
      symbol: symbolArb,
      side: sideArb,
      type: fc.constantFrom<PendingType>('LIMIT', 'STOP', 'STOP_LIMIT'),
      centilots: centilotsArb,
      dist: distArb,
      limitDist: fc.integer({ min: -60, max: 60 }),
      gtdSeconds: fc.oneof(
        { weight: 2, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.integer({ min: -1, max: 90 }) },
      ),
      sl: protDistArb,
      tp: protDistArb,
      trail: trailArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('modify' as const),
        pick: fc.nat(),
        dist: distArb,
        limitDist: fc.integer({ min: -60, max: 60 }),
        tif: fc.oneof(
          fc.record({ tif: fc.constant<'GTC'>('GTC') }),
          fc.record({ tif: fc.constant<'GTD'>('GTD'), seconds: fc.integer({ min: -1, max: 90 }) }),
          fc.record({ seconds: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 90 })) }),
        ),
        sl: protDistArb,
        tp: protDistArb,
        trail: trailArb,
      },
      { requiredKeys: ['kind', 'pick'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record(
      { kind: fc.constant('protect' as const), pick: fc.nat(), sl: protDistArb, tp: protDistArb, trail: trailArb },
      { requiredKeys: ['kind', 'pick'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('close' as const),
      pick: fc.nat(),
      part: fc.option(fc.integer({ min: 1, max: 300 }), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'write' as const }) },
);

// ------------------------------------------------------------------ the reference model

interface ModelOrder {
  /** The stored id, learnt from the answer or from the database after the step. */
  id: number | null;
  symbol: Sym;
  type: 'MARKET' | PendingType;
  side: Side;
  centilots: number;
  status: Status;
  reason: Reason;
  /** Points; null for MARKET. */
  price: number | null;
  limit: number | null;
  tif: 'GTC' | 'GTD';
  expiresAt: number | null;
  triggered: boolean;
  fill: number | null;
  sl: number | null;
  tp: number | null;
  trail: number | null;
}

interface ModelPosition {
  /** -1 until learnt from the database. */
  id: number;
  qty: Dn; // signed lots
  avg: Dn;
  /** The protection as it is in force (a trailing stop's moves at once). */
  sl: number | null;
  tp: number | null;
  trail: number | null;
  /** A trailing move not yet written: the stored stop loss may be behind (at most until the writer runs). */
  unwritten: boolean;
}

interface Protection {
  sl: number | null;
  tp: number | null;
  trail: number | null;
}
const NONE: Protection = { sl: null, tp: null, trail: null };
const hasAny = (p: Protection) => p.sl !== null || p.tp !== null || p.trail !== null;

type Outcome = { ok: true } | { ok: false; status: 400 | 409 | 422 };
const ok: Outcome = { ok: true };
const fail = (status: 400 | 409 | 422): Outcome => ({ ok: false, status });

class Model {
  readonly quotes = new Map<Sym, { bid: number; ask: number }>();
  readonly positions = new Map<Sym, ModelPosition>();
  readonly orders: ModelOrder[] = [];
  /** Every position id seen, and whether it is still open. */
  readonly positionIds = new Map<number, Sym | null>();
  now = START;

  constructor(
    public balanceCents: number,
    readonly leverage: number,
  ) {}

  private mid(s: Sym): Dn {
    const q = this.quotes.get(s)!;
    return toDec(s, q.bid).plus(toDec(s, q.ask)).div(2);
  }

  private toUsd(amount: Dn, currency: string): Dn {
    if (currency === 'USD') return amount;
    if (currency === 'EUR') return amount.times(this.mid('EURUSD'));
    if (currency === 'JPY') return amount.div(this.mid('USDJPY'));
    throw new Error(currency);
  }

  private freeMargin(): Dn {
    let equity = new D(this.balanceCents).div(100);
    let margin = new D(0);
    for (const [s, p] of this.positions) {
      const q = this.quotes.get(s)!;
      const close = toDec(s, p.qty.isPositive() ? q.bid : q.ask);
      const units = p.qty.times(CONTRACT);
      equity = equity.plus(this.toUsd(units.times(close.minus(p.avg)), s.slice(3)));
      margin = margin.plus(this.toUsd(units.abs(), s.slice(0, 3)).div(this.leverage));
    }
    return equity.minus(margin);
  }

  /**
   * One fill at `pricePoints` (docs/trading-rules.md netting; docs/orders.md#protection-on-positions for the
   * protection it leaves). Returns false, changing nothing, when it would overspend free margin.
   */
  private fill(s: Sym, side: Side, centilots: number, pricePoints: number, carried: Protection): boolean {
    const lots = new D(centilots).div(100);
    const delta = side === 'BUY' ? lots : lots.neg();
    const price = toDec(s, pricePoints);
    const existing = this.positions.get(s);
    const old = existing?.qty ?? new D(0);
    const next = old.plus(delta);
    if (next.abs().gt(old.abs())) {
      const added = next.abs().minus(old.abs()).times(CONTRACT);
      const required = this.toUsd(added, s.slice(0, 3)).div(this.leverage);
      if (required.gt(this.freeMargin())) return false;
    }
    if (!existing) {
      this.positions.set(s, {
        id: -1,
        qty: next,
        avg: price,
        ...this.trailingStart(s, next.isPositive(), carried),
        unwritten: false,
      });
      return true;
    }
    if (old.isPositive() === delta.isPositive()) {
      existing.avg = old.abs().times(existing.avg).plus(lots.times(price)).div(next.abs()).toDecimalPlaces(10, D.ROUND_HALF_UP);
      existing.qty = next;
      // Adding replaces the protection when the order carries any, else keeps it.
      if (hasAny(carried)) Object.assign(existing, this.trailingStart(s, next.isPositive(), carried), { unwritten: false });
      return true;
    }
    const closed = D.min(old.abs(), lots);
    const realizedQuote = closed
      .times(CONTRACT)
      .times(price.minus(existing.avg))
      .times(old.isPositive() ? 1 : -1);
    this.balanceCents += this.toUsd(realizedQuote, s.slice(3)).times(100).toDecimalPlaces(0, D.ROUND_HALF_UP).toNumber();
    existing.qty = next;
    if (next.isZero()) {
      this.positions.delete(s);
      if (existing.id !== -1) this.positionIds.set(existing.id, null);
    } else if (next.isPositive() !== old.isPositive()) {
      // A flip: the new side starts at the fill price with only the order's protection.
      existing.avg = price;
      Object.assign(existing, this.trailingStart(s, next.isPositive(), carried), { unwritten: false });
    }
    return true;
  }

  /** The order's protection as the fill leaves it: a trailing stop with no stop loss starts at bid − distance (ask + for a short). */
  private trailingStart(s: Sym, long: boolean, carried: Protection): Protection {
    if (carried.trail === null || carried.sl !== null) return carried;
    const q = this.quotes.get(s)!;
    return { ...carried, sl: long ? q.bid - carried.trail * PIP : q.ask + carried.trail * PIP };
  }

  private closePrice(s: Sym, long: boolean): number {
    const q = this.quotes.get(s)!;
    return long ? q.bid : q.ask;
  }

  /** A long needs SL < reference < TP, a short TP < reference < SL. */
  private protectionValid(long: boolean, reference: number, p: Protection): boolean {
    if (p.sl !== null && (long ? !(p.sl < reference) : !(p.sl > reference))) return false;
    if (p.tp !== null && (long ? !(p.tp > reference) : !(p.tp < reference))) return false;
    return true;
  }

  /** Distances from a reference to prices, on the side a position of `long` needs. */
  private protectionAt(long: boolean, reference: number, sl: Dist, tp: Dist, trail: number | null): Protection {
    return {
      sl: sl === null ? null : long ? reference - sl : reference + sl,
      tp: tp === null ? null : long ? reference + tp : reference - tp,
      trail,
    };
  }

  /** docs/orders.md#validation: the price a pending order may rest at now. */
  private restable(type: PendingType, side: Side, price: number, s: Sym): boolean {
    const q = this.quotes.get(s)!;
    const stop = type !== 'LIMIT';
    if (side === 'BUY') return stop ? price > q.ask : price < q.ask;
    return stop ? price < q.bid : price > q.bid;
  }

  /** The price `dist` points on the resting side of the current quote (positive: valid). */
  pendingPrice(type: PendingType, side: Side, dist: number, s: Sym): number {
    const q = this.quotes.get(s)!;
    if (type === 'LIMIT') return side === 'BUY' ? q.ask - dist : q.bid + dist;
    return side === 'BUY' ? q.ask + dist : q.bid - dist;
  }

  private expiryValid(tif: 'GTC' | 'GTD', expiresAt: number | null): boolean {
    if (tif === 'GTC') return expiresAt === null;
    return expiresAt !== null && expiresAt > this.now && expiresAt <= this.now + 90 * DAY;
  }

  private newOrder(
    fields: Pick<ModelOrder, 'symbol' | 'type' | 'side' | 'centilots' | 'status' | 'reason' | 'sl' | 'tp' | 'trail'> &
      Partial<ModelOrder>,
  ): ModelOrder {
    const order: ModelOrder = {
      id: null,
      price: null,
      limit: null,
      tif: 'GTC',
      expiresAt: null,
      triggered: false,
      fill: null,
      ...fields,
    };
    this.orders.push(order);
    return order;
  }

  market(a: Extract<Action, { kind: 'market' }>): Outcome {
    const long = a.side === 'BUY';
    const protection = this.protectionAt(long, this.closePrice(a.symbol, long), a.sl, a.tp, a.trail);
    if (!this.protectionValid(long, this.closePrice(a.symbol, long), protection)) return fail(400);
    const q = this.quotes.get(a.symbol)!;
    const price = long ? q.ask : q.bid;
    const order = this.newOrder({
      symbol: a.symbol,
      type: 'MARKET',
      side: a.side,
      centilots: a.centilots,
      status: 'FILLED',
      reason: 'client',
      ...protection,
    });
    if (!this.fill(a.symbol, a.side, a.centilots, price, protection)) {
      order.status = 'REJECTED';
      return fail(422);
    }
    order.fill = price;
    return ok;
  }

  pending(a: Extract<Action, { kind: 'pending' }>): Outcome {
    const price = this.pendingPrice(a.type, a.side, a.dist, a.symbol);
    const limit = a.type === 'STOP_LIMIT' ? price + (a.side === 'BUY' ? a.limitDist : -a.limitDist) : null;
    const entry = limit ?? price;
    const long = a.side === 'BUY';
    const protection = this.protectionAt(long, entry, a.sl, a.tp, a.trail);
    const tif = a.gtdSeconds === null ? 'GTC' : 'GTD';
    const expiresAt = a.gtdSeconds === null ? null : this.now + a.gtdSeconds * 1000;
    if (price <= 0 || (limit !== null && limit <= 0)) return fail(400);
    if (!this.protectionValid(long, entry, protection)) return fail(400);
    if (!this.expiryValid(tif, expiresAt)) return fail(400);
    if (!this.restable(a.type, a.side, price, a.symbol)) return fail(400);
    this.newOrder({
      symbol: a.symbol,
      type: a.type,
      side: a.side,
      centilots: a.centilots,
      status: 'PENDING',
      reason: 'client',
      price,
      limit,
      tif,
      expiresAt,
      ...protection,
    });
    return ok;
  }

  /** docs/orders.md#modify-and-cancel. */
  modify(o: ModelOrder, a: Extract<Action, { kind: 'modify' }>): Outcome {
    if (o.status !== 'PENDING') return fail(409);
    const type = o.type as PendingType;
    let price = o.price!;
    if (a.dist !== undefined) {
      if (type === 'STOP_LIMIT' && o.triggered) return fail(400);
      price = this.pendingPrice(type, o.side, a.dist, o.symbol);
      if (price <= 0 || !this.restable(type, o.side, price, o.symbol)) return fail(400);
    }
    let limit = o.limit;
    if (a.limitDist !== undefined) {
      if (type !== 'STOP_LIMIT') return fail(400);
      limit = price + (o.side === 'BUY' ? a.limitDist : -a.limitDist);
      if (limit <= 0) return fail(400);
    }
    const tif = a.tif?.tif ?? o.tif;
    let expiresAt: number | null;
    if (a.tif?.seconds !== undefined) {
      expiresAt = a.tif.seconds === null ? null : this.now + a.tif.seconds * 1000;
      if (!this.expiryValid(tif, expiresAt)) return fail(400);
    } else if (tif === 'GTC') {
      expiresAt = null;
    } else {
      expiresAt = o.expiresAt;
      // Switching to GTD needs an expiry; a GTD order keeps its own, due or not (the engine expires it).
      if ((o.tif !== 'GTD' || expiresAt === null) && !this.expiryValid('GTD', expiresAt)) return fail(400);
    }
    const entry = limit ?? price;
    const long = o.side === 'BUY';
    const given = this.protectionAt(long, entry, a.sl ?? null, a.tp ?? null, null);
    const protection: Protection = {
      sl: a.sl === undefined ? o.sl : given.sl,
      tp: a.tp === undefined ? o.tp : given.tp,
      trail: a.trail === undefined ? o.trail : a.trail,
    };
    if (!this.protectionValid(long, entry, protection)) return fail(400);
    Object.assign(o, { price, limit, tif, expiresAt }, protection);
    return ok;
  }

  cancel(o: ModelOrder): Outcome {
    if (o.status !== 'PENDING') return fail(409);
    o.status = 'CANCELLED';
    return ok;
  }

  protect(id: number, a: Extract<Action, { kind: 'protect' }>): Outcome {
    const s = this.positionIds.get(id);
    const p = s ? this.positions.get(s) : undefined;
    if (!s || !p) return fail(409);
    const long = p.qty.isPositive();
    const reference = this.closePrice(s, long);
    const given = this.protectionAt(long, reference, a.sl ?? null, a.tp ?? null, null);
    // Only the prices sent are judged, against the price the position closes at now.
    if (!this.protectionValid(long, reference, given)) return fail(400);
    if (a.sl !== undefined) {
      p.sl = given.sl;
      p.unwritten = false;
    }
    if (a.tp !== undefined) p.tp = given.tp;
    if (a.trail !== undefined) p.trail = a.trail;
    return ok;
  }

  close(id: number, part: number | null): Outcome {
    const s = this.positionIds.get(id);
    const p = s ? this.positions.get(s) : undefined;
    if (!s || !p) return fail(409);
    const size = p.qty.abs().times(100).toNumber();
    const centilots = part ?? size;
    if (centilots > size) return fail(400);
    const long = p.qty.isPositive();
    const price = this.closePrice(s, long);
    const order = this.newOrder({
      symbol: s,
      type: 'MARKET',
      side: long ? 'SELL' : 'BUY',
      centilots,
      status: 'FILLED',
      reason: 'close',
      ...NONE,
    });
    this.fill(s, order.side, centilots, price, NONE);
    order.fill = price;
    return ok;
  }

  /** docs/order-engine.md: expiry, trailing, then the triggers the tick crosses in order. */
  tick(s: Sym, bid: number, ask: number): void {
    this.quotes.set(s, { bid, ask });
    for (const o of this.orders) {
      if (o.status === 'PENDING' && o.expiresAt !== null && o.expiresAt <= this.now) o.status = 'EXPIRED';
    }
    const p = this.positions.get(s);
    if (p && p.trail !== null) {
      const long = p.qty.isPositive();
      const candidate = long ? bid - p.trail * PIP : ask + p.trail * PIP;
      if (p.sl === null || (long ? candidate > p.sl : candidate < p.sl)) {
        p.sl = candidate;
        p.unwritten = true;
      }
    }
    // What the tick crosses, decided before any of it runs.
    let close: Reason | null = null;
    if (p) {
      const long = p.qty.isPositive();
      const at = long ? bid : ask;
      if (p.sl !== null && (long ? at <= p.sl : at >= p.sl)) close = p.trail !== null ? 'trailing_stop' : 'stop_loss';
      else if (p.tp !== null && (long ? at >= p.tp : at <= p.tp)) close = 'take_profit';
    }
    const crossed = this.orders.filter((o) => {
      if (o.symbol !== s || o.status !== 'PENDING') return false;
      const buy = o.side === 'BUY';
      const limitCrossed = (limit: number) => (buy ? ask <= limit : bid >= limit);
      const stopCrossed = (stop: number) => (buy ? ask >= stop : bid <= stop);
      if (o.type === 'LIMIT') return limitCrossed(o.price!);
      if (o.type === 'STOP') return stopCrossed(o.price!);
      return o.triggered ? limitCrossed(o.limit!) : stopCrossed(o.price!);
    });
    // Protection first (one position per pair), then the orders, older first.
    if (p && close) {
      const long = p.qty.isPositive();
      const centilots = p.qty.abs().times(100).toNumber();
      const price = long ? bid : ask;
      const order = this.newOrder({
        symbol: s,
        type: 'MARKET',
        side: long ? 'SELL' : 'BUY',
        centilots,
        status: 'FILLED',
        reason: close,
        ...NONE,
      });
      this.fill(s, order.side, centilots, price, NONE);
      order.fill = price;
    }
    for (const o of crossed) {
      if (o.type === 'STOP_LIMIT' && !o.triggered) {
        o.triggered = true;
        // It now rests as a LIMIT: the same tick may fill it.
        if (!(o.side === 'BUY' ? ask <= o.limit! : bid >= o.limit!)) continue;
      }
      const price = o.side === 'BUY' ? ask : bid;
      if (this.fill(s, o.side, o.centilots, price, { sl: o.sl, tp: o.tp, trail: o.trail })) {
        o.status = 'FILLED';
        o.fill = price;
      } else {
        o.status = 'REJECTED';
      }
    }
  }

  written(): void {
    for (const p of this.positions.values()) p.unwritten = false;
  }
}

// ------------------------------------------------------------------ counterexamples kept

type Example = [balanceCents: number, leverage: number, actions: Action[]];

/**
 * Shrunk counterexamples this property found, replayed on every run before the random ones.
 * Both are a trailing stop moved in memory (not yet written) meeting a change of the
 * position's protection; orders.trailing.test.ts has them end to end.
 */
const REGRESSIONS: Example[] = [
  // A fill adding to a trailing long on the tick that moved its stop, carrying protection
  // without a stop loss: the stop is replaced by none (right), but the position stays in the
  // engine's unwritten moves, and the trailing writer fails on its null stop loss, every second.
  [
    200_000,
    10,
    [
      {
        kind: 'pending',
        symbol: 'USDJPY',
        side: 'BUY',
        type: 'STOP',
        centilots: 1,
        dist: 1,
        limitDist: 0,
        gtdSeconds: null,
        sl: null,
        tp: 1,
        trail: 5,
      },
      { kind: 'market', symbol: 'USDJPY', side: 'BUY', centilots: 1, sl: null, tp: null, trail: 5 },
      { kind: 'tick', symbol: 'USDJPY', move: 0, jump: false, spread: 11 },
      { kind: 'write' },
    ],
  ],
  // A PATCH of only the take profit after a trailing move not yet written: the stop loss goes
  // back to the one last written (1.0998 instead of 1.1001), in memory and on disk.
  [
    1_000_000,
    100,
    [
      { kind: 'market', symbol: 'EURUSD', side: 'BUY', centilots: 100, sl: 50, tp: null, trail: 5 },
      { kind: 'tick', symbol: 'EURUSD', move: 30, jump: false, spread: 10 },
      { kind: 'write' },
      { kind: 'tick', symbol: 'EURUSD', move: 30, jump: false, spread: 10 },
      { kind: 'protect', pick: 0, tp: 100 },
      { kind: 'write' },
    ],
  ],
];

// ------------------------------------------------------------------ the system under test

/** The engine's and the commands' errors (a failed execution is logged, never thrown). */
function recordingLog(errors: string[]): FastifyBaseLogger {
  const log = {
    level: 'error',
    info() {},
    warn() {},
    debug() {},
    trace() {},
    fatal(_obj: unknown, msg?: string) {
      errors.push(`fatal: ${msg}`);
    },
    error(obj: unknown, msg?: string) {
      const err = (obj as { err?: unknown })?.err;
      errors.push(`${msg ?? ''} ${err instanceof Error ? err.stack : JSON.stringify(obj)}`);
    },
    child: () => log,
    silent() {},
  };
  return log as unknown as FastifyBaseLogger;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('random sequences of ticks, placements, modifications, cancels and protection changes (property)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The app is only the database here: its own engine and price source stay quiet.
    t = await startTestApp({ priceSource: new ScriptedPriceSource(), env: { CHART_HISTORY_DAYS: '0' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('match the reference model of the order rules and keep every invariant after every step', async () => {
    const seed = process.env.ORDERS_PROPERTY_SEED ? Number(process.env.ORDERS_PROPERTY_SEED) : Date.now() % 2 ** 31;
    console.log(`order engine property seed ${seed} (replay with ORDERS_PROPERTY_SEED=${seed})`);
    let steps = 0;
    let runs = 0;
    const seen = new Map<string, number>();
    const count = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 200_000, max: 5_000_000 }),
        fc.constantFrom(10, 50, 100),
        fc.array(actionArb, { minLength: 1, maxLength: Number(process.env.ORDERS_PROPERTY_STEPS ?? 40), size: 'max' }),
        async (balanceCents, leverage, actions) => {
          runs++;
          const errors: string[] = [];
          const clock = new ManualClock(START);
          const market = new FakeMarket();
          const ctx = { ...t.ctx, bus: new MemoryBus(), clock, log: recordingLog(errors) };
          const service = createTradingService(ctx, market);
          const trader = await insertTrader(ctx, { balanceMinor: balanceCents, leverage });
          const accountId = trader.accountId!;
          const userId = trader.userId;
          // This run's engine holds this run's account only (the database keeps the earlier runs').
          const executor = {
            ...service.triggers,
            loadArmed: async () => {
              const armed = await service.triggers.loadArmed();
              return {
                orders: armed.orders.filter((o) => o.accountId === accountId),
                protections: armed.protections.filter((p) => p.accountId === accountId),
              };
            },
          };
          const parked = 3_600_000;
          const engine = createOrderEngine(
            ctx,
            { market: { pairs: market.pairs, prices: market.prices, isLeader: () => true }, executor },
            { checkEveryMs: parked, trailingWriteEveryMs: parked, retryAfterMs: parked },
          );
          const model = new Model(balanceCents, leverage);
          const tick = async (s: Sym, bid: number, ask: number) => {
            model.tick(s, bid, ask);
            market.set(s, toNumber(s, bid), toNumber(s, ask));
            await engine.idle();
          };
          for (const s of SYMBOLS) {
            model.quotes.set(s, { bid: CENTER[s], ask: CENTER[s] + 10 });
            market.set(s, toNumber(s, CENTER[s]), toNumber(s, CENTER[s] + 10));
          }
          await engine.start();
          const history: string[] = [];
          try {
            for (const action of actions) {
              steps++;
              history.push(JSON.stringify(action));
              const outcome = await step(action);
              if (outcome) count(`${action.kind} ${outcome}`);
              await compare(history);
            }
          } finally {
            await engine.stop();
          }
          for (const o of model.orders) count(`${o.type === 'MARKET' ? o.reason : o.type} ${o.status}`);

          /** Runs one action on the model and the service; returns what happened, or undefined when it did not apply. */
          async function step(action: Action): Promise<string | undefined> {
            switch (action.kind) {
              case 'tick': {
                const q = model.quotes.get(action.symbol)!;
                const bid = action.jump ? CENTER[action.symbol] + action.move * 3 : q.bid + action.move;
                await tick(action.symbol, bid, bid + action.spread);
                return 'done';
              }
              case 'retick': {
                const q = model.quotes.get(action.symbol)!;
                await tick(action.symbol, q.bid, q.ask);
                return 'done';
              }
              case 'advance':
                model.now += action.seconds * 1000;
                clock.advance(action.seconds * 1000);
                return 'done';
              case 'write':
                await engine.writeTrailingStops();
                model.written();
                return 'done';
              case 'market': {
                const s = action.symbol;
                const long = action.side === 'BUY';
                const q = model.quotes.get(s)!;
                const reference = long ? q.bid : q.ask;
                const at = (d: Dist, up: boolean) => (d === null ? undefined : toNumber(s, up ? reference + d : reference - d));
                const body = {
                  symbol: s,
                  side: action.side,
                  quantity: action.centilots / 100,
                  ...(action.sl === null ? {} : { stop_loss: at(action.sl, !long) }),
                  ...(action.tp === null ? {} : { take_profit: at(action.tp, long) }),
                  ...(action.trail === null ? {} : { trailing_stop_pips: action.trail }),
                };
                const expected = model.market(action);
                return expectOutcome(expected, () => service.placeMarketOrder(userId, body));
              }
              case 'pending': {
                const s = action.symbol;
                const price = model.pendingPrice(action.type, action.side, action.dist, s);
                const limit =
                  action.type === 'STOP_LIMIT' ? price + (action.side === 'BUY' ? action.limitDist : -action.limitDist) : null;
                const entry = limit ?? price;
                const long = action.side === 'BUY';
                const at = (d: Dist, up: boolean) => (d === null ? undefined : toNumber(s, up ? entry + d : entry - d));
                const raw = {
                  symbol: s,
                  side: action.side,
                  order_type: action.type,
                  quantity: action.centilots / 100,
                  price: toNumber(s, price),
                  ...(limit === null ? {} : { limit_price: toNumber(s, limit) }),
                  ...(action.gtdSeconds === null
                    ? {}
                    : { time_in_force: 'GTD' as const, expires_at: iso(model.now + action.gtdSeconds * 1000) }),
                  ...(action.sl === null ? {} : { stop_loss: at(action.sl, !long) }),
                  ...(action.tp === null ? {} : { take_profit: at(action.tp, long) }),
                  ...(action.trail === null ? {} : { trailing_stop_pips: action.trail }),
                };
                // Prices at or below 0 are the schema's 400 (not generated at these distances).
                const body = placePendingOrderRequestSchema.parse(raw);
                const expected = model.pending(action);
                return expectOutcome(expected, async () => {
                  const { response } = await service.placePendingOrderDetailed(userId, body);
                  expect(response.order.status).toBe('PENDING');
                  model.orders.at(-1)!.id = response.order.id;
                });
              }
              case 'modify': {
                if (model.orders.length === 0) return undefined;
                const o = model.orders[action.pick % model.orders.length]!;
                if (o.type === 'MARKET') return undefined;
                const s = o.symbol;
                const type = o.type as PendingType;
                const price = action.dist === undefined ? o.price! : model.pendingPrice(type, o.side, action.dist, s);
                const limit =
                  action.limitDist === undefined ? o.limit : price + (o.side === 'BUY' ? action.limitDist : -action.limitDist);
                const entry = limit ?? price;
                const long = o.side === 'BUY';
                const at = (d: Dist | undefined, up: boolean) =>
                  d === undefined ? undefined : d === null ? null : toNumber(s, up ? entry + d : entry - d);
                const raw: ModifyOrderRequest = {
                  ...(action.dist === undefined ? {} : { price: toNumber(s, price) }),
                  ...(action.limitDist === undefined ? {} : { limit_price: toNumber(s, limit!) }),
                  ...(action.tif?.tif === undefined ? {} : { time_in_force: action.tif.tif }),
                  ...(action.tif?.seconds === undefined
                    ? {}
                    : { expires_at: action.tif.seconds === null ? null : iso(model.now + action.tif.seconds * 1000) }),
                  ...(action.sl === undefined ? {} : { stop_loss: at(action.sl, !long) }),
                  ...(action.tp === undefined ? {} : { take_profit: at(action.tp, long) }),
                  ...(action.trail === undefined ? {} : { trailing_stop_pips: action.trail }),
                };
                const parsed = modifyOrderRequestSchema.safeParse(raw);
                if (!parsed.success) return undefined; // an empty change, or a price ≤ 0: the route's 400
                const expected = model.modify(o, action);
                return expectOutcome(expected, () => service.modifyOrder(userId, o.id!, parsed.data));
              }
              case 'cancel': {
                if (model.orders.length === 0) return undefined;
                const o = model.orders[action.pick % model.orders.length]!;
                if (o.type === 'MARKET') return undefined;
                const expected = model.cancel(o);
                return expectOutcome(expected, async () => {
                  const { order } = await service.cancelOrder(userId, o.id!);
                  expect(order.status).toBe('CANCELLED');
                });
              }
              case 'protect': {
                const ids = [...model.positionIds.keys()];
                if (ids.length === 0) return undefined;
                const id = ids[action.pick % ids.length]!;
                const s = model.positionIds.get(id) ?? null;
                const open = s ? model.positions.get(s) : undefined;
                let raw: ModifyPositionRequest;
                if (s && open) {
                  const long = open.qty.isPositive();
                  const q = model.quotes.get(s)!;
                  const reference = long ? q.bid : q.ask;
                  const at = (d: Dist | undefined, up: boolean) =>
                    d === undefined ? undefined : d === null ? null : toNumber(s, up ? reference + d : reference - d);
                  raw = {
                    ...(action.sl === undefined ? {} : { stop_loss: at(action.sl, !long) }),
                    ...(action.tp === undefined ? {} : { take_profit: at(action.tp, long) }),
                    ...(action.trail === undefined ? {} : { trailing_stop_pips: action.trail }),
                  };
                } else {
                  raw = { stop_loss: null };
                }
                const parsed = modifyPositionRequestSchema.safeParse(raw);
                if (!parsed.success) return undefined;
                const expected = model.protect(id, action);
                return expectOutcome(expected, () => service.modifyPosition(userId, id, parsed.data));
              }
              case 'close': {
                const ids = [...model.positionIds.keys()];
                if (ids.length === 0) return undefined;
                const id = ids[action.pick % ids.length]!;
                const expected = model.close(id, action.part);
                return expectOutcome(expected, () =>
                  service.closePosition(userId, id, {
                    reason: 'client',
                    ...(action.part === null ? {} : { quantity: action.part / 100 }),
                  }),
                );
              }
            }
          }

          async function expectOutcome(expected: Outcome, call: () => Promise<unknown>): Promise<string> {
            let error: unknown;
            try {
              await call();
            } catch (err) {
              error = err;
            }
            const got = error === undefined ? 'ok' : error instanceof AppError ? String(error.status) : `threw ${String(error)}`;
            const want = expected.ok ? 'ok' : String(expected.status);
            expect(got, `${error instanceof AppError ? error.message : ''}\n${history.join('\n')}`).toBe(want);
            return want;
          }

          /** The stored books, orders and positions against the model. */
          async function compare(trail: string[]): Promise<void> {
            const context = `after:\n${trail.join('\n')}`;
            expect(errors, context).toEqual([]);
            expect(await auditAccount(ctx.db, accountId), context).toEqual([]);
            const rows = await ctx.db.kysely
              .selectFrom('orders')
              .selectAll()
              .where('account_id', '=', accountId)
              .orderBy('id')
              .execute();
            const num = (v: unknown) => (v === null ? null : Number(v));
            const stored = rows.map((r) => ({
              id: Number(r.id),
              what: [
                r.symbol,
                r.order_type,
                r.side,
                Number(r.quantity_centilots),
                r.status,
                r.reason,
                `price=${num(r.price_e10)}`,
                `limit=${num(r.limit_price_e10)}`,
                `fill=${num(r.average_fill_price_e10)}`,
                r.time_in_force,
                `expires=${num(r.expires_at)}`,
                `triggered=${r.triggered_at !== null}`,
                `sl=${num(r.stop_loss_e10)}`,
                `tp=${num(r.take_profit_e10)}`,
                `trail=${num(r.trailing_stop_pips)}`,
              ].join(' '),
            }));
            const expected = model.orders.map((o) =>
              [
                o.symbol,
                o.type,
                o.side,
                o.centilots,
                o.status,
                o.reason,
                `price=${toE10(o.symbol, o.price)}`,
                `limit=${toE10(o.symbol, o.limit)}`,
                `fill=${toE10(o.symbol, o.fill)}`,
                o.tif,
                `expires=${o.expiresAt}`,
                `triggered=${o.triggered}`,
                `sl=${toE10(o.symbol, o.sl)}`,
                `tp=${toE10(o.symbol, o.tp)}`,
                `trail=${o.trail}`,
              ].join(' '),
            );
            expect(
              stored.map((r) => r.what),
              context,
            ).toEqual(expected);
            model.orders.forEach((o, i) => {
              if (o.id === null) o.id = stored[i]!.id;
              else expect(o.id).toBe(stored[i]!.id);
            });

            const positions = await ctx.db.kysely
              .selectFrom('positions')
              .selectAll()
              .where('account_id', '=', accountId)
              .where('status', '=', 'OPEN')
              .execute();
            const bySymbol = new Map(positions.map((p) => [p.symbol as Sym, p]));
            expect([...bySymbol.keys()].sort(), context).toEqual([...model.positions.keys()].sort());
            for (const [s, p] of model.positions) {
              const row = bySymbol.get(s)!;
              if (p.id === -1) {
                p.id = Number(row.id);
                model.positionIds.set(p.id, s);
              } else expect(Number(row.id), context).toBe(p.id);
              expect(
                {
                  quantity: Number(row.quantity_centilots),
                  average: num(row.average_entry_price_e10),
                  tp: num(row.take_profit_e10),
                  trail: num(row.trailing_stop_pips),
                  // The stored stop loss may be behind a trailing move until the writer runs.
                  sl: p.unwritten ? 'unwritten' : num(row.stop_loss_e10),
                },
                context,
              ).toEqual({
                quantity: p.qty.times(100).toNumber(),
                average: p.avg.times(1e10).toNumber(),
                tp: toE10(s, p.tp),
                trail: p.trail,
                sl: p.unwritten ? 'unwritten' : toE10(s, p.sl),
              });
            }
            for (const [id, s] of model.positionIds) if (s && model.positions.get(s)?.id !== id) model.positionIds.set(id, null);
            const account = await ctx.db.kysely
              .selectFrom('trading_accounts')
              .select('balance_minor')
              .where('id', '=', accountId)
              .executeTakeFirstOrThrow();
            expect(Number(account.balance_minor), context).toBe(model.balanceCents);
          }
        },
      ),
      {
        seed,
        numRuns: Number(process.env.ORDERS_PROPERTY_RUNS ?? 40),
        // Counterexamples found before, run first every time; ORDERS_PROPERTY_EXAMPLE='[…]' replays one more.
        examples: [
          ...REGRESSIONS,
          ...(process.env.ORDERS_PROPERTY_EXAMPLE ? [JSON.parse(process.env.ORDERS_PROPERTY_EXAMPLE) as Example] : []),
        ],
      },
    );
    console.log(`order engine property: ${runs} runs, ${steps} steps; ${[...seen].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }, 600_000);
});
