import { Dec, type DrawdownTally, type PairTally, type PerformanceTally } from '@pipdesk/contract';
import { type Kysely, type Selectable, sql } from 'kysely';
import { type ComposedStatement, composedStatement, dbKindOf, prepare } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { insertPoint, type NewEquityPoint } from '../equity-curve/repo.js';
import { insertEntry, type NewJournalEntry } from '../journal/repo.js';
import type { PerformancePairStatsTable, PerformancePeriodsTable } from './tables.js';

type Q = Kysely<Database>;
export type PeriodRow = Selectable<PerformancePeriodsTable>;

const cents = (minor: number | string | bigint) => Dec.scaled(BigInt(minor), 2);
const toCents = (amount: Dec) => amount.toScaledNumber(2);

// The queries of every fill are prepared (compiled once; db/prepared.ts) like the order path's own.
const currentPeriodOfAccount = prepare<{ accountId: number }, PeriodRow>('performance.currentPeriod', (q, value) =>
  q.selectFrom('performance_periods').selectAll().where('account_id', '=', value('accountId')).where('ended_at', 'is', null),
);

/** The account's current period, if it has one yet. */
export async function currentPeriod(q: Q, accountId: number): Promise<PeriodRow | undefined> {
  return (await currentPeriodOfAccount.execute(q, { accountId }))[0];
}

