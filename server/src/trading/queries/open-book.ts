import { accountsByIds } from '../../accounts/index.js';
import type { TradingDeps } from '../deps.js';
import * as repo from '../repo.js';
import { type OpenBookAccount, type PositionState, accountId as toAccountId } from '../types.js';

/**
 * All OPEN positions of all accounts with the account's balance and leverage: loaded once at
 * start by the live cache. The positions are read first, then their accounts (through the
 * accounts module), so every position read has its account.
 */
export async function loadOpenBook(deps: Pick<TradingDeps, 'db'>): Promise<OpenBookAccount[]> {
  const q = deps.db.kysely;
  const positions = await repo.allOpenPositions(q);
  const byAccount = new Map<number, PositionState[]>();
  for (const p of positions) {
    const state = repo.positionStateFromRow(p);
    const list = byAccount.get(state.accountId) ?? [];
    list.push(state);
    byAccount.set(state.accountId, list);
  }
  const accounts = await accountsByIds(q, [...byAccount.keys()]);
  // A practice account is valued on its replay session's market, never by live ticks (docs/replay.md#the-accounts-market).
  return accounts
    .filter((a) => a.kind !== 'practice')
    .map((a) => ({
      accountId: toAccountId(a.id),
      userId: Number(a.user_id),
      balanceMinor: Number(a.balance_minor),
      leverage: Number(a.leverage),
      status: a.status,
      positions: byAccount.get(Number(a.id)) ?? [],
    }));
}
