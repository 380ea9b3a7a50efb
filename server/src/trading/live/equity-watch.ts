import { Dec } from '@pipdesk/contract';
import type { EquityWatch, LiveAccount } from './book-types.js';

/** One cent as a `Dec`'s raw integer. */
const CENT_RAW = Dec.scaled(1, 2).raw;

export type { EquityWatch } from './book-types.js';

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
