import {
  Dec,
  EMPTY_PAIR_TALLY,
  EMPTY_PERFORMANCE_TALLY,
  type PairTally,
  tallyClosedTrade,
  tallyPairTrade,
} from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { insertEntries, type NewJournalEntry } from '../journal/repo.js';
import * as repo from './repo.js';

type Q = Kysely<Database>;

/** The account fields a period needs. */
export interface PeriodAccount {
  id: number;
  created_at: number;
  balance_minor: number;
}

/**
 * The account's current period, created on first need (docs/performance.md#the-period): an
 * account opened before this module, or one that has not traded yet, gets the period that started
 * at its creation, with the statistics and journal of the trades it already made, replayed
 * through the same fold the fills use. Runs inside a write transaction holding the account's lock,
 * so two callers never both create it. `beforeTradeId` leaves out the fill being recorded.
 */
export async function ensurePeriod(trx: Q, account: PeriodAccount, beforeTradeId?: number): Promise<repo.PeriodRow> {
  const existing = await repo.currentPeriod(trx, account.id);
  if (existing) return existing;
  let query = trx
    .selectFrom('trades')
    .select(['id', 'symbol', 'side', 'quantity_centilots', 'realized_pnl_minor', 'executed_at'])
    .where('account_id', '=', account.id)
    .orderBy('id');
  if (beforeTradeId !== undefined) query = query.where('id', '<', beforeTradeId);
  const trades = await query.execute();

  // Netting per pair: an execution against the position's side realizes P&L (a closed trade).
  const netCentilots = new Map<string, number>();
  let tally = EMPTY_PERFORMANCE_TALLY;
  const pairs = new Map<string, PairTally>();
  const entries: NewJournalEntry[] = [];
  let realizedMinor = 0;
  for (const t of trades) {
    const before = netCentilots.get(t.symbol) ?? 0;
    const signed = (t.side === 'BUY' ? 1 : -1) * Number(t.quantity_centilots);
    netCentilots.set(t.symbol, before + signed);
    if (before === 0 || Math.sign(before) === Math.sign(signed)) continue;
    const pnl = Dec.scaled(Number(t.realized_pnl_minor), 2);
    realizedMinor += Number(t.realized_pnl_minor);
    tally = tallyClosedTrade(tally, pnl);
    pairs.set(t.symbol, tallyPairTrade(pairs.get(t.symbol) ?? EMPTY_PAIR_TALLY, pnl));
    entries.push({
      trade_id: Number(t.id),
      period_id: 0,
      account_id: account.id,
      symbol: t.symbol,
      realized_pnl_minor: Number(t.realized_pnl_minor),
      executed_at: Number(t.executed_at),
    });
  }
  const period = await repo.insertPeriod(trx, {
    accountId: account.id,
    startedAt: Number(account.created_at),
    startBalanceMinor: Number(account.balance_minor) - realizedMinor,
    tally,
  });
  const periodId = Number(period.id);
  for (const [symbol, pair] of pairs) await repo.savePairStats(trx, periodId, symbol, pair, false);
  await insertEntries(
    trx,
    entries.map((e) => ({ ...e, period_id: periodId })),
  );
  return period;
}
