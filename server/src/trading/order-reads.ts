import { type Kysely, sql } from 'kysely';
import { dbKindOf, prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { PairStatsRow, PeriodRow } from './performance/repo.js';
import type { IdempotencyRow, PositionRow } from './repo.js';
import * as repo from './repo.js';

type Q = Kysely<Database>;

/**
 * What a market order reads once its account is locked. The fields after `key` are read ahead
 * on PostgreSQL only; undefined means "not read yet", and the step that needs them reads them.
 */
export interface OrderReads {
  /** The Idempotency-Key's stored row, when the order carries a key and it was used before. */
  key: IdempotencyRow | undefined;
  /** The account's open positions. */
  positions?: PositionRow[];
  /** The account's current period; null when it has none yet (its first fill creates it). */
  period?: PeriodRow | null;
  /** The current period's statistics of the order's pair; null when the pair has none yet. */
  pairStats?: PairStatsRow | null;
}

type ReadRow =
  | { kind: 'position'; row: PositionRow }
  | { kind: 'key'; row: IdempotencyRow }
  | { kind: 'period'; row: PeriodRow }
  | { kind: 'pair_stats'; row: PairStatsRow };

/**
 * The four reads in one statement, each row as JSON beside its kind (docs/order-engine.md#round-trips).
 * It runs after the account lock's own statement, so its snapshot sees every transaction that held
 * the lock before. `key` null (no key) matches nothing.
 */
const orderReads = prepare<{ accountId: number; userId: number; key: string | null; symbol: string }, ReadRow>(
  'trading.orderReads',
  (q, value) => {
    const kind = (name: ReadRow['kind']) => sql.lit(name).as('kind');
    const asJson = (alias: string) => sql<never>`to_jsonb(${sql.ref(alias)})`.as('row');
    return q
      .selectFrom('positions as p')
      .select([kind('position'), asJson('p')])
      .where('p.account_id', '=', value('accountId'))
      .where('p.status', '=', sql.lit('OPEN'))
      .unionAll((db) =>
        db
          .selectFrom('idempotency_keys as k')
          .select([kind('key'), asJson('k')])
          .where('k.user_id', '=', value('userId'))
          .where('k.idempotency_key', '=', value('key')),
      )
      .unionAll((db) =>
        db
          .selectFrom('performance_periods as r')
          .select([kind('period'), asJson('r')])
          .where('r.account_id', '=', value('accountId'))
          .where('r.ended_at', 'is', null),
      )
      .unionAll((db) =>
        db
          .selectFrom('performance_pair_stats as s')
          .innerJoin('performance_periods as sr', 'sr.id', 's.period_id')
          .select([kind('pair_stats'), asJson('s')])
          .where('sr.account_id', '=', value('accountId'))
          .where('sr.ended_at', 'is', null)
          .where('s.symbol', '=', value('symbol')),
      ) as never;
  },
);

/**
 * A placement's reads after the account lock: the Idempotency-Key's row and, for a market order
 * on PostgreSQL, in the same round trip, the open positions, the current period and the pair's
 * statistics. On SQLite, where a statement is a function call, and for other placements, only
 * the key is read here and the rest when needed, as before.
 */
export async function readAfterLock(
  trx: Q,
  order: { accountId: number; userId: number; key: string | undefined; marketOrderSymbol?: string | undefined },
): Promise<OrderReads> {
  const { marketOrderSymbol: symbol, ...rest } = order;
  if (symbol === undefined || dbKindOf(trx) !== 'postgres') {
    return { key: order.key === undefined ? undefined : await repo.findIdempotencyKey(trx, order.userId, order.key) };
  }
  const rows = await orderReads.execute(trx, { ...rest, key: order.key ?? null, symbol });
  const reads: OrderReads = { key: undefined, positions: [], period: null, pairStats: null };
  for (const r of rows) {
    if (r.kind === 'position') reads.positions!.push(r.row);
    else if (r.kind === 'key') reads.key = r.row;
    else if (r.kind === 'period') reads.period = r.row;
    else reads.pairStats = r.row;
  }
  return reads;
}
