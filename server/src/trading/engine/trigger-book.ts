import { Dec } from '@pipdesk/contract';
import { Ladder } from '../../core/ladder.js';
import { attachOrder, attachProtection, detach, place } from './book-arming.js';
import { compareOrders, compareTriggers, limitCrossed, TickMoves, tickResult } from './book-helpers.js';
import { isOwnEcho, movedFurther, stateOf } from './book-trailing.js';
import {
  type BookPair,
  type BookQuote,
  type OrderEntry,
  PairLadders,
  type ProtectionEntry,
  type Target,
  type TickResult,
  type TrailingMove,
  type Trigger,
} from './book-types.js';
import type { ProtectionReason, ProtectionState, RestingOrderState } from './ports.js';

export { limitCrossed } from './book-helpers.js';
export type { BookPair, BookQuote, TickResult, TrailingMove, Trigger } from './book-types.js';

// The resting triggers of every pair, in memory, with no I/O (docs/order-engine.md). Each pair
// keeps its triggers in ladders sorted by trigger price, so a tick looks at the top of each
// ladder and touches only what it crosses. Which ladder and key an entry takes is
// book-arming.ts; how a trailing stop in memory compares with a stored one, book-trailing.ts.

/** Ids of orders and positions known to be gone, kept so a late bus message cannot re-arm them. */
const TOMBSTONES = 100_000;
/** Trailing writes remembered per position: an echo is at most a few flushes old. */
const PERSISTED_KEPT = 4;

/**
 * The in-memory trigger book (docs/order-engine.md): PENDING orders and positions' protection
 * per pair, sorted by trigger price; GTD expiries sorted by time. Pure: the caller feeds it
 * ticks and changes and executes what it returns.
 */
export class TriggerBook {
  private readonly pairs = new Map<string, PairLadders>();
  private readonly orders = new Map<number, OrderEntry>();
  private readonly protections = new Map<number, ProtectionEntry>();
  private readonly expiries = new Ladder<OrderEntry>('lowest');
  private readonly dirty = new Set<ProtectionEntry>();
  private readonly goneOrders = new Set<number>();
  private readonly closedPositions = new Set<number>();

  constructor(pairs: Iterable<BookPair>) {
    for (const pair of pairs) this.pairs.set(pair.symbol, new PairLadders(pair.symbol, Dec.from(pair.pipSize)));
  }

  // ------------------------------------------------------------------ changes

  /** Replaces everything with what the database holds (a new leader's load). */
  load(orders: readonly RestingOrderState[], protections: readonly ProtectionState[]): void {
    for (const entry of [...this.orders.values()]) this.dropOrder(entry);
    for (const entry of [...this.protections.values()]) this.dropProtection(entry);
    for (const order of orders) this.upsertOrder(order);
    for (const protection of protections) this.upsertProtection(protection);
  }

  /** A PENDING order, new or modified. Ignored for an unknown pair or an order known to be gone. */
  upsertOrder(state: RestingOrderState): void {
    if (this.goneOrders.has(state.orderId)) return;
    const existing = this.orders.get(state.orderId);
    if (existing) {
      detach(existing, this.expiries);
      existing.state = state;
      if (existing.held) existing.changedWhileHeld = true;
      else attachOrder(existing, this.expiries);
      return;
    }
    const pair = this.pairs.get(state.symbol);
    if (!pair) return;
    const entry: OrderEntry = { kind: 'order', state, pair, placed: [], expiry: null, held: false, changedWhileHeld: false };
    this.orders.set(state.orderId, entry);
    attachOrder(entry, this.expiries);
  }

  /** The order left PENDING (filled, cancelled, expired, rejected): it never comes back. */
  removeOrder(orderId: number): void {
    this.tombstone(this.goneOrders, orderId);
    const entry = this.orders.get(orderId);
    if (entry) this.dropOrder(entry);
  }

