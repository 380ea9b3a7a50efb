import { lockAccountById, postLedgerEntry } from '../../accounts/index.js';
import type { TradingDeps } from '../deps.js';
import { publishBalanceAdjusted } from '../events.js';
import * as repo from '../repo.js';
import type { AccountId } from '../types.js';

/**
 * Negative balance protection after a stop-out: once the account has no open position left
 * and its balance is below 0, a ledger adjustment brings it back to 0 (announced with
 * `BALANCE_ADJUSTED_TOPIC`). Returns the adjustment in cents (0 if none).
 */
export async function protectNegativeBalance(
  deps: Pick<TradingDeps, 'writes' | 'clock' | 'bus' | 'log'>,
  accountId: AccountId,
): Promise<number> {
  const result = await deps.writes.run(async (trx) => {
    const account = await lockAccountById(trx, accountId);
    if (!account || Number(account.balance_minor) >= 0) return null;
    if ((await repo.openPositions(trx, accountId)).length > 0) return null;
    const amount = -Number(account.balance_minor);
    const balance = await postLedgerEntry(trx, {
      accountId,
      kind: 'negative_balance_adjustment',
      amountMinor: amount,
      reference: 'stop_out',
      now: deps.clock.now(),
    });
    return { userId: Number(account.user_id), amount, balance };
  });
  if (!result) return 0;
  publishBalanceAdjusted(deps, {
    userId: result.userId,
    accountId,
    balance_minor: result.balance,
    amount_minor: result.amount,
  });
  return result.amount;
}
