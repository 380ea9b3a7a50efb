import type { Kysely, Selectable } from 'kysely';
import { prepare } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { EquityPointsTable } from './tables.js';

type Q = Kysely<Database>;
export type EquityPointRow = Selectable<EquityPointsTable>;
export type NewEquityPoint = Omit<EquityPointRow, 'id'>;

const insertOnePoint = prepare<NewEquityPoint, never>('equityCurve.insertPoint', (q, value) =>
  q.insertInto('equity_points').values({
    account_id: value('account_id'),
    period_id: value('period_id'),
    time: value('time'),
    equity_minor: value('equity_minor'),
    balance_minor: value('balance_minor'),
  }),
);

/** A fill's point (prepared: it is on the order path). */
export async function insertPoint(trx: Q, point: NewEquityPoint): Promise<void> {
  await insertOnePoint.execute(trx, point);
}

/** Inserts points in one statement (the leader's batch). */
export async function insertPoints(trx: Q, points: readonly NewEquityPoint[]): Promise<void> {
  if (points.length === 0) return;
  await trx
    .insertInto('equity_points')
    .values([...points])
    .execute();
}

/** The period's points from `from` (epoch ms, inclusive), oldest first. */
export function pointsSince(q: Q, periodId: number, from: number): Promise<EquityPointRow[]> {
  return q
    .selectFrom('equity_points')
    .selectAll()
    .where('period_id', '=', periodId)
    .where('time', '>=', from)
    .orderBy('time')
    .orderBy('id')
    .execute();
}

/** The period's points in [from, to), oldest first (a thinning window). */
export function pointsBetween(q: Q, periodId: number, from: number, to: number): Promise<EquityPointRow[]> {
  return q
    .selectFrom('equity_points')
    .selectAll()
    .where('period_id', '=', periodId)
    .where('time', '>=', from)
    .where('time', '<', to)
    .orderBy('time')
    .orderBy('id')
    .execute();
}

export async function deletePoints(trx: Q, ids: readonly number[]): Promise<void> {
  // Chunks keep the statement under both databases' bound-parameter limits.
  for (let i = 0; i < ids.length; i += 500) {
    await trx
      .deleteFrom('equity_points')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}

/** Periods with points older than `before` (the thinning's work list). */
export async function periodsWithPointsBefore(q: Q, before: number): Promise<number[]> {
  const rows = await q.selectFrom('equity_points').select('period_id').where('time', '<', before).distinct().execute();
  return rows.map((r) => r.period_id);
}