  /**
   * A position's protection, set or changed. With nothing set, the position leaves the book.
   * `stopLossSet` false: the change left the stop loss as stored (docs/order-engine.md#trailing-stops).
   */
  upsertProtection(state: ProtectionState, stopLossSet = true): void {
    if (this.closedPositions.has(state.positionId)) return;
    const existing = this.protections.get(state.positionId);
    // An older change arriving late (one published before the load that read a newer one): the newer is held.
    if (existing && (state.protectionVersion ?? 0) < (existing.state.protectionVersion ?? 0)) return;
    const keptMove = existing !== undefined && !stopLossSet && movedFurther(existing, state);
    if (!keptMove && state.stopLoss === null && state.takeProfit === null && state.trailingStopPips === null) {
      if (existing) this.dropProtection(existing);
      return;
    }
    const pair = existing?.pair ?? this.pairs.get(state.symbol);
    if (!pair) return;
    let stopLoss = state.stopLoss === null ? null : Dec.from(state.stopLoss);
    if (existing && (keptMove || isOwnEcho(existing, state))) {
      // The database caught up with a trailing move this engine made (or has not yet written
      // the newer ones), or the change left the stop loss as stored, behind the one the engine
      // moved: the stop loss in memory is further along and stays (a trailing stop never moves back).
      stopLoss = existing.stopLoss;
      state = { ...state, stopLoss: stateOf(existing).stopLoss };
    } else if (existing) {
      // A stop loss given by a trader or a fill replaces the moved one: nothing of it is left to write.
      this.dirty.delete(existing);
    }
    const entry: ProtectionEntry = existing ?? {
      kind: 'protection',
      state,
      pair,
      placed: [],
      stopLoss: null,
      stopRung: null,
      takeProfit: null,
      distance: null,
      persisted: [],
      stateBehind: false,
      held: false,
      changedWhileHeld: false,
    };
    if (existing) detach(existing, this.expiries);
    entry.state = state;
    entry.stopLoss = stopLoss;
    entry.stateBehind = false;
    entry.takeProfit = state.takeProfit === null ? null : Dec.from(state.takeProfit);
    entry.distance = state.trailingStopPips === null ? null : pair.pipSize.times(state.trailingStopPips);
    this.protections.set(state.positionId, entry);
    // Kept ahead of the stored stop: written again, for the new protection version.
    if (keptMove) this.dirty.add(entry);
    if (entry.held) entry.changedWhileHeld = true;
    else attachProtection(entry);
  }

  /** The position has no protection any more (cleared, or closed: then `closed`, and it never comes back). */
  removeProtection(positionId: number, closed = false): void {
    if (closed) this.tombstone(this.closedPositions, positionId);
    const entry = this.protections.get(positionId);
    if (entry) this.dropProtection(entry);
  }

  // ------------------------------------------------------------------ ticks and time

  /**
   * A tick: moves the trailing stops it takes further, then takes out every trigger it
   * crosses (docs/order-engine.md#the-trigger-table). Costs O(1) per ladder when nothing
   * crosses, O(log n) per trigger or move.
   */
  onTick(quote: BookQuote): TickResult {
    const pair = this.pairs.get(quote.symbol);
    if (!pair) return { triggers: [], moves: [] };
    pair.last = quote;
    const bid = quote.bid.raw;
    const ask = quote.ask.raw;
    let moves: TickMoves | undefined;
    // A moved stop's next key (stop loss ± distance, as `attachProtection` keys it) is exactly the
    // price that moved it, which no longer crosses: each loop ends.
    for (let top = pair.trailLong.peek(); top && top.key < bid; top = pair.trailLong.peek()) {
      const entry = top.value.entry as ProtectionEntry;
      pair.trailLong.rekey(top, bid);
      moves = this.moveStop(entry, quote.bid.minus(entry.distance!), moves);
    }
    for (let top = pair.trailShort.peek(); top && top.key > ask; top = pair.trailShort.peek()) {
      const entry = top.value.entry as ProtectionEntry;
      pair.trailShort.rekey(top, ask);
      moves = this.moveStop(entry, quote.ask.plus(entry.distance!), moves);
    }

    const fired: Target[] = [];
    // Stop losses are drained before take profits, so a position whose stop loss and take
    // profit both cross closes as a stop loss (it cannot happen with valid protection).
    this.drain(pair.atOrAboveBid, bid, true, fired);
    this.drain(pair.trailingStopLong, bid, true, fired);
    this.drain(pair.atOrBelowAsk, ask, false, fired);
    this.drain(pair.trailingStopShort, ask, false, fired);
    this.drain(pair.atOrBelowBid, bid, false, fired);
    this.drain(pair.atOrAboveAsk, ask, true, fired);
    if (fired.length === 0) return tickResult([], moves);

    const triggers = fired.map((target): Trigger => {
      const { entry } = target;
      if (entry.kind === 'protection') {
        const reason: ProtectionReason =
          target.role === 'tp' ? 'take_profit' : entry.state.trailingStopPips !== null ? 'trailing_stop' : 'stop_loss';
        return { kind: 'close', protection: stateOf(entry), reason };
      }
      const stopOfStopLimit = entry.state.orderType === 'STOP_LIMIT' && entry.state.triggeredAt === null;
      return { kind: stopOfStopLimit ? 'stop_limit' : 'fill', order: entry.state };
    });
    triggers.sort(compareTriggers);
    return tickResult(triggers, moves);
  }

