import { type PairTradingDto, RECENT_ORDERS_LIMIT } from '@pipdesk/contract';
import { findTraderAccount } from '../../accounts/index.js';
import type { TradingDeps } from '../deps.js';
import * as history from '../history-repo.js';
import { accountAnswer, orderDto } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, UserId } from '../types.js';

/** The trader part of the pair page: open positions and last orders on the pair, and the account. */
export async function pairTrading(
  deps: Pick<TradingDeps, 'db' | 'pricing'>,
  userId: UserId,
  symbol: string,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
): Promise<PairTradingDto> {
  const { pricing } = deps;
  const read = await repo.readSnapshot(deps.db, async (q) => {
    const account = await findTraderAccount(q, userId, accountId);
    if (!account) return undefined;
    const positions = await repo.openPositions(q, Number(account.id));
    const orders = await history.recentOrders(q, Number(account.id), RECENT_ORDERS_LIMIT, symbol);
    const pending = await repo.pendingOrders(q, Number(account.id), symbol);
    return { account, positions, orders, pending };
  });
  if (!read) return { positions: [], recent_orders: [], trading_account: null, pending_orders: [] };
  const answer = accountAnswer(pricing, read.account, read.positions.map(repo.positionStateFromRow));
  const pair = pricing.pair(symbol);
  return {
    positions: answer.positions.filter((p) => p.fx_pair_symbol === symbol),
    recent_orders: read.orders.map((o) => orderDto(o, pair)),
    trading_account: answer.account,
    pending_orders: read.pending.map((o) => orderDto(o, pair)),
  };
}
