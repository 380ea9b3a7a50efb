import {
  Dec,
  type DrawdownTally,
  EMPTY_PAIR_TALLY,
  type PairTally,
  type PerformanceTally,
  tallyClosedTrade,
  tallyEquityPoint,
  tallyPairTrade,
} from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { FillKind } from '../math.js';
import { ensurePeriod, type PeriodAccount } from './period.js';
import * as repo from './repo.js';

/** What the statistics need to know about one execution. */
export interface RecordedFill {
  account: PeriodAccount;
  tradeId: number;
  symbol: string;
  kind: FillKind;
  realizedMinor: number;
  executedAt: number;
  /** The balance after the fill, in cents. */
  balanceMinor: number;
  /** The account's equity right after the fill, at the fill's prices. */
  equity: Dec;
  /** The rows read ahead in the fill's transaction, after the account lock (see `PrefetchedStatistics`). */
  read?: PrefetchedStatistics;
}

/** What the statistics need of a fill before its trade is written (the trade's id comes from the write). */
export type FillStatistics = Omit<RecordedFill, 'tradeId'>;

/**
 * The account's current period and the fill's pair statistics, read ahead with the order's other
 * reads (trading/order-reads.ts). undefined: not read, so read here; null: there is none. The
 * pair's row is used only with a period read ahead: a period created here replays the trades
 * before the fill and may write that row itself.
 */
export interface PrefetchedStatistics {
  period?: repo.PeriodRow | null | undefined;
  pairStats?: repo.PairStatsRow | null | undefined;
}

/** Reducing, closing or flipping realizes P&L: a closed trade (docs/performance.md#definitions). */
export const isClosingFill = (kind: FillKind) => kind === 'reduce' || kind === 'close' || kind === 'flip';

/** What one execution writes to the statistics, computed from its period (and pair row). */
interface StatisticsWrite {
  periodId: number;
  period: { tally: PerformanceTally; drawdown: DrawdownTally };
  point: { account_id: number; time: number; equity_minor: number; balance_minor: number };
  /** A closed trade's pair statistics and journal row (but for the trade's id). */
  closedTrade?: {
    pair: { symbol: string; tally: PairTally; exists: boolean };
    entry: { account_id: number; symbol: string; realized_pnl_minor: number; executed_at: number };
  };
}

function statisticsWrite(fill: FillStatistics, period: repo.PeriodRow, pairRow: repo.PairStatsRow | undefined): StatisticsWrite {
  const equityMinor = fill.equity.toScaledNumber(2);
  const drawdown = tallyEquityPoint(repo.drawdownFromRow(period), Dec.scaled(equityMinor, 2));
  const write: StatisticsWrite = {
    periodId: period.id,
    period: { tally: repo.tallyFromRow(period), drawdown },
    point: { account_id: fill.account.id, time: fill.executedAt, equity_minor: equityMinor, balance_minor: fill.balanceMinor },
  };
  if (!isClosingFill(fill.kind)) return write;
  const pnl = Dec.scaled(fill.realizedMinor, 2);
  write.period.tally = tallyClosedTrade(write.period.tally, pnl);
  write.closedTrade = {
    pair: {
      symbol: fill.symbol,
      tally: tallyPairTrade(repo.pairTallyFromRow(pairRow) ?? EMPTY_PAIR_TALLY, pnl),
      exists: pairRow !== undefined,
    },
    entry: {
      account_id: fill.account.id,
      symbol: fill.symbol,
      realized_pnl_minor: fill.realizedMinor,
      executed_at: fill.executedAt,
    },
  };
  return write;
}

/**
 * Records one execution in the fill's own transaction (docs/performance.md): a closed trade
 * updates the period's statistics and enters the journal; every execution writes an equity point
 * and moves the max drawdown. All or nothing with the fill.
 */
export async function recordFillStatistics(trx: Kysely<Database>, fill: RecordedFill): Promise<void> {
  const readPeriod = fill.read?.period;
  const period = readPeriod ?? (await ensurePeriod(trx, fill.account, fill.tradeId));
  const readPair = readPeriod ? fill.read?.pairStats : undefined;
  const pairRow = !isClosingFill(fill.kind)
    ? undefined
    : readPair === undefined
      ? await repo.pairStatsOf(trx, period.id, fill.symbol)
      : (readPair ?? undefined);
  const write = statisticsWrite(fill, period, pairRow);
  if (!write.closedTrade) {
    await repo.updatePeriodWithPoint(trx, write.periodId, write.period.tally, write.period.drawdown, write.point);
    return;
  }
  await repo.recordClosedTrade(trx, write.periodId, write.period, write.point, write.closedTrade.pair, {
    ...write.closedTrade.entry,
    trade_id: fill.tradeId,
  });
}

/**
 * The execution's statistics as values of the fill's own statement (trading/fill-statement.ts),
 * when everything they need was read ahead with the order's reads: the period, and for a closed
 * trade the pair's row. undefined otherwise (the period is yet to be created, or it was not
 * read ahead): then `recordFillStatistics` writes them after the fill.
 */
export function statisticsOfFill(fill: FillStatistics): { values: repo.FillStatisticsValues; closedTrade: boolean } | undefined {
  const period = fill.read?.period;
  if (!period) return undefined;
  const pairStats = fill.read?.pairStats;
  if (isClosingFill(fill.kind) && pairStats === undefined) return undefined;
  const write = statisticsWrite(fill, period, pairStats ?? undefined);
  return {
    values: repo.fillStatisticsValues(write.periodId, write.period, write.point, write.closedTrade),
    closedTrade: write.closedTrade !== undefined,
  };
}
