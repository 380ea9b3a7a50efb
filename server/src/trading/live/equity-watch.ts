import { Dec } from '@pipdesk/contract';
import type { LiveAccount } from './book.js';

/** One cent as a `Dec`'s raw integer. */
const CENT_RAW = Dec.scaled(1, 2).raw;

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

export function equityWatch(thresholdRaw: bigint, onReached: (account: LiveAccount) => void): EquityWatch {
  return { thresholdRaw, slackRaw: 0n, slackBalance: Number.NaN, onReached };
}

/**
 * The check the live node runs on every account a tick or a fill revalued. An account with a
 * price missing (`unvalued`) is not judged: its P&L counts as 0 until every price is there.
 */
export function checkEquityWatch(account: LiveAccount): void {
  const watch = account.watch;
  if (watch === null || account.unvalued > 0) return;
  if (watch.slackBalance !== account.balanceMinor) {
    watch.slackRaw = watch.thresholdRaw - BigInt(account.balanceMinor) * CENT_RAW;
    watch.slackBalance = account.balanceMinor;
  }
  if (account.unrealizedSum.raw > watch.slackRaw) return;
  watch.onReached(account);
}
