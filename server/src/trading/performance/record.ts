import { Dec, EMPTY_PAIR_TALLY, tallyClosedTrade, tallyEquityPoint, tallyPairTrade } from '@pipdesk/contract';
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

/**
 * Records one execution in the fill's own transaction (docs/performance.md): a closed trade
 * updates the period's statistics and enters the journal; every execution writes an equity point
 * and moves the max drawdown. All or nothing with the fill.
 */
export async function recordFill(trx: Kysely<Database>, fill: RecordedFill): Promise<void> {
  const readPeriod = fill.read?.period;
  const period = readPeriod ?? (await ensurePeriod(trx, fill.account, fill.tradeId));
  const periodId = Number(period.id);
  const equityMinor = fill.equity.toScaledNumber(2);
  const drawdown = tallyEquityPoint(repo.drawdownFromRow(period), Dec.scaled(equityMinor, 2));
  const point = {
    account_id: fill.account.id,
    time: fill.executedAt,
    equity_minor: equityMinor,
    balance_minor: fill.balanceMinor,
  };
  if (!isClosingFill(fill.kind)) {
    await repo.updatePeriodWithPoint(trx, periodId, repo.tallyFromRow(period), drawdown, point);
    return;
  }
  const pnl = Dec.scaled(fill.realizedMinor, 2);
  const readPair = readPeriod ? fill.read?.pairStats : undefined;
  const pairRow = readPair === undefined ? await repo.pairStatsOf(trx, periodId, fill.symbol) : (readPair ?? undefined);
  await repo.recordClosedTrade(
    trx,
    periodId,
    { tally: tallyClosedTrade(repo.tallyFromRow(period), pnl), drawdown },
    point,
    {
      symbol: fill.symbol,
      tally: tallyPairTrade(repo.pairTallyFromRow(pairRow) ?? EMPTY_PAIR_TALLY, pnl),
      exists: pairRow !== undefined,
    },
    {
      trade_id: fill.tradeId,
      account_id: fill.account.id,
      symbol: fill.symbol,
      realized_pnl_minor: fill.realizedMinor,
      executed_at: fill.executedAt,
    },
  );
}
