import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Db, DbKind } from './database.js';
import type { Database } from './schema.js';

const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);

/** Told of every write transaction's outcome and duration in seconds (the app's metrics, docs/operations.md#metrics). */
export type TransactionObserver = (outcome: 'commit' | 'rollback', seconds: number) => void;

// Kept beside the database handle rather than in it: db/ knows nothing of metrics.
const observers = new WeakMap<Db, TransactionObserver>();

/** Reports every write transaction of `db` to `observer` (one per database handle). */
export function observeTransactions(db: Db, observer: TransactionObserver): void {
  observers.set(db, observer);
}

/** The observer of `db`'s transactions, for writers that run their own (trading/write-batcher.ts). */
export function transactionObserver(db: Db): TransactionObserver | undefined {
  return observers.get(db);
}

/**
 * Runs `fn` in a write transaction that serializes with every other writer of the rows it locks.
 * SQLite: `BEGIN IMMEDIATE` takes the write lock up front, so a read-then-write cannot be
 * overtaken (docs/trading-rules.md#concurrency); the single connection is held for the whole callback, and the
 * result is returned only once the commit is on disk (`db.durable()`).
 * PostgreSQL: a normal transaction (callers lock rows with `lockForUpdate`), retried on
 * serialization failures and deadlocks.
 */
export async function writeTransaction<T>(db: Db, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  const observer = observers.get(db);
  if (!observer) return runWriteTransaction(db, fn);
  const started = performance.now();
  try {
    const result = await runWriteTransaction(db, fn);
    observer('commit', (performance.now() - started) / 1000);
    return result;
  } catch (err) {
    observer('rollback', (performance.now() - started) / 1000);
    throw err;
  }
}

async function runWriteTransaction<T>(db: Db, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  if (db.kind === 'sqlite') {
    const result = await db.kysely.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        const result = await fn(conn);
        await sql`commit`.execute(conn);
        return result;
      } catch (err) {
        await sql`rollback`.execute(conn);
        throw err;
      }
    });
    // The connection is free again while the WAL is synced; the caller hears only after.
    await db.durable();
    return result;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.kysely.transaction().execute(fn);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt < 5 && code && RETRYABLE_PG_CODES.has(code)) continue;
      throw err;
    }
  }
}

/** Adds `FOR UPDATE` on PostgreSQL; SQLite has no row locks (BEGIN IMMEDIATE already serializes). */
export function lockForUpdate<DB, TB extends keyof DB, O>(
  kind: DbKind,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return kind === 'postgres' ? query.forUpdate() : query;
}
