import type { AlertCondition, ArmedAlertState } from '@pipdesk/contract';
import { Ladder, type Rung, rung } from '../core/ladder.js';
import { PRICE_SCALE } from './types.js';

// The ACTIVE alerts of every pair, in memory, with no I/O (docs/charting.md#alerts). Each pair
// keeps one heap per condition sorted by price, so a tick looks at four tops and touches only
// what it crosses; expiries sit in one heap sorted by time. The caller writes what fires.

/** Ids known to be gone (fired, expired, deleted), so a late bus message cannot arm them again. */
const TOMBSTONES = 100_000;

/** An alert's place in a ladder: keyed by its price × 10^10, or by its expiry time. */
type AlertSlot = Rung<BookEntry, number>;

class BookEntry {
  /** Its place in its pair's heap of its condition, and in the expiries. */
  readonly price: AlertSlot;
  readonly expiry: AlertSlot;
  /** Taken out by a tick or an expiry and not yet written: it waits for `settle`. */
  inFlight = false;

  constructor(public state: ArmedAlertState) {
    this.price = rung(0, this);
    this.expiry = rung(0, this);
  }
}

/** What a tick fired: the alert and the tick's bid or ask it fired at, × 10^10. */
export interface FiredAlert {
  state: ArmedAlertState;
  priceE10: number;
}

/** A tick as the book reads it: numbers at the pair's digits. */
export interface AlertTick {
  symbol: string;
  bid: number;
  ask: number;
}

interface PairHeaps {
  /** 10^digits and 10^(10 − digits): a tick's price to the stored scale, exactly. */
  readonly unit: number;
  readonly up: number;
  /** By condition; `above` heaps keep the lowest price on top (fires while price ≤ quote), `below` the highest. */
  readonly heaps: Record<AlertCondition, Ladder<BookEntry, number>>;
}

/** Alerts of one price (or one expiry) come out oldest first. */
const olderFirst = (a: BookEntry, b: BookEntry): boolean => a.state.id < b.state.id;

const NOTHING: readonly FiredAlert[] = Object.freeze([]);

export class AlertBook {
  private readonly pairs = new Map<string, PairHeaps>();
  private readonly entries = new Map<number, BookEntry>();
  private readonly expiries = new Ladder<BookEntry, number>('lowest', olderFirst);
  private readonly gone = new Set<number>();

  constructor(pairs: Iterable<{ symbol: string; digits: number }>) {
    for (const { symbol, digits } of pairs) {
      this.pairs.set(symbol, {
        unit: 10 ** digits,
        up: 10 ** (PRICE_SCALE - digits),
        heaps: {
          bid_above: new Ladder('lowest', olderFirst),
          ask_above: new Ladder('lowest', olderFirst),
          bid_below: new Ladder('highest', olderFirst),
          ask_below: new Ladder('highest', olderFirst),
        },
      });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Replaces everything with what the database holds (a new leader's load). */
  load(states: readonly ArmedAlertState[]): void {
    this.clear();
    for (const state of states) this.upsert(state);
  }

  clear(): void {
    for (const pair of this.pairs.values()) for (const heap of Object.values(pair.heaps)) heap.clear();
    this.expiries.clear();
    this.entries.clear();
  }

  /** A new or changed ACTIVE alert; ignored when gone, older than the one held, or on an unknown pair. */
  upsert(state: ArmedAlertState): void {
    if (this.gone.has(state.id) || !this.pairs.has(state.symbol)) return;
    const existing = this.entries.get(state.id);
    if (existing) {
      if (state.version < existing.state.version) return;
      this.detach(existing);
      existing.state = state;
      // In flight: armed again by `settle` with this state if the write did not record it.
      if (!existing.inFlight) this.attach(existing);
      return;
    }
    const entry = new BookEntry(state);
    this.entries.set(state.id, entry);
    this.attach(entry);
  }

  /** The alert left ACTIVE (fired, expired, deleted): it never comes back. */
  remove(id: number): void {
    this.gone.add(id);
    if (this.gone.size > TOMBSTONES) this.gone.delete(this.gone.values().next().value!);
    const entry = this.entries.get(id);
    if (!entry) return;
    this.detach(entry);
    this.entries.delete(id);
  }

  /**
   * After the write of a fire or an expiry: `recorded` alerts are gone; the others (a change or
   * a delete won the race) are armed again with the newest state the bus brought.
   */
  settle(id: number, recorded: boolean): void {
    if (recorded) {
      this.remove(id);
      return;
    }
    const entry = this.entries.get(id);
    if (!entry?.inFlight) return;
    entry.inFlight = false;
    this.attach(entry);
  }

  /** Every alert the tick crosses, taken out until `settle`: bid_above when bid ≥ price, bid_below when bid ≤ price, ask_* on the ask. */
  onTick(tick: AlertTick): readonly FiredAlert[] {
    const pair = this.pairs.get(tick.symbol);
    if (!pair) return NOTHING;
    const { heaps } = pair;
    // The tick's prices at the stored scale: exact, as the pair's digits times a power of ten.
    const bid = Math.round(tick.bid * pair.unit) * pair.up;
    const ask = Math.round(tick.ask * pair.unit) * pair.up;
    let fired: FiredAlert[] | undefined;
    const take = (heap: Ladder<BookEntry, number>, price: number, above: boolean) => {
      for (let top = heap.peek(); top && (above ? top.key <= price : top.key >= price); top = heap.peek()) {
        heap.pop();
        const entry = top.value;
        this.expiries.remove(entry.expiry);
        entry.inFlight = true;
        if (!fired) fired = [];
        fired.push({ state: entry.state, priceE10: price });
      }
    };
    // Four peeks when nothing fires.
    if (heaps.bid_above.size > 0) take(heaps.bid_above, bid, true);
    if (heaps.bid_below.size > 0) take(heaps.bid_below, bid, false);
    if (heaps.ask_above.size > 0) take(heaps.ask_above, ask, true);
    if (heaps.ask_below.size > 0) take(heaps.ask_below, ask, false);
    return fired ?? NOTHING;
  }

  /** The earliest expiry held (epoch ms), if any: a timer with nothing due asks nothing more. */
  nextExpiry(): number | undefined {
    return this.expiries.peek()?.key;
  }

  /** Alerts whose expiry is at or before `now`, taken out until `settle`. */
  expireDue(now: number): ArmedAlertState[] {
    const due: ArmedAlertState[] = [];
    for (let top = this.expiries.peek(); top && top.key <= now; top = this.expiries.peek()) {
      this.expiries.pop();
      const entry = top.value;
      this.pairs.get(entry.state.symbol)!.heaps[entry.state.condition].remove(entry.price);
      entry.inFlight = true;
      due.push(entry.state);
    }
    return due;
  }

  private attach(entry: BookEntry): void {
    const { state } = entry;
    entry.price.key = state.priceE10;
    this.pairs.get(state.symbol)!.heaps[state.condition].add(entry.price);
    if (state.expiresAt !== null) {
      entry.expiry.key = state.expiresAt;
      this.expiries.add(entry.expiry);
    }
  }

  private detach(entry: BookEntry): void {
    this.pairs.get(entry.state.symbol)!.heaps[entry.state.condition].remove(entry.price);
    this.expiries.remove(entry.expiry);
  }
}
