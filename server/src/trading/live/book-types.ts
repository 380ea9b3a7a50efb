import type { AccountFigures, Dec } from '@pipdesk/contract';
import type { Pair } from '../../market/index.js';
import type { PositionState } from '../types.js';

// The live book's records (book.ts): an open position and an account as every node keeps them.

/** One open position in memory, valued at the latest prices. */
export interface LivePosition {
  state: PositionState;
  account: LiveAccount;
  pair: Pair;
  /** Signed units (lots × contract size). */
  signedUnits: Dec;
  entry: Dec;
  long: boolean;
  /** USD, exact (rounded only for display). */
  unrealized: Dec;
  margin: Dec;
  /** Bid for a long, ask for a short; null until the pair has a price. */
  currentPrice: Dec | null;
  /** The same, as the number sent to clients (the pair's digits). */
  currentPriceNumber: number;
  /**
   * What its figures were last worked out from, compared by identity (the book makes one price
   * object per tick and one rate object per tick of a rate's route): a tick that moves neither
   * input of a figure leaves it as it is (`revalue`). `pnlUsd` and `marginUsd` are the figures as
   * worked out; `unrealized` and `margin` are what the account's sums hold (0 until valued).
   */
  inputs: { price: unknown; quoteRate: unknown; baseRate: unknown; leverage: number };
  pnlUsd: Dec;
  marginUsd: Dec;
  /** False while a price or conversion rate it needs is missing (its P&L and margin then count as 0). */
  valued: boolean;
  /** Symbols whose ticks change its valuation: its own pair and the pairs converting its currencies to USD. */
  dependsOn: readonly string[];
}

/** One trading account in memory: balance, leverage and open positions, with running sums. */
export interface LiveAccount {
  accountId: number;
  userId: number;
  balanceMinor: number;
  leverage: number;
  positions: Map<number, LivePosition>;
  /** Σ unrealized P&L and Σ margin of the open positions, kept exact by applying deltas. */
  unrealizedSum: Dec;
  marginSum: Dec;
  /** Open positions not valued yet (a price missing): risk waits for them. */
  unvalued: number;
  /** Dedupes an account touched by several positions within one tick. */
  touchedEpoch: number;
  /**
   * During the notification of a tick: whether the tick is one of its positions' own pair
   * (their prices moved) or gave a position its first valuation (its P&L appears), rather
   * than only moving a pair that converts their currencies to USD.
   */
  ownPriceMoved: boolean;
  /** Risk engine state (risk.ts). */
  risk: { marginCallArmed: boolean; stopOutRunning: boolean; retryAt: number };
  /** Another module's watch on its equity (equity-watch.ts), or null. */
  watch: EquityWatch | null;
}

/** Account figures of docs/trading-rules.md#account-figures, exact (the contract's `accountFiguresFromTotals`), with the balance and leverage. */
export interface Figures extends AccountFigures {
  balance: Dec;
  leverage: number;
}

/**
 * Another module's watch on one account's equity (evaluations' breach check,
 * docs/evaluations.md#on-many-nodes): the live book calls `onReached` whenever it revalues the
 * account (a tick, a fill) with its equity at or below `thresholdRaw`. It lives on the account
 * object itself, so the check on a tick is one field read and, for a watched account, one
 * comparison of integers: no lookup, nothing allocated.
 */
export interface EquityWatch {
  /** The equity, as a `Dec`'s raw integer, at or below which `onReached` is called. */
  readonly thresholdRaw: bigint;
  /**
   * The threshold less the balance, for the balance it was worked out at (`slackBalance`): how
   * far the unrealized P&L may fall. Redone only when the balance moves (a fill), so a tick's
   * check compares the running Σ unrealized with it and does no arithmetic.
   */
  slackRaw: bigint;
  slackBalance: number;
  readonly onReached: (account: LiveAccount) => void;
}
