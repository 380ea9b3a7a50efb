import { Dec } from '@pipdesk/contract';
import { sameDecimal } from './book-helpers.js';
import type { ProtectionEntry } from './book-types.js';
import type { ProtectionState } from './ports.js';

// The trigger book's reading of a trailing stop (trigger-book.ts, docs/order-engine.md#trailing-stops):
// the stop loss it moved in memory against the one a change brings from the database.

/** The protection's state, its stop loss text brought up to date after trailing moves. */
export function stateOf(entry: ProtectionEntry): ProtectionState {
  if (entry.stateBehind) {
    entry.state = { ...entry.state, stopLoss: entry.stopLoss!.toString() };
    entry.stateBehind = false;
  }
  return entry.state;
}

/**
 * Whether the engine's stop (moved by trailing) is further along (a LONG's higher, a SHORT's
 * lower) than the stored one a change brings, on the same side; also when the change took the
 * trailing away: the stop stays where it trailed to.
 */
export function movedFurther(entry: ProtectionEntry, incoming: ProtectionState): boolean {
  const { stopLoss } = entry;
  if (stopLoss === null || incoming.long !== entry.state.long) return false;
  if (incoming.stopLoss === null) return true;
  const stored = Dec.from(incoming.stopLoss);
  return incoming.long ? stopLoss.gt(stored) : stopLoss.lt(stored);
}

/**
 * Whether the change is the echo of a trailing write of this engine: the same trailing and take
 * profit, a stop loss the engine wrote, and the one in memory already further along.
 */
export function isOwnEcho(entry: ProtectionEntry, incoming: ProtectionState): boolean {
  const { state, stopLoss } = entry;
  if (state.trailingStopPips === null || incoming.trailingStopPips !== state.trailingStopPips) return false;
  if (incoming.long !== state.long || incoming.stopLoss === null || stopLoss === null) return false;
  if (!sameDecimal(incoming.takeProfit, state.takeProfit)) return false;
  const theirs = Dec.from(incoming.stopLoss);
  if (!entry.persisted.some((written) => theirs.eq(written))) return false;
  return state.long ? stopLoss.gt(theirs) : stopLoss.lt(theirs);
}
