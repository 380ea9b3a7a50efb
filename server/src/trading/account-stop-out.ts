import type { Dec } from '@pipdesk/contract';
import { AppError } from '../errors.js';
import { closePosition } from './commands/close-position.js';
import { protectNegativeBalance } from './commands/protect-negative-balance.js';
import type { TradingDeps } from './deps.js';
import { valueAccount } from './math.js';
import { type PositionState, accountId as toAccountId, positionId as toPositionId, userId as toUserId } from './types.js';

/**
 * Stop-out of an account on a market of its own (account-markets.ts), on that market's prices
 * (docs/trading-rules.md#margin-call-and-stop-out, the live risk engine's rule): while equity is at
 * or below `stopOutLevel` percent of the margin used, the largest loser closes at the current tick;
 * then negative balance protection. `account` is kept by the account's own executions (its balance
 * moves with each close here); a position closed here leaves it.
 */
export async function stopOutOnOwnMarket(
  deps: TradingDeps,
  accountId: number,
  account: { userId: number; balanceMinor: number; leverage: number; open: Map<number, PositionState> },
  stopOutLevel: Dec,
): Promise<void> {
  let closed = 0;
  for (let round = 0; round < 1_000 && account.open.size > 0; round++) {
    const value = valueAccount(account.balanceMinor, account.leverage, account.open.values(), deps.pricing);
    if (!value.marginUsed.gt(0) || value.equity.times(100).gt(value.marginUsed.times(stopOutLevel))) break;
    let loser: number | undefined;
    let worst: Dec | undefined;
    for (const [id, v] of value.positions) {
      if (worst === undefined || v.unrealizedPnl.lt(worst)) {
        worst = v.unrealizedPnl;
        loser = id;
      }
    }
    if (loser === undefined) break;
    try {
      await closePosition(deps, toUserId(account.userId), toPositionId(loser), {
        reason: 'stop_out',
        accountId: toAccountId(accountId),
      });
      closed++;
    } catch (err) {
      // Closed meanwhile: not ours to close any more.
      if (!(err instanceof AppError && (err.status === 404 || err.status === 409))) throw err;
    }
    account.open.delete(loser);
  }
  if (closed > 0) await protectNegativeBalance(deps, toAccountId(accountId));
}