export async function insertPeriod(
  trx: Q,
  row: { accountId: number; startedAt: number; startBalanceMinor: number; tally: PerformanceTally },
): Promise<PeriodRow> {
  const inserted = await trx
    .insertInto('performance_periods')
    .values({
      account_id: row.accountId,
      started_at: row.startedAt,
      start_balance_minor: row.startBalanceMinor,
      ended_at: null,
      ...tallyColumns(row.tally),
      peak_equity_minor: null,
      max_drawdown_pct: '0',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return inserted;
}

export function tallyFromRow(row: PeriodRow): PerformanceTally {
  return {
    closedTrades: row.closed_trades,
    wins: row.wins,
    losses: row.losses,
    breakevens: row.breakevens,
    grossProfit: cents(row.gross_profit_minor),
    grossLoss: cents(row.gross_loss_minor),
    largestWin: row.largest_win_minor === null ? null : cents(row.largest_win_minor),
    largestLoss: row.largest_loss_minor === null ? null : cents(row.largest_loss_minor),
    currentWinStreak: row.current_win_streak,
    currentLossStreak: row.current_loss_streak,
    longestWinStreak: row.longest_win_streak,
    longestLossStreak: row.longest_loss_streak,
  };
}

export function drawdownFromRow(row: PeriodRow): DrawdownTally {
  return {
    peak: row.peak_equity_minor === null ? null : cents(row.peak_equity_minor),
    maxDrawdownPct: Dec.from(row.max_drawdown_pct),
  };
}

function tallyColumns(t: PerformanceTally) {
  return {
    closed_trades: t.closedTrades,
    wins: t.wins,
    losses: t.losses,
    breakevens: t.breakevens,
    gross_profit_minor: toCents(t.grossProfit),
    gross_loss_minor: toCents(t.grossLoss),
    largest_win_minor: t.largestWin === null ? null : toCents(t.largestWin),
    largest_loss_minor: t.largestLoss === null ? null : toCents(t.largestLoss),
    current_win_streak: t.currentWinStreak,
    current_loss_streak: t.currentLossStreak,
    longest_win_streak: t.longestWinStreak,
    longest_loss_streak: t.longestLossStreak,
  };
}

type PeriodUpdate = ReturnType<typeof tallyColumns> & {
  id: number;
  peak_equity_minor: number | null;
  max_drawdown_pct: string;
};

const PERIOD_UPDATE_COLUMNS = [
  'closed_trades',
  'wins',
  'losses',
  'breakevens',
  'gross_profit_minor',
  'gross_loss_minor',
  'largest_win_minor',
  'largest_loss_minor',
  'current_win_streak',
  'current_loss_streak',
  'longest_win_streak',
  'longest_loss_streak',
  'peak_equity_minor',
  'max_drawdown_pct',
] as const;

declare module '../../db/prepared.js' {
  /** The CTEs of a fill's statistics (`withFillStatistics`). */
  interface ComposedCtes {
    point: { id: number };
    pair: { period_id: number };
    journal: { trade_id: number };
    period: { id: number };
  }
}

/** The period's statistics and drawdown written (the `id` value's row). */
function updatePeriodQuery(db: ComposedStatement, value: <K extends keyof PeriodUpdate>(name: K) => PeriodUpdate[K]) {
  return db
    .updateTable('performance_periods')
    .set(Object.fromEntries(PERIOD_UPDATE_COLUMNS.map((c) => [c, value(c)])))
    .where('id', '=', value('id'));
}

const updatePeriodRow = prepare<PeriodUpdate, never>('performance.updatePeriod', (q, value) =>
  updatePeriodQuery(composedStatement(q), value),
);

type FillPoint = Omit<NewEquityPoint, 'period_id'>;

/** The fill's equity point as a CTE (`point`) of a statement that updates its period (`id`). */
function withFillPoint(
  q: ComposedStatement,
  value: <K extends keyof (FillPoint & { id: number })>(name: K) => (FillPoint & { id: number })[K],
): ComposedStatement {
  return q.with('point', (db) =>
    db
      .insertInto('equity_points')
      .values({
        account_id: value('account_id'),
        period_id: value('id'),
        time: value('time'),
        equity_minor: value('equity_minor'),
        balance_minor: value('balance_minor'),
      })
      .returning('id'),
  );
}

/**
 * On PostgreSQL, a fill's equity point and its period's update in one statement (one round trip
 * on the order path: docs/order-engine.md#round-trips). SQLite has no data-modifying CTE.
 */
const updatePeriodWithPointRow = prepare<PeriodUpdate & FillPoint, never>('performance.updatePeriodWithPoint', (q, value) =>
  updatePeriodQuery(withFillPoint(composedStatement(q), value), value),
);

function periodUpdate(periodId: number, tally: PerformanceTally, drawdown: DrawdownTally): PeriodUpdate {
  // A null (no win yet, no peak yet) is a value here, not a missing one.
  return {
    id: periodId,
    ...tallyColumns(tally),
    peak_equity_minor: drawdown.peak === null ? null : toCents(drawdown.peak),
    max_drawdown_pct: drawdown.maxDrawdownPct.toString(),
  };
}

/** Writes the period's statistics and drawdown after a fill. */
export async function updatePeriod(trx: Q, periodId: number, tally: PerformanceTally, drawdown: DrawdownTally): Promise<void> {
  await updatePeriodRow.execute(trx, periodUpdate(periodId, tally, drawdown));
}

/** A fill's equity point in the period, and the period's statistics and drawdown after it. */
export async function updatePeriodWithPoint(
  trx: Q,
  periodId: number,
  tally: PerformanceTally,
  drawdown: DrawdownTally,
  point: FillPoint,
): Promise<void> {
  if (dbKindOf(trx) === 'postgres') {
    await updatePeriodWithPointRow.execute(trx, { ...periodUpdate(periodId, tally, drawdown), ...point });
    return;
  }
  await insertPoint(trx, { ...point, period_id: periodId });
  await updatePeriod(trx, periodId, tally, drawdown);
}

/** A closed trade's journal row, but for its period (the period being updated). */
type ClosedTradeEntry = Omit<NewJournalEntry, 'period_id'>;
type ClosedTradeValues = PeriodUpdate &
  FillPoint & { [C in keyof Omit<PairStatsValues, 'period_id'> as `pair_${C}`]: PairStatsValues[C] } & {
    [C in keyof ClosedTradeEntry as `journal_${C}`]: ClosedTradeEntry[C];
  };

/**
 * A closed trade's pair statistics (`pair`: inserted, or replaced when the pair has a row
 * already) and its journal row (`journal`) as CTEs. The journal row's trade is the
 * `journal_trade_id` value, or, in a fill's own statement (`fill_trade`), the trade it inserts.
 */
function withClosedTrade(
  q: ComposedStatement,
  value: <K extends keyof ClosedTradeValues>(name: K) => ClosedTradeValues[K],
  trade: 'value' | 'fill_trade',
): ComposedStatement {
  return q
    .with('pair', (db) =>
      db
        .insertInto('performance_pair_stats')
        .values({
          period_id: value('id'),
          symbol: value('pair_symbol'),
          trades: value('pair_trades'),
          wins: value('pair_wins'),
          losses: value('pair_losses'),
          net_pnl_minor: value('pair_net_pnl_minor'),
        })
        .onConflict((oc) =>
          oc.columns(['period_id', 'symbol']).doUpdateSet((eb) => ({
            trades: eb.ref('excluded.trades'),
            wins: eb.ref('excluded.wins'),
            losses: eb.ref('excluded.losses'),
            net_pnl_minor: eb.ref('excluded.net_pnl_minor'),
          })),
        )
        .returning('period_id'),
    )
    .with('journal', (db) =>
      db
        .insertInto('journal_entries')
        .values({
          trade_id: trade === 'value' ? value('journal_trade_id') : sql<number>`(select "id" from "fill_trade")`,
          period_id: value('id'),
          account_id: value('journal_account_id'),
          symbol: value('journal_symbol'),
          realized_pnl_minor: value('journal_realized_pnl_minor'),
          executed_at: value('journal_executed_at'),
          note: '',
          rating: null,
          updated_at: null,
        })
        .returning('trade_id'),
    );
}

/**
 * On PostgreSQL, all a closed trade writes to the statistics in one statement
 * (docs/order-engine.md#round-trips): the equity point, the pair's statistics, the journal row
 * and the period's update.
 */
const closedTradeRow = prepare<ClosedTradeValues, never>('performance.recordClosedTrade', (q, value) =>
  updatePeriodQuery(withClosedTrade(withFillPoint(composedStatement(q), value), value, 'value'), value),
);

/** The values of `withFillStatistics`: the point and the period's update, and a closed trade's rows. */
export type FillStatisticsValues = Omit<ClosedTradeValues, 'journal_trade_id'>;

/**
 * A fill's statistics as CTEs of the fill's own statement on PostgreSQL
 * (trading/fill-statement.ts): its equity point, for a closed trade the pair's statistics and
 * the journal row (of the trade the statement inserts), and the period's update (`period`).
 */
export function withFillStatistics(
  q: ComposedStatement,
  value: <K extends keyof FillStatisticsValues>(name: K) => FillStatisticsValues[K],
  closed: boolean,
): ComposedStatement {
  const all = value as <K extends keyof ClosedTradeValues>(name: K) => ClosedTradeValues[K];
  const point = withFillPoint(q, all);
  const before = closed ? withClosedTrade(point, all, 'fill_trade') : point;
  return before.with('period', (db) => updatePeriodQuery(db, all).returning('id'));
}

/** The values of a fill's statistics (see `withFillStatistics`), as `recordClosedTrade` and `updatePeriodWithPoint` write them. */
export function fillStatisticsValues(
  periodId: number,
  period: { tally: PerformanceTally; drawdown: DrawdownTally },
  point: FillPoint,
  closedTrade?: { pair: { symbol: string; tally: PairTally }; entry: Omit<ClosedTradeEntry, 'trade_id'> },
): FillStatisticsValues {
  const values: Record<string, unknown> = { ...periodUpdate(periodId, period.tally, period.drawdown), ...point };
  if (closedTrade) {
    for (const [c, x] of Object.entries(pairStatsValues(periodId, closedTrade.pair.symbol, closedTrade.pair.tally))) {
      if (c !== 'period_id') values[`pair_${c}`] = x;
    }
    for (const [c, x] of Object.entries(closedTrade.entry)) values[`journal_${c}`] = x;
  }
  return values as FillStatisticsValues;
}

/**
 * A fill that closed a trade (docs/performance.md#definitions): its equity point, the pair's
 * statistics, the journal row, and the period's statistics and drawdown after it.
 */
export async function recordClosedTrade(
  trx: Q,
  periodId: number,
  period: { tally: PerformanceTally; drawdown: DrawdownTally },
  point: FillPoint,
  pair: { symbol: string; tally: PairTally; exists: boolean },
  entry: ClosedTradeEntry,
): Promise<void> {
  if (dbKindOf(trx) === 'postgres') {
    const values = fillStatisticsValues(periodId, period, point, { pair, entry });
    await closedTradeRow.execute(trx, { ...values, journal_trade_id: entry.trade_id });
    return;
  }
  await savePairStats(trx, periodId, pair.symbol, pair.tally, pair.exists);
  await insertEntry(trx, { ...entry, period_id: periodId });
  await updatePeriodWithPoint(trx, periodId, period.tally, period.drawdown, point);
}

export async function updateDrawdown(trx: Q, periodId: number, drawdown: DrawdownTally): Promise<void> {
  await trx
    .updateTable('performance_periods')
    .set({
      peak_equity_minor: drawdown.peak === null ? null : toCents(drawdown.peak),
      max_drawdown_pct: drawdown.maxDrawdownPct.toString(),
    })
    .where('id', '=', periodId)
    .execute();
}

export type PairStatsRow = Selectable<PerformancePairStatsTable>;

export function pairStats(q: Q, periodId: number): Promise<PairStatsRow[]> {
  return q.selectFrom('performance_pair_stats').selectAll().where('period_id', '=', periodId).orderBy('symbol').execute();
}

const pairStatsOfPeriod = prepare<{ periodId: number; symbol: string }, PairStatsRow>('performance.pairStatsOf', (q, value) =>
  q
    .selectFrom('performance_pair_stats')
    .selectAll()
    .where('period_id', '=', value('periodId'))
    .where('symbol', '=', value('symbol')),
);

export async function pairStatsOf(q: Q, periodId: number, symbol: string): Promise<PairStatsRow | undefined> {
  return (await pairStatsOfPeriod.execute(q, { periodId, symbol }))[0];
}

export function pairTallyFromRow(row: PairStatsRow | undefined): PairTally | undefined {
  if (!row) return undefined;
  return { trades: row.trades, wins: row.wins, losses: row.losses, netPnl: cents(row.net_pnl_minor) };
}

type PairStatsValues = { period_id: number; symbol: string; trades: number; wins: number; losses: number; net_pnl_minor: number };

const updatePairStats = prepare<PairStatsValues, never>('performance.updatePairStats', (q, value) =>
  q
    .updateTable('performance_pair_stats')
    .set({ trades: value('trades'), wins: value('wins'), losses: value('losses'), net_pnl_minor: value('net_pnl_minor') })
    .where('period_id', '=', value('period_id'))
    .where('symbol', '=', value('symbol')),
);

const insertPairStats = prepare<PairStatsValues, never>('performance.insertPairStats', (q, value) =>
  q.insertInto('performance_pair_stats').values({
    period_id: value('period_id'),
    symbol: value('symbol'),
    trades: value('trades'),
    wins: value('wins'),
    losses: value('losses'),
    net_pnl_minor: value('net_pnl_minor'),
  }),
);

function pairStatsValues(periodId: number, symbol: string, tally: PairTally): PairStatsValues {
  return {
    period_id: periodId,
    symbol,
    trades: tally.trades,
    wins: tally.wins,
    losses: tally.losses,
    net_pnl_minor: toCents(tally.netPnl),
  };
}

/** Inserts or replaces one pair's statistics. */
export async function savePairStats(trx: Q, periodId: number, symbol: string, tally: PairTally, exists: boolean): Promise<void> {
  await (exists ? updatePairStats : insertPairStats).execute(trx, pairStatsValues(periodId, symbol, tally));
}

/** Ends a period (a reset; docs/performance.md#the-period): the next one is inserted in the same transaction. */
export async function endPeriod(trx: Q, periodId: number, endedAt: number): Promise<void> {
  await trx.updateTable('performance_periods').set({ ended_at: endedAt }).where('id', '=', periodId).execute();
}
