import { type PlatformDataDto, RECENT_ORDERS_LIMIT, RECENT_TRADES_LIMIT, type UserDto } from '@pipdesk/contract';
import { findAccountAndProfile } from '../../accounts/index.js';
import { pairDto } from '../../market/catalogue.js';
import type { TradingDeps } from '../deps.js';
import * as history from '../history-repo.js';
import { accountAnswer, orderDto, tradeDto } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId } from '../types.js';

/** Everything the dashboard needs: profile, account, active pairs, open positions, recent orders and trades. */
export async function platformData(
  deps: Pick<TradingDeps, 'db' | 'pricing' | 'pairs'>,
  user: UserDto,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
): Promise<PlatformDataDto> {
  const { pricing } = deps;
  const fx_pairs = deps.pairs
    .list()
    .filter((p) => p.isActive)
    .map(pairDto);
  const empty = {
    open_positions: [],
    recent_orders: [],
    recent_trades: [],
    trading_mode: 'live' as const,
    pending_orders: [],
  };
  const read = await repo.readSnapshot(deps.db, async (q) => {
    const row = await findAccountAndProfile(q, user.id, accountId);
    if (row?.account_id === null || row === undefined) return { row, positions: [], orders: [], trades: [], pending: [] };
    const id = Number(row.account_id);
    // One after the other: a snapshot is one connection, so parallel queries would only queue.
    const positions = await repo.openPositions(q, id);
    const orders = await history.recentOrders(q, id, RECENT_ORDERS_LIMIT);
    const trades = await history.recentTrades(q, id, RECENT_TRADES_LIMIT);
    const pending = await repo.pendingOrders(q, id);
    return { row, positions, orders, trades, pending };
  });
  const { row } = read;
  if (!row) return { trader_profile: null, trading_account: null, fx_pairs, ...empty };
  const trader_profile = { id: Number(row.profile_id), user };
  if (row.account_id === null) return { trader_profile, trading_account: null, fx_pairs, ...empty };
  const { account, positions: open } = accountAnswer(
    pricing,
    {
      id: Number(row.account_id),
      balance_minor: Number(row.balance_minor),
      leverage: Number(row.leverage),
      currency: row.currency,
    },
    read.positions.map(repo.positionStateFromRow),
  );
  return {
    trader_profile,
    trading_account: account,
    fx_pairs,
    open_positions: open,
    recent_orders: read.orders.map((o) => orderDto(o, pricing.pair(o.symbol))),
    recent_trades: read.trades.map((t) => tradeDto(t, pricing.pair(t.symbol))),
    trading_mode: 'live',
    pending_orders: read.pending.map((o) => orderDto(o, pricing.pair(o.symbol))),
  };
}