  /** GTD orders whose `expires_at` is at or before `now`, taken out of the ladders (grouped by account, older first). */
  expireDue(now: number): RestingOrderState[] {
    // Keys are whole epoch ms, exact as numbers (key ≤ now ⇔ key ≤ ⌊now⌋): no BigInt per call.
    const due: RestingOrderState[] = [];
    for (let top = this.expiries.peek(); top && Number(top.key) <= now; top = this.expiries.peek()) {
      this.hold(top.value);
      due.push(top.value.state);
    }
    return due.length > 1 ? due.sort(compareOrders) : due;
  }

  /** The earliest `expires_at` of an armed order (epoch ms), if any. */
  nextExpiry(): number | undefined {
    const top = this.expiries.peek();
    return top ? Number(top.key) : undefined;
  }

  // ------------------------------------------------------------------ after execution

  /** The order is no longer PENDING (filled, rejected, expired): it never comes back. */
  settleOrder(orderId: number): void {
    this.removeOrder(orderId);
  }

  /**
   * The order was not as the engine saw it (cancelled, filled or modified elsewhere). Re-armed
   * when a newer state arrived meanwhile, else dropped: the bus brings any newer state.
   */
  dropStaleOrder(orderId: number): void {
    const entry = this.orders.get(orderId);
    if (!entry?.held) return;
    if (entry.changedWhileHeld) this.rearmOrder(orderId);
    else this.dropOrder(entry);
  }

  /** The position was closed by its protection. */
  settleClosed(positionId: number): void {
    this.removeProtection(positionId, true);
  }

  /** A protection that was not as the engine saw it (closed or changed elsewhere): as `dropStaleOrder`. */
  dropStaleProtection(positionId: number): void {
    const entry = this.protections.get(positionId);
    if (!entry?.held) return;
    if (entry.changedWhileHeld) this.rearmProtection(positionId);
    else this.dropProtection(entry);
  }

  /** Puts a held order back (its execution failed): a later tick that crosses it triggers it again. */
  rearmOrder(orderId: number): void {
    const entry = this.orders.get(orderId);
    if (!entry?.held) return;
    entry.held = false;
    attachOrder(entry, this.expiries);
  }

  /** Puts a held protection back (its close failed or was refused). */
  rearmProtection(positionId: number): void {
    const entry = this.protections.get(positionId);
    if (!entry?.held) return;
    entry.held = false;
    attachProtection(entry);
  }

  /**
   * A STOP_LIMIT's stop trigger is recorded: from now on it is a LIMIT at `limitPrice`. When the
   * pair's latest tick (normally the one that triggered the stop) already crosses that limit,
   * returns that tick: the order stays held and is to be filled at it. Otherwise it rests armed.
   */
  restStopLimit(orderId: number, triggeredAt: number): BookQuote | undefined {
    const entry = this.orders.get(orderId);
    if (!entry?.held) return undefined;
    entry.state = { ...entry.state, triggeredAt };
    const quote = entry.pair.last;
    if (quote && entry.state.limitPrice !== null && limitCrossed(entry.state.side, Dec.from(entry.state.limitPrice), quote)) {
      entry.changedWhileHeld = false;
      return quote;
    }
    entry.held = false;
    attachOrder(entry, this.expiries);
    return undefined;
  }

