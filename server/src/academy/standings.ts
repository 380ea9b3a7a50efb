import {
  accountFiguresFromTotals,
  Dec,
  type DrawdownTally,
  EMPTY_PERFORMANCE_TALLY,
  type PerformanceFigures,
  type PerformanceTally,
  performanceFigures,
} from '@pipdesk/contract';
import { accountsOfUsers } from '../accounts/index.js';
import type { AppContext } from '../core/context.js';
import type { LiveTrading } from '../trading/live/index.js';
import { accountStandings, type StandingPeriodRow } from '../trading/queries/account-standings.js';
import type { PositionState } from '../trading/service.js';
import { cohortMembers, membershipFingerprint } from './standings-repo.js';

/** What the roster and the leaderboard read: the database and the live book. */
export interface StandingsDeps {
  db: AppContext['db'];
  clock: AppContext['clock'];
  live: Pick<LiveTrading, 'accountSnapshot'>;
  /** Keeps the database part between calls until money moves; none: read every time. */
  cache?: StandingsCache;
}

/**
 * The database part of the standings (statistics, pending orders, last trade, the day's start),
 * kept per cohort until something it reads may have changed (docs/academy.md#the-roster): every
 * execution, order change and balance adjustment on any node reaches every node's bus, and the
 * owner calls `invalidate` on each; a change of the cohort's members is seen by a cheap
 * fingerprint read on every call; anything else (a deposit from the CLI, the leader's 15-minute
 * equity points) at most `maxAgeMs` later. The live figures are never cached: they come from the
 * book on every call.
 */
export class StandingsCache {
  private version = 0;
  private readonly entries = new Map<string, { version: number; loadedAt: number; members: string; rows: StandingRow[] }>();

  constructor(private readonly maxAgeMs = 5_000) {}

  invalidate(): void {
    this.version += 1;
    this.entries.clear();
  }

  async rows(key: string, members: string, now: number, load: () => Promise<StandingRow[]>): Promise<StandingRow[]> {
    const hit = this.entries.get(key);
    if (hit && hit.version === this.version && hit.members === members && now - hit.loadedAt < this.maxAgeMs) return hit.rows;
    // A change announced while this read runs makes it stale at once: it is answered, not kept.
    const version = this.version;
    const rows = await load();
    if (version === this.version) this.entries.set(key, { version, loadedAt: now, members, rows });
    return rows;
  }
}

/** Account figures, exact. */
export interface StandingFigures {
  balance: Dec;
  equity: Dec;
  marginUsed: Dec;
  freeMargin: Dec;
  marginLevel: Dec | null;
}

/** One member of a cohort: live figures from the book, statistics from the period's stored totals. */
export interface Standing {
  user: { id: number; email: string; full_name: string };
  /** Null without a trading account (then every figure below is empty). */
  figures: StandingFigures | null;
  positions: PositionState[];
  pendingOrders: number;
  performance: PerformanceFigures | null;
  /** When the current period started (the account's creation when it has no period row yet). */
  periodStart: number | null;
  lastTradeAt: number | null;
  /** The equity at the start of the UTC day (the last equity point before it), or the period's start balance. */
  dayStartEquity: Dec | null;
}

const DAY_MS = 86_400_000;
const cents = (minor: number | string | bigint) => Dec.scaled(BigInt(minor), 2);
const NO_DRAWDOWN: DrawdownTally = { peak: null, maxDrawdownPct: Dec.ZERO };

