import { Dec } from '@pipdesk/contract';
import type { BookQuote, TickResult, TrailingMove, Trigger } from './book-types.js';
import type { RestingOrderState } from './ports.js';

// Small pure helpers of the trigger book (trigger-book.ts): what a tick returns, and the
// order in which triggers run.

/** The trailing stops one tick moved: positions and their new stop losses, as decimals. */
export class TickMoves {
  readonly ids: number[] = [];
  readonly stops: Dec[] = [];

  add(positionId: number, stopLoss: Dec): void {
    this.ids.push(positionId);
    this.stops.push(stopLoss);
  }
}

/**
 * A tick's result. The moves' decimal text is built only when `moves` is first read: the
 * engine never reads it (the once-a-second write takes the moves from the book), so a tick
 * that moves trailing stops renders no text.
 */
export function tickResult(triggers: Trigger[], moved: TickMoves | undefined): TickResult {
  if (!moved) return { triggers, moves: [] };
  let moves: TrailingMove[] | undefined;
  return {
    triggers,
    get moves(): TrailingMove[] {
      moves ??= moved.ids.map((positionId, i) => ({ positionId, stopLoss: moved.stops[i]!.toString() }));
      return moves;
    },
  };
}

/** Whether a LIMIT at `limit` fills at this tick: BUY when ask ≤ limit, SELL when bid ≥ limit. */
export function limitCrossed(side: 'BUY' | 'SELL', limit: Dec, quote: BookQuote): boolean {
  return side === 'BUY' ? quote.ask.lte(limit) : quote.bid.gte(limit);
}

export function sameDecimal(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return Dec.from(a).eq(b);
}

/** docs/order-engine.md#ordering: by account; protection before orders; older first. */
export function compareTriggers(a: Trigger, b: Trigger): number {
  const accountA = a.kind === 'close' ? a.protection.accountId : a.order.accountId;
  const accountB = b.kind === 'close' ? b.protection.accountId : b.order.accountId;
  if (accountA !== accountB) return accountA - accountB;
  if (a.kind === 'close' && b.kind === 'close') {
    return a.protection.openedAt - b.protection.openedAt || a.protection.positionId - b.protection.positionId;
  }
  if (a.kind === 'close') return -1;
  if (b.kind === 'close') return 1;
  return compareOrders(a.order, b.order);
}

export function compareOrders(a: RestingOrderState, b: RestingOrderState): number {
  return a.accountId - b.accountId || a.createdAt - b.createdAt || a.orderId - b.orderId;
}
