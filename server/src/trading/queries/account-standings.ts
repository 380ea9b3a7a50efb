import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Q = Kysely<Database>;

const PENDING = sql.lit<'PENDING'>('PENDING');
/** Ids per statement: far below SQLite's and PostgreSQL's limits on bound values. */
const IDS_PER_QUERY = 500;

/**
 * What the academy's roster and leaderboard read of these accounts besides the live book
 * (docs/academy.md#the-roster): each one's current period with its running statistics, the
 * time of its last trade, the equity at `dayStart` (the last equity point of the
 * period before it), and the number of its pending orders. A few statements per 500 accounts,
 * each correlated part an index seek, so the cost follows the accounts, not their trades. An
 * account without a current period has never filled an order since the performance module
 * (every fill makes one), so it has no last trade to show either.
 */
export async function accountStandings(q: Q, accountIds: readonly number[], dayStart: number) {
  const ids = [...new Set(accountIds)].sort((a, b) => a - b);
  const periods = new Map<number, StandingPeriodRow>();
  const pending = new Map<number, number>();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const chunk = ids.slice(i, i + IDS_PER_QUERY);
    for (const p of await currentPeriods(q, chunk, dayStart)) periods.set(Number(p.account_id), p);
    const counts = await q
      .selectFrom('orders')
      .select(['account_id', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('account_id', 'in', chunk)
      .where('status', '=', PENDING)
      .groupBy('account_id')
      .execute();
    for (const c of counts) pending.set(Number(c.account_id), Number(c.n));
  }
  return { periods, pending };
}

function currentPeriods(q: Q, accountIds: number[], dayStart: number) {
  return q
    .selectFrom('performance_periods as p')
    .selectAll('p')
    .select([
      (eb) =>
        eb
          .selectFrom('trades as t')
          .select('t.executed_at')
          .whereRef('t.account_id', '=', 'p.account_id')
          .orderBy('t.id', 'desc')
          .limit(1)
          .as('last_trade_at'),
      (eb) =>
        eb
          .selectFrom('equity_points as e')
          .select('e.equity_minor')
          .whereRef('e.period_id', '=', 'p.id')
          .where('e.time', '<', dayStart)
          .orderBy('e.time', 'desc')
          .orderBy('e.id', 'desc')
          .limit(1)
          .as('day_start_equity_minor'),
    ])
    .where('p.account_id', 'in', accountIds)
    .where('p.ended_at', 'is', null)
    .execute();
}

export type StandingPeriodRow = Awaited<ReturnType<typeof currentPeriods>>[number];
