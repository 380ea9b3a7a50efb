import { Dec, type EquityCurveDto, type EquityCurveRange } from '@pipdesk/contract';
import type { TradingAccountRow } from '../../accounts/index.js';
import type { TradingDeps } from '../deps.js';
import { accountOfUser, currentPeriodOf } from '../performance/service.js';
import type { AccountId, UserId } from '../types.js';
import * as repo from './repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const RANGE_MS: Record<EquityCurveRange, number | null> = { '1w': 7 * DAY_MS, '1m': 30 * DAY_MS, all: null };

type Deps = Pick<TradingDeps, 'db' | 'clock'>;

/** The current period's equity curve over the range, oldest first (docs/performance.md#the-equity-curve). */
export async function equityCurveOfAccount(
  deps: Deps,
  account: TradingAccountRow,
  range: EquityCurveRange,
): Promise<EquityCurveDto> {
  const period = await currentPeriodOf(deps, account);
  const span = RANGE_MS[range];
  const from = span === null ? Number(period.started_at) : Math.max(Number(period.started_at), deps.clock.now() - span);
  const rows = await repo.pointsSince(deps.db.kysely, Number(period.id), from);
  return rows.map((r) => ({
    time: new Date(Number(r.time)).toISOString(),
    equity: Dec.scaled(Number(r.equity_minor), 2).toNumber(2),
    balance: Dec.scaled(Number(r.balance_minor), 2).toNumber(2),
  }));
}

export async function equityCurveOfUser(
  deps: Deps,
  userId: UserId,
  range: EquityCurveRange,
  accountId?: AccountId,
): Promise<EquityCurveDto> {
  return equityCurveOfAccount(deps, await accountOfUser(deps, userId, accountId), range);
}
