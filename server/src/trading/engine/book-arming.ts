import { Dec } from '@pipdesk/contract';
import { type Ladder, type Rung, rung } from '../../core/ladder.js';
import type { OrderEntry, ProtectionEntry, Role, Target } from './book-types.js';

// How the trigger book (trigger-book.ts) arms an entry: the ladder of its pair each order and
// protection trigger rests in and at which key (docs/order-engine.md#the-trigger-table), and
// taking it out again. The book's expiry ladder is passed in: a GTD order rests there too.

/** Below and above every price: a trailing stop with no stop loss yet moves on its first tick. */
const NO_STOP_LONG = -(1n << 256n);
const NO_STOP_SHORT = 1n << 256n;

/** Arms a PENDING order: its price in the ladder its type and side fire by, its expiry when GTD. */
export function attachOrder(entry: OrderEntry, expiries: Ladder<OrderEntry>): void {
  const { state, pair } = entry;
  const restsAsLimit = state.orderType === 'LIMIT' || (state.orderType === 'STOP_LIMIT' && state.triggeredAt !== null);
  const price = Dec.from(restsAsLimit && state.orderType === 'STOP_LIMIT' ? state.limitPrice! : state.price).raw;
  const buy = state.side === 'BUY';
  const ladder = restsAsLimit
    ? buy
      ? pair.atOrAboveAsk // BUY LIMIT: ask ≤ price
      : pair.atOrBelowBid // SELL LIMIT: bid ≥ price
    : buy
      ? pair.atOrBelowAsk // BUY STOP: ask ≥ price
      : pair.atOrAboveBid; // SELL STOP: bid ≤ price
  place(entry, ladder, price, 'order');
  if (state.expiresAt !== null) {
    entry.expiry = rung(BigInt(state.expiresAt), entry);
    expiries.add(entry.expiry);
  }
}

/** Arms a position's protection: its stop loss, its take profit, and the price its trailing stop moves beyond. */
export function attachProtection(entry: ProtectionEntry): void {
  const { pair, stopLoss, takeProfit, distance } = entry;
  const long = entry.state.long;
  entry.stopRung = stopLoss ? place(entry, pair.stopLadder(long, distance !== null), stopLoss.raw, 'sl') : null;
  if (takeProfit) place(entry, long ? pair.atOrBelowBid : pair.atOrAboveAsk, takeProfit.raw, 'tp');
  if (distance) {
    const key = long
      ? stopLoss
        ? stopLoss.raw + distance.raw
        : NO_STOP_LONG
      : stopLoss
        ? stopLoss.raw - distance.raw
        : NO_STOP_SHORT;
    place(entry, long ? pair.trailLong : pair.trailShort, key, 'trail');
  }
}

/** Adds one of the entry's rungs to a ladder, remembered so `detach` takes it out. */
export function place(entry: OrderEntry | ProtectionEntry, ladder: Ladder<Target>, key: bigint, role: Role): Rung<Target> {
  const r = rung<Target>(key, { entry, role });
  ladder.add(r);
  entry.placed.push({ rung: r, ladder });
  return r;
}

/** Takes every rung of the entry out of its ladders (and an order's expiry out of `expiries`). */
export function detach(entry: OrderEntry | ProtectionEntry, expiries: Ladder<OrderEntry>): void {
  for (const { rung: r, ladder } of entry.placed) ladder.remove(r);
  entry.placed.length = 0;
  if (entry.kind === 'protection') entry.stopRung = null;
  else if (entry.expiry) {
    expiries.remove(entry.expiry);
    entry.expiry = null;
  }
}
