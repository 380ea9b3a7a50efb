import { Dec, tallyEquityPoint } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import { lockFreeAccounts } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import { writeTransaction } from '../../db/transaction.js';
import type { TradingDeps } from '../deps.js';
import { valueAccount } from '../math.js';
import * as performanceRepo from '../performance/repo.js';
import * as tradingRepo from '../repo.js';
import type { PositionState } from '../types.js';
import * as repo from './repo.js';
import { pointsToKeep } from './thin.js';

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** docs/performance.md#the-equity-curve: a point every 15 minutes while positions are open. */
export const SAMPLE_EVERY_MS = 15 * MINUTE_MS;
/** Points older than this are thinned to hourly buckets. */
export const THIN_AFTER_MS = 30 * DAY_MS;
export const THIN_BUCKET_MS = HOUR_MS;
/** Accounts sampled per transaction: their fills wait for its writes, one round trip per drawdown moved. */
const ACCOUNTS_PER_TRANSACTION = 100;

type Deps = Pick<TradingDeps, 'db' | 'clock' | 'pricing' | 'log'>;

/**
 * The equity curve's periodic work, run only by the price-source leader (it alone has every
 * price, and one writer keeps one point per account per sample): every 15 minutes one point for
 * each account with open positions, in transactions of 100 accounts, never per tick; then the
 * thinning of points that have just grown older than 30 days.
 */
export class EquitySampler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Points before this time are already thinned (this process's run; the first run does all). */
  private thinnedUntil = 0;

  constructor(
    private readonly deps: Deps,
    private readonly isLeader: () => boolean,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One round (the timer's): nothing unless this node leads and no round is running. */
  async runOnce(): Promise<void> {
    if (!this.isLeader() || this.running) return;
    this.running = (async () => {
      try {
        await this.sample();
        await this.thin();
      } catch (err) {
        this.deps.log.warn({ err }, 'equity curve: sampling failed');
      } finally {
        this.running = undefined;
      }
    })();
    await this.running;
  }

  /**
   * Writes one point for every account with open positions; returns how many. Each group of
   * accounts is locked first, in a transaction of its own: a fill holds its account's lock while
   * it reads and writes the period, so a sample and a fill see each other's balance, positions,
   * peak and drawdown. An account whose lock is held is skipped this round: a fill under way
   * writes its own point, and waiting for it would hold up the group's other accounts.
   */
  async sample(): Promise<number> {
    const { deps } = this;
    // Whom to sample, read without locks: only to know which accounts to lock.
    const holders = [...new Set((await tradingRepo.allOpenPositions(deps.db.kysely)).map((p) => Number(p.account_id)))].sort(
      (a, b) => a - b,
    );
    let written = 0;
    for (let i = 0; i < holders.length; i += ACCOUNTS_PER_TRANSACTION) {
      const group = holders.slice(i, i + ACCOUNTS_PER_TRANSACTION);
      written += await writeTransaction(deps.db, (trx) => sampleGroup(trx, deps, group, 'live'));
    }
    return written;
  }

  /**
   * Thins points older than 30 days to hourly buckets (thin.ts keeps each bucket's peak and
   * trough). Whole buckets only, so a later run never splits one.
   */
  async thin(): Promise<number> {
    const { deps } = this;
    const cutoff = Math.floor((deps.clock.now() - THIN_AFTER_MS) / THIN_BUCKET_MS) * THIN_BUCKET_MS;
    const from = Math.floor(this.thinnedUntil / THIN_BUCKET_MS) * THIN_BUCKET_MS;
    if (cutoff <= from) return 0;
    let removed = 0;
    for (const periodId of await repo.periodsWithPointsBefore(deps.db.kysely, cutoff)) {
      removed += await writeTransaction(deps.db, async (trx) => {
        const rows = await repo.pointsBetween(trx, periodId, from, cutoff);
        const keep = pointsToKeep(
          rows.map((r) => ({ id: Number(r.id), time: Number(r.time), equity: Dec.scaled(Number(r.equity_minor), 2) })),
          THIN_BUCKET_MS,
        );
        const drop = rows.map((r) => Number(r.id)).filter((id) => !keep.has(id));
        await repo.deletePoints(trx, drop);
        return drop.length;
      });
    }
    this.thinnedUntil = cutoff;
    return removed;
  }
}

/**
 * One point of an account on a market of its own (a replay session's practice account), at that
 * market's clock and prices: its session calls this every 15 minutes of session time while
 * positions are open (docs/replay.md#equity-points). `deps` are the account's market's.
 */
export async function samplePracticeAccount(deps: Deps, accountId: number): Promise<number> {
  return writeTransaction(deps.db, (trx) => sampleGroup(trx, deps, [accountId], 'own'));
}

/**
 * One group's points, read and written under the group's account locks, at the time they were
 * taken. `market` says whose: the live market's accounts (the leader's rounds), or accounts on a
 * market of their own, whose equity moves with their session's prices, never with live ones.
 */
async function sampleGroup(trx: Kysely<Database>, deps: Deps, group: number[], market: 'live' | 'own'): Promise<number> {
  const accounts = await lockFreeAccounts(trx, group);
  const now = deps.clock.now();
  const ids = accounts.map((a) => Number(a.id));
  const byAccount = new Map<number, PositionState[]>();
  for (const row of await tradingRepo.openPositionsOfAccounts(trx, ids)) {
    const state = tradingRepo.positionStateFromRow(row);
    byAccount.set(state.accountId, [...(byAccount.get(state.accountId) ?? []), state]);
  }
  const periods = await currentPeriods(trx, ids);
  const points: repo.NewEquityPoint[] = [];
  for (const account of accounts) {
    const id = Number(account.id);
    // An account without a period yet (opened before the statistics) gets it, from its
    // trades, at its next fill or call under its own lock; its points start then.
    if ((account.kind === 'practice') !== (market === 'own')) continue;
    const period = periods.get(id);
    const open = byAccount.get(id) ?? [];
    // Closed since the accounts were chosen: nothing is open to sample.
    if (!period || open.length === 0) continue;
    // Without a price an open position would count as 0: a made-up point, and a made-up drawdown.
    if (open.some((p) => !deps.pricing.quote(p.symbol))) continue;
    const balanceMinor = Number(account.balance_minor);
    const equity = valueAccount(balanceMinor, Number(account.leverage), open, deps.pricing).equity;
    const equityMinor = equity.toScaledNumber(2);
    points.push({
      account_id: id,
      period_id: Number(period.id),
      time: now,
      equity_minor: equityMinor,
      balance_minor: balanceMinor,
    });
    const drawdown = performanceRepo.drawdownFromRow(period);
    const next = tallyEquityPoint(drawdown, Dec.scaled(equityMinor, 2));
    if (next !== drawdown) await performanceRepo.updateDrawdown(trx, Number(period.id), next);
  }
  await repo.insertPoints(trx, points);
  return points.length;
}

/**
 * The current periods of the accounts. No row lock: every writer of a period holds its account's
 * lock, which the caller holds.
 */
async function currentPeriods(trx: Kysely<Database>, accountIds: readonly number[]) {
  const periods = new Map<number, performanceRepo.PeriodRow>();
  if (accountIds.length === 0) return periods;
  const rows = await trx
    .selectFrom('performance_periods')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('ended_at', 'is', null)
    .execute();
  for (const row of rows) periods.set(Number(row.account_id), row);
  return periods;
}
