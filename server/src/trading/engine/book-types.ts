import type { Dec } from '@pipdesk/contract';
import { Ladder, type Rung } from '../../core/ladder.js';
import type { ProtectionReason, ProtectionState, RestingOrderState } from './ports.js';

// The trigger book's shapes: what a tick returns, and how each pair's ladders hold its
// entries (docs/order-engine.md). The book itself is trigger-book.ts.

/** A tick as the book compares it: exact bid and ask at the pair's digits. */
export interface BookQuote {
  symbol: string;
  bid: Dec;
  ask: Dec;
  timestamp: number;
  /** This node's clock when the tick arrived: a trigger executed later is judged by it (docs/trading-rules.md#no-fill-on-a-stale-quote). */
  receivedAt?: number;
}

/** What a tick triggered. The book no longer holds it armed: the caller settles or re-arms it. */
export type Trigger =
  /** Close the whole position (docs/order-engine.md#the-trigger-table). */
  | { kind: 'close'; protection: ProtectionState; reason: ProtectionReason }
  /** Fill a LIMIT, a STOP, or a STOP_LIMIT whose stop already triggered. */
  | { kind: 'fill'; order: RestingOrderState }
  /** A STOP_LIMIT's stop triggered: record it, then `restStopLimit` (it may fill on the same tick). */
  | { kind: 'stop_limit'; order: RestingOrderState };

/** A trailing stop that moved (exact decimal text). */
export interface TrailingMove {
  positionId: number;
  stopLoss: string;
  /** The protection version it moved in (ProtectionState's; absent while 0): written only while it is still the stored one. */
  protectionVersion?: number;
}

export interface TickResult {
  /** Grouped by account; within one account protection first, then orders, older first. */
  triggers: Trigger[];
  /** Trailing stops this tick moved (already applied in memory); the decimal text is built when first read. */
  readonly moves: TrailingMove[];
}

/** What the book needs of a pair. */
export interface BookPair {
  symbol: string;
  /** A pip as a decimal (0.0001, or 0.01 when JPY is the quote). */
  pipSize: number;
}

export type Role = 'order' | 'sl' | 'tp' | 'trail';

export interface Target {
  entry: OrderEntry | ProtectionEntry;
  role: Role;
}

export interface Placed {
  rung: Rung<Target>;
  ladder: Ladder<Target>;
}

export interface OrderEntry {
  kind: 'order';
  state: RestingOrderState;
  pair: PairLadders;
  placed: Placed[];
  expiry: Rung<OrderEntry> | null;
  /** Triggered or expiring: out of the ladders until settled or re-armed. */
  held: boolean;
  /** A newer state arrived while held: a stale outcome re-arms it instead of dropping it. */
  changedWhileHeld: boolean;
}

export interface ProtectionEntry {
  kind: 'protection';
  state: ProtectionState;
  pair: PairLadders;
  placed: Placed[];
  stopLoss: Dec | null;
  /** The stop loss's rung while armed (a trailing move re-keys it in place). */
  stopRung: Rung<Target> | null;
  takeProfit: Dec | null;
  /** Trailing distance as a price difference (pips × pip size). */
  distance: Dec | null;
  /** The last few stop losses the engine wrote (trailing moves), to recognise their echo on the bus. */
  persisted: string[];
  /**
   * A trailing move changed `stopLoss` since `state` was last brought up to date: `state.stopLoss`
   * is rendered as text only when the state is read (`stateOf`, book-trailing.ts), never per tick.
   */
  stateBehind: boolean;
  held: boolean;
  changedWhileHeld: boolean;
}

/**
 * One pair's ladders. The trigger ladders are named by the condition that fires them
 * (docs/order-engine.md#the-trigger-table); a trailing position's stop loss rests in a ladder
 * of its own, small, since every trailing move re-keys it. The two `trail` ladders hold the
 * price beyond which a trailing stop moves next.
 */
export class PairLadders {
  /** Fires while key ≥ bid: SELL STOP, a LONG's stop loss (one that does not trail). */
  readonly atOrAboveBid = new Ladder<Target>('highest');
  /** Fires while key ≤ bid: SELL LIMIT, a LONG's take profit. */
  readonly atOrBelowBid = new Ladder<Target>('lowest');
  /** Fires while key ≥ ask: BUY LIMIT, a SHORT's take profit. */
  readonly atOrAboveAsk = new Ladder<Target>('highest');
  /** Fires while key ≤ ask: BUY STOP, a SHORT's stop loss (one that does not trail). */
  readonly atOrBelowAsk = new Ladder<Target>('lowest');
  /** Fires while key ≥ bid: the stop loss of a LONG that trails. */
  readonly trailingStopLong = new Ladder<Target>('highest');
  /** Fires while key ≤ ask: the stop loss of a SHORT that trails. */
  readonly trailingStopShort = new Ladder<Target>('lowest');
  /** A LONG's trailing stop moves while key (stop loss + distance) < bid. */
  readonly trailLong = new Ladder<Target>('lowest');
  /** A SHORT's trailing stop moves while key (stop loss − distance) > ask. */
  readonly trailShort = new Ladder<Target>('highest');
  last: BookQuote | undefined;

  constructor(
    readonly symbol: string,
    readonly pipSize: Dec,
  ) {}

  /** Where a position's stop loss rests: a LONG's fires at or above the bid, a SHORT's at or below the ask. */
  stopLadder(long: boolean, trails: boolean): Ladder<Target> {
    if (trails) return long ? this.trailingStopLong : this.trailingStopShort;
    return long ? this.atOrAboveBid : this.atOrBelowAsk;
  }
}
