import { type Kysely, sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { transactionObserver, writeTransaction } from '../db/transaction.js';

/** Runs a unit of work in a write transaction; see `createWriteBatcher`. */
export interface WriteBatcher {
  run<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Job {
  work: (trx: Kysely<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the embedded database. Every SQLite write waits for an fsync of the WAL
 * before it is answered (`db.durable()`, 0.3 ms on an idle disk, several on a busy one), and
 * SQLite has one writer, which would cap executions at a few hundred per second. Here the
 * executions that arrive while one batch is under way are run together: one
 * `BEGIN IMMEDIATE`, each execution in its own SAVEPOINT (an execution that throws is rolled
 * back alone, nothing half-applied), in arrival order (each sees the ones before it, so free
 * margin is never spent twice), then one COMMIT. The next batch starts at once while this
 * one's fsync runs on the thread pool, and only once it is on disk is each caller answered
 * (an acknowledged order is durable). If the COMMIT fails, every execution of the batch
 * fails and none is stored.
 *
 * PostgreSQL needs none of this: each execution is its own transaction with a row lock on
 * the account, and the server already groups concurrent commits into one WAL flush.
 */
export function createWriteBatcher(db: Db, options: { maxBatch?: number } = {}): WriteBatcher {
  if (db.kind !== 'sqlite') return { run: (work) => writeTransaction(db, work) };
  const maxBatch = options.maxBatch ?? 100;
  // One batch is one transaction in the metrics (docs/operations.md#metrics).
  const observe = transactionObserver(db);
  const queue: Job[] = [];
  let scheduled = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // After the I/O phase: requests that arrived during the last batch join this one.
    setImmediate(() => void flush());
  };

  /** Runs the batch in one transaction; the outcome of each job, or throws if the transaction failed. */
  async function commitBatch(batch: Job[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    // Alone in its transaction, a unit of work needs no savepoint (whose journal copies every
    // page it touches): if it throws, the whole transaction is rolled back instead.
    const alone = batch.length === 1;
    await db.kysely.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        for (const job of batch) {
          if (!alone) await sql`savepoint execution`.execute(conn);
          try {
            const value = await job.work(conn);
            if (!alone) await sql`release execution`.execute(conn);
            outcomes.push({ ok: true, value });
          } catch (error) {
            if (!alone) {
              await sql`rollback to execution`.execute(conn);
              await sql`release execution`.execute(conn);
            }
            outcomes.push({ ok: false, error });
          }
        }
        // The failure may have ended the transaction already (SQLITE_FULL, an I/O error): the
        // caller hears its own error either way.
        if (alone && !outcomes[0]!.ok) await sql`rollback`.execute(conn).catch(() => {});
        else await sql`commit`.execute(conn);
      } catch (err) {
        await sql`rollback`.execute(conn).catch(() => {});
        throw err;
      }
    });
    return outcomes;
  }

  async function flush(): Promise<void> {
    const batch = queue.splice(0, maxBatch);
    const started = performance.now();
    try {
      const outcomes = await commitBatch(batch).finally(() => {
        scheduled = false;
        if (queue.length > 0) schedule();
      });
      await db.durable();
      observe?.('commit', (performance.now() - started) / 1000);
      batch.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    } catch (err) {
      observe?.('rollback', (performance.now() - started) / 1000);
      for (const job of batch) job.reject(err);
    }
  }

  return {
    run: <T>(work: (trx: Kysely<Database>) => Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      }),
  };
}
