import { Dec, tallyEquityPoint } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import { accountsByIds } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import { lockForUpdate, writeTransaction } from '../../db/transaction.js';
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

type Deps = Pick<TradingDeps, 'db' | 'clock' | 'pricing' | 'log'>;

/**
 * The equity curve's periodic work, run only by the price-source leader (it alone has every
 * price, and one writer keeps one point per account per sample): every 15 minutes one point for
 * each account with open positions, all written in one transaction, never per tick; then the
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

  /** Writes one point for every account with open positions; returns how many. */
  async sample(): Promise<number> {
    const { deps } = this;
    const now = deps.clock.now();
    return writeTransaction(deps.db, async (trx) => {
      const positions = await tradingRepo.allOpenPositions(trx);
      if (positions.length === 0) return 0;
      const byAccount = new Map<number, PositionState[]>();
      for (const row of positions) {
        const state = tradingRepo.positionStateFromRow(row);
        byAccount.set(state.accountId, [...(byAccount.get(state.accountId) ?? []), state]);
      }
      const accounts = await accountsByIds(trx, [...byAccount.keys()]);
      const periods = await lockPeriods(
        trx,
        deps.db.kind,
        accounts.map((a) => Number(a.id)),
      );
      const points: repo.NewEquityPoint[] = [];
      for (const account of accounts) {
        const id = Number(account.id);
        // An account without a period yet (opened before the statistics) gets it, from its
        // trades, at its next fill or call under its own lock; its points start then.
        const period = periods.get(id);
        if (!period) continue;
        const open = byAccount.get(id) ?? [];
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
      for (let i = 0; i < points.length; i += 500) await repo.insertPoints(trx, points.slice(i, i + 500));
      return points.length;
    });
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

/** The current periods of the accounts, locked in id order (a fill updates the same rows). */
async function lockPeriods(trx: Kysely<Database>, kind: 'sqlite' | 'postgres', accountIds: readonly number[]) {
  const periods = new Map<number, performanceRepo.PeriodRow>();
  for (let i = 0; i < accountIds.length; i += 500) {
    const rows = await lockForUpdate(
      kind,
      trx
        .selectFrom('performance_periods')
        .selectAll()
        .where('account_id', 'in', accountIds.slice(i, i + 500))
        .where('ended_at', 'is', null)
        .orderBy('id'),
    ).execute();
    for (const row of rows) periods.set(Number(row.account_id), row);
  }
  return periods;
}
