import type { Insertable } from 'kysely';
import type { Db } from '../db/database.js';
import { prepare } from '../db/prepared.js';
import { type IdempotencyRow, preparedInsert, type Q } from './rows.js';
import type { IdempotencyKeysTable } from './tables.js';

/**
 * The trading module's repository: orders and trades (orders-repo.ts), positions and their
 * protection (positions-repo.ts), Idempotency-Keys and snapshots (here); a fill's writes are
 * fill-repo.ts. The queries of the order path are prepared (built and compiled once, see
 * db/prepared.ts). Trading accounts and the ledger belong to the accounts module: read and lock
 * them through `accounts/repo.ts`, never here.
 */
export * from './orders-repo.js';
export * from './positions-repo.js';
export type { IdempotencyRow, NewOrderRow, OrderRow, PositionRow, Q, TradeRow } from './rows.js';

/**
 * Runs reads on one consistent snapshot, so a dashboard never shows a balance from after an
 * execution beside positions from before it. SQLite: a deferred transaction (WAL snapshot);
 * PostgreSQL: REPEATABLE READ, read only.
 */
export async function readSnapshot<T>(db: Db, fn: (q: Q) => Promise<T>): Promise<T> {
  const tx = db.kysely.transaction();
  return db.kind === 'postgres' ? tx.setIsolationLevel('repeatable read').setAccessMode('read only').execute(fn) : tx.execute(fn);
}

// ------------------------------------------------------------------ Idempotency-Keys (docs/trading-rules.md#idempotency)

const idempotencyKeyInsert = preparedInsert('trading.insertIdempotencyKey', 'idempotency_keys', [
  'user_id',
  'idempotency_key',
  'request_hash',
  'response_status',
  'response_body',
  'created_at',
]);

const idempotencyKeyOfUser = prepare<{ userId: number; key: string }, IdempotencyRow>(
  'trading.idempotencyKeyOfUser',
  (q, value) =>
    q
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('user_id', '=', value('userId'))
      .where('idempotency_key', '=', value('key')),
);

export async function findIdempotencyKey(q: Q, userId: number, key: string): Promise<IdempotencyRow | undefined> {
  return (await idempotencyKeyOfUser.execute(q, { userId, key }))[0];
}

export async function insertIdempotencyKey(trx: Q, row: Insertable<IdempotencyKeysTable>): Promise<void> {
  await idempotencyKeyInsert.execute(trx, row);
}

export async function deleteIdempotencyKeysBefore(q: Q, before: number): Promise<number> {
  const r = await q.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
