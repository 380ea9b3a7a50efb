// The replay module's types. Files inside replay/ import them from here, never from the
// module's entry point (index.ts only composes).

import type { Pair } from '../market/index.js';

/** A session plays 1 to 4 pairs (docs/replay.md). */
export const MIN_REPLAY_SYMBOLS = 1;
export const MAX_REPLAY_SYMBOLS = 4;

/**
 * Where a session over some pairs can run, in epoch ms: from the latest first bar of its
 * pairs to the end of the earliest last bar (exclusive), so every pair has data over the
 * whole of it (docs/replay.md#the-range).
 */
export interface DataRange {
  readonly from: number;
  readonly to: number;
}

/** Why a session cannot be created (or resumed) over these pairs at that time; the route answers 400 with its message. */
export type ReplayProblem =
  | { readonly code: 'SYMBOL_COUNT'; readonly min: number; readonly max: number }
  | { readonly code: 'DUPLICATE_SYMBOL'; readonly symbol: string }
  | { readonly code: 'NO_DATA'; readonly symbol: string; readonly available: readonly string[] }
  | { readonly code: 'NO_COMMON_RANGE' }
  | { readonly code: 'OUTSIDE_DATA'; readonly range: DataRange };

/** What the session market needs of a catalogue pair to quote it. */
export type QuotedPair = Pick<Pair, 'symbol' | 'digits' | 'pipSize' | 'spread'>;

/** What a conversion needs of a catalogue pair: its two currencies. */
export type CurrencyPair = Pick<Pair, 'symbol' | 'baseCurrency' | 'quoteCurrency'>;
