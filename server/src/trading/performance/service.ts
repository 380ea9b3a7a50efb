import { Dec, type PerformanceDto, performanceFigures, winRatePct } from '@pipdesk/contract';
import { findAccountById, findTraderAccount, lockAccountById, type TradingAccountRow } from '../../accounts/index.js';
import { writeTransaction } from '../../db/transaction.js';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import { valueAccount } from '../math.js';
import * as tradingRepo from '../repo.js';
import type { AccountId, UserId } from '../types.js';
import { ensurePeriod } from './period.js';
import * as repo from './repo.js';

type Deps = Pick<TradingDeps, 'db' | 'pricing'>;

/** Money and percentages answer with 2 decimals (docs/api.md#performance-and-the-trade-journal). */
const money = (amount: Dec) => amount.toNumber(2);
const twoDecimals = (amount: Dec | null) => (amount === null ? null : amount.toNumber(2));
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The account a call names (docs/accounts.md), else the trader's primary one; 409
 * NO_TRADING_ACCOUNT without a primary one (as the order calls answer), 404 for a named one not theirs.
 */
export async function accountOfUser(
  deps: Pick<TradingDeps, 'db'>,
  userId: UserId,
  accountId?: AccountId,
): Promise<TradingAccountRow> {
  const account = await findTraderAccount(deps.db.kysely, userId, accountId);
  if (!account) throw accountId === undefined ? errors.noTradingAccount() : errors.accountNotFound();
  return account;
}

/**
 * The account's current period; the first call for an account that has none yet creates it in a
 * write transaction (docs/performance.md#the-period), every later one only reads.
 */
export async function currentPeriodOf(deps: Pick<TradingDeps, 'db'>, account: TradingAccountRow): Promise<repo.PeriodRow> {
  const found = await repo.currentPeriod(deps.db.kysely, Number(account.id));
  if (found) return found;
  return writeTransaction(deps.db, async (trx) => {
    const locked = await lockAccountById(trx, Number(account.id));
    if (!locked) throw errors.tradingAccountNotFound();
    return ensurePeriod(trx, {
      id: Number(locked.id),
      created_at: Number(locked.created_at),
      balance_minor: Number(locked.balance_minor),
    });
  });
}

/**
 * GET trading/performance/ for one account (the trader's own, or a student's for the academy):
 * the period's statistics from its stored tallies, the equity at current prices.
 */
export async function performanceOfAccount(deps: Deps, account: TradingAccountRow): Promise<PerformanceDto> {
  const first = await currentPeriodOf(deps, account);
  const read = await tradingRepo.readSnapshot(deps.db, async (q) => {
    const period = (await repo.currentPeriod(q, Number(account.id))) ?? first;
    const pairs = await repo.pairStats(q, Number(period.id));
    const positions = await tradingRepo.openPositions(q, Number(account.id));
    const row = await findAccountById(q, Number(account.id));
    if (!row) throw errors.tradingAccountNotFound();
    return { period, pairs, positions, row };
  });
  const balanceMinor = Number(read.row.balance_minor);
  const equity = valueAccount(
    balanceMinor,
    Number(read.row.leverage),
    read.positions.map(tradingRepo.positionStateFromRow),
    deps.pricing,
  ).equity;
  const tally = repo.tallyFromRow(read.period);
  const netPnl = tally.grossProfit.plus(tally.grossLoss);
  // Balance = the period's start + deposits and adjustments since + Σ realized since
  // (docs/performance.md#definitions), so the start needs no scan of the ledger.
  const startBalance = Dec.scaled(balanceMinor, 2).minus(netPnl);
  const f = performanceFigures({ tally, drawdown: repo.drawdownFromRow(read.period), startBalance, equity });
  return {
    period_start: iso(Number(read.period.started_at)),
    start_balance: money(f.startBalance),
    equity: money(f.equity),
    net_pnl: money(f.netPnl),
    return_pct: twoDecimals(f.returnPct),
    closed_trades: f.closedTrades,
    wins: f.wins,
    losses: f.losses,
    breakevens: f.breakevens,
    win_rate: twoDecimals(f.winRatePct),
    profit_factor: twoDecimals(f.profitFactor),
    expectancy: twoDecimals(f.expectancy),
    average_win: twoDecimals(f.averageWin),
    average_loss: twoDecimals(f.averageLoss),
    largest_win: twoDecimals(f.largestWin),
    largest_loss: twoDecimals(f.largestLoss),
    longest_win_streak: f.longestWinStreak,
    longest_loss_streak: f.longestLossStreak,
    max_drawdown_pct: money(f.maxDrawdownPct),
    by_pair: read.pairs.map((p) => {
      const tally = repo.pairTallyFromRow(p)!;
      const rate = winRatePct(tally.wins, tally.losses);
      return { symbol: p.symbol, trades: tally.trades, net_pnl: money(tally.netPnl), win_rate: twoDecimals(rate) };
    }),
  };
}

export async function performanceOfUser(deps: Deps, userId: UserId, accountId?: AccountId): Promise<PerformanceDto> {
  return performanceOfAccount(deps, await accountOfUser(deps, userId, accountId));
}