/** The start of the UTC day `now` is in. */
export function dayStartOf(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

/**
 * Every member of the cohort, ordered by user id. The figures come from this node's live book
 * (no database per tick); an account the book holds nothing for has no open position, so its
 * balance is its equity. Statistics are the current period's stored running totals
 * (docs/performance.md#definitions): the database is read once per call, never per member.
 */
export async function cohortStandingsOf(deps: StandingsDeps, cohortId: number): Promise<Standing[]> {
  const now = deps.clock.now();
  const dayStart = dayStartOf(now);
  const load = () => standingRows(deps.db.kysely, cohortId, dayStart);
  const rows = deps.cache
    ? await deps.cache.rows(`${cohortId}:${dayStart}`, await membershipFingerprint(deps.db.kysely, cohortId), now, load)
    : await load();
  return rows.map((row) => standingOf(deps, row));
}

/** One member as read from the database: who, their account (if any) and its period's figures. */
export interface StandingRow {
  user: { id: number; email: string; full_name: string };
  account: { id: number; balanceMinor: number; createdAt: number } | null;
  period: StandingPeriodRow | null;
  pendingOrders: number;
}

/** The members, their accounts (through accounts/) and the accounts' standings (through trading/). */
async function standingRows(q: AppContext['db']['kysely'], cohortId: number, dayStart: number): Promise<StandingRow[]> {
  const members = await cohortMembers(q, cohortId);
  const accounts = new Map(
    (
      await accountsOfUsers(
        q,
        members.map((m) => Number(m.id)),
      )
    ).map((a) => [Number(a.user_id), a]),
  );
  const standings = await accountStandings(
    q,
    [...accounts.values()].map((a) => Number(a.id)),
    dayStart,
  );
  return members.map((m) => {
    const account = accounts.get(Number(m.id));
    const accountId = account ? Number(account.id) : null;
    return {
      user: { id: Number(m.id), email: m.email, full_name: m.full_name },
      account: account
        ? { id: Number(account.id), balanceMinor: Number(account.balance_minor), createdAt: Number(account.created_at) }
        : null,
      period: accountId === null ? null : (standings.periods.get(accountId) ?? null),
      pendingOrders: accountId === null ? 0 : (standings.pending.get(accountId) ?? 0),
    };
  });
}

function standingOf(deps: StandingsDeps, row: StandingRow): Standing {
  const { user, account, period } = row;
  if (!account) {
    return {
      user,
      figures: null,
      positions: [],
      pendingOrders: 0,
      performance: null,
      periodStart: null,
      lastTradeAt: null,
      dayStartEquity: null,
    };
  }
  const snapshot = deps.live.accountSnapshot(account.id);
  const figures: StandingFigures = snapshot
    ? {
        balance: snapshot.figures.balance,
        equity: snapshot.figures.equity,
        marginUsed: snapshot.figures.marginUsed,
        freeMargin: snapshot.figures.freeMargin,
        marginLevel: snapshot.figures.marginLevel,
      }
    : { balance: cents(account.balanceMinor), ...accountFiguresFromTotals(cents(account.balanceMinor), Dec.ZERO, Dec.ZERO) };
  const tally = period ? tallyOf(period) : EMPTY_PERFORMANCE_TALLY;
  const netPnl = tally.grossProfit.plus(tally.grossLoss);
  const performance = performanceFigures({
    tally,
    drawdown: period ? drawdownOf(period) : NO_DRAWDOWN,
    // docs/performance.md#definitions: start = balance − net P&L of the period.
    startBalance: figures.balance.minus(netPnl),
    equity: figures.equity,
  });
  return {
    user,
    figures,
    positions: snapshot?.positions ?? [],
    pendingOrders: row.pendingOrders,
    performance,
    periodStart: period ? Number(period.started_at) : account.createdAt,
    lastTradeAt: period?.last_trade_at == null ? null : Number(period.last_trade_at),
    dayStartEquity: period?.day_start_equity_minor == null ? performance.startBalance : cents(period.day_start_equity_minor),
  };
}

function tallyOf(row: StandingPeriodRow): PerformanceTally {
  return {
    closedTrades: Number(row.closed_trades),
    wins: Number(row.wins),
    losses: Number(row.losses),
    breakevens: Number(row.breakevens),
    grossProfit: cents(row.gross_profit_minor ?? 0),
    grossLoss: cents(row.gross_loss_minor ?? 0),
    largestWin: row.largest_win_minor === null ? null : cents(row.largest_win_minor),
    largestLoss: row.largest_loss_minor === null ? null : cents(row.largest_loss_minor),
    currentWinStreak: Number(row.current_win_streak),
    currentLossStreak: Number(row.current_loss_streak),
    longestWinStreak: Number(row.longest_win_streak),
    longestLossStreak: Number(row.longest_loss_streak),
  };
}

function drawdownOf(row: StandingPeriodRow): DrawdownTally {
  return {
    peak: row.peak_equity_minor === null ? null : cents(row.peak_equity_minor),
    maxDrawdownPct: Dec.from(row.max_drawdown_pct ?? '0'),
  };
}