  // ------------------------------------------------------------------ trailing persistence

  /** The trailing stops moved since the last call (one per position, its latest value); they count as written until `restoreTrailingMoves`. */
  takeTrailingMoves(): TrailingMove[] {
    const moves: TrailingMove[] = [];
    for (const entry of this.dirty) {
      const { positionId, stopLoss, protectionVersion } = stateOf(entry);
      if (stopLoss === null) continue; // never sent: a trailing write has a stop loss
      // For the protection version it moved in: a trader's or a fill's change since then wins.
      moves.push(protectionVersion === undefined ? { positionId, stopLoss } : { positionId, stopLoss, protectionVersion });
      entry.persisted.push(stopLoss);
      if (entry.persisted.length > PERSISTED_KEPT) entry.persisted.shift();
    }
    this.dirty.clear();
    return moves;
  }

  /** Writing them failed: the positions still held are written again next time (their latest value). */
  restoreTrailingMoves(moves: readonly TrailingMove[]): void {
    for (const move of moves) {
      const entry = this.protections.get(move.positionId);
      // Not when its protection was replaced meanwhile (a newer version, or no stop loss to trail).
      if (!entry || entry.stopLoss === null || entry.state.protectionVersion !== move.protectionVersion) continue;
      this.dirty.add(entry);
    }
  }

  // ------------------------------------------------------------------ reading (tests, health)

  order(orderId: number): RestingOrderState | undefined {
    return this.orders.get(orderId)?.state;
  }

  protection(positionId: number): ProtectionState | undefined {
    const entry = this.protections.get(positionId);
    return entry && stateOf(entry);
  }

  /** How many orders and protections the book holds (armed or held). */
  counts(): { orders: number; protections: number; held: number; unsavedTrailing: number } {
    let held = 0;
    for (const entry of this.orders.values()) if (entry.held) held++;
    for (const entry of this.protections.values()) if (entry.held) held++;
    return { orders: this.orders.size, protections: this.protections.size, held, unsavedTrailing: this.dirty.size };
  }

  // ------------------------------------------------------------------ internals

  /** Takes out every rung crossed: key ≥ bound (`atOrAbove`) or key ≤ bound. */
  private drain(ladder: Ladder<Target>, bound: bigint, atOrAbove: boolean, fired: Target[]): void {
    for (let top = ladder.peek(); top && (atOrAbove ? top.key >= bound : top.key <= bound); top = ladder.peek()) {
      fired.push(top.value);
      this.hold(top.value.entry);
    }
  }

  private hold(entry: OrderEntry | ProtectionEntry): void {
    detach(entry, this.expiries);
    entry.held = true;
    entry.changedWhileHeld = false;
  }

  /**
   * A trailing move of an armed protection (its trailing rung already re-keyed): its stop loss
   * rung is re-keyed in place, or placed when it had none; the take profit stays, and `state`
   * follows on read. Returns the tick's moves with this one.
   */
  private moveStop(entry: ProtectionEntry, stopLoss: Dec, moves = new TickMoves()): TickMoves {
    const ladder = entry.pair.stopLadder(entry.state.long, true);
    if (entry.stopRung) ladder.rekey(entry.stopRung, stopLoss.raw);
    else entry.stopRung = place(entry, ladder, stopLoss.raw, 'sl');
    entry.stopLoss = stopLoss;
    entry.stateBehind = true;
    this.dirty.add(entry);
    moves.add(entry.state.positionId, stopLoss);
    return moves;
  }

  private dropOrder(entry: OrderEntry): void {
    detach(entry, this.expiries);
    this.orders.delete(entry.state.orderId);
  }

  private dropProtection(entry: ProtectionEntry): void {
    detach(entry, this.expiries);
    this.dirty.delete(entry);
    this.protections.delete(entry.state.positionId);
  }

  private tombstone(set: Set<number>, id: number): void {
    set.add(id);
    if (set.size > TOMBSTONES) set.delete(set.values().next().value!);
  }
}
