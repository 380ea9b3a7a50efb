import { type Kysely, sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { type TransactionObserver, transactionObserver, writeTransaction } from '../db/transaction.js';

/** Runs a unit of work in a write transaction; see `createWriteBatcher`. */
export interface WriteBatcher {
  /**
   * `options.user`: the user whose trading account the work locks first (and the only account
   * it locks). On PostgreSQL only such work joins a shared transaction; work without it runs
   * in its own.
   */
  run<T>(work: (trx: Kysely<Database>) => Promise<T>, options?: { user?: number }): Promise<T>;
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
 * `BEGIN IMMEDIATE`, the executions in arrival order (each sees the ones before it, so free
 * margin is never spent twice), then one COMMIT; an execution that throws is rolled back alone,
 * nothing half-applied (`withSavepointsOnFailure`). The next batch starts at once while this
 * one's fsync runs on the thread pool, and only once it is on disk is each caller answered
 * (an acknowledged order is durable). If the COMMIT fails, every execution of the batch
 * fails and none is stored.
 *
 * PostgreSQL gets its own group commit (`createPostgresBatcher`, docs/order-engine.md#group-commit).
 */
export function createWriteBatcher(db: Db, options: { maxBatch?: number; lanes?: number } = {}): WriteBatcher {
  if (db.kind !== 'sqlite') return createPostgresBatcher(db, options);
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

  /** Runs the batch (see `withSavepointsOnFailure`); the outcome of each job, or throws if a transaction failed. */
  const commitBatch = (batch: Job[], clock: BatchClock) => withSavepointsOnFailure(batch, runTransaction, observe, clock);

  /** One transaction of the batch: each unit in its own SAVEPOINT when `isolated`, else up to the first that throws. */
  async function runTransaction(batch: Job[], isolated: boolean): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    await db.kysely.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        for (const job of batch) {
          if (isolated) await sql`savepoint execution`.execute(conn);
          try {
            const value = await job.work(conn);
            if (isolated) await sql`release execution`.execute(conn);
            outcomes.push({ ok: true, value });
          } catch (error) {
            outcomes.push({ ok: false, error });
            if (!isolated) break;
            await sql`rollback to execution`.execute(conn);
            await sql`release execution`.execute(conn);
          }
        }
        // The failure may have ended the transaction already (SQLITE_FULL, an I/O error): the
        // caller hears its own error either way.
        if (!isolated && outcomes.some((o) => !o.ok)) await sql`rollback`.execute(conn).catch(() => {});
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
    const clock = { started: performance.now() };
    try {
      const { outcomes, committed } = await commitBatch(batch, clock).finally(() => {
        scheduled = false;
        if (queue.length > 0) schedule();
      });
      await db.durable();
      observe?.(committed ? 'commit' : 'rollback', (performance.now() - clock.started) / 1000);
      batch.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    } catch (err) {
      observe?.('rollback', (performance.now() - clock.started) / 1000);
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

/**
 * A batch runs first without savepoints: a savepoint is a statement of its own for every unit
 * (on PostgreSQL a round trip, on SQLite a journal copy of every page the unit touches), and a
 * unit rarely throws (a rejected order is stored, not thrown). If one does, that transaction is
 * rolled back whole and the batch runs again with each unit in its own savepoint, so the one that
 * fails is rolled back alone and the others are committed. Nobody has been answered before the
 * COMMIT, and a unit of work may run more than once (as a retried one does), so the second run
 * is invisible but for its time. A batch of one never needs the second run: its outcome stands.
 * Each run is one transaction in the metrics: the first, rolled back, is observed here.
 */
async function withSavepointsOnFailure<J>(
  batch: J[],
  runTransaction: (batch: J[], isolated: boolean) => Promise<Outcome[]>,
  observe: TransactionObserver | undefined,
  clock: BatchClock,
): Promise<{ outcomes: Outcome[]; committed: boolean }> {
  const outcomes = await runTransaction(batch, false);
  const failed = outcomes.some((o) => !o.ok);
  if (!failed || batch.length === 1) return { outcomes, committed: !failed };
  // The first run is a transaction of its own in the metrics, rolled back; the caller times the
  // second from its own BEGIN, whether it commits or throws.
  observe?.('rollback', (performance.now() - clock.started) / 1000);
  clock.started = performance.now();
  return { outcomes: await runTransaction(batch, true), committed: true };
}

/** When the batch's current transaction began (`performance.now()`), for its metric. */
interface BatchClock {
  started: number;
}

/** Serialization failures and deadlocks: the work is tried again, in a later transaction. */
const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 5;

interface KeyedJob extends Job {
  user: number;
  attempts: number;
}

/**
 * Group commit on PostgreSQL (docs/order-engine.md#group-commit). An order there was ten round
 * trips and its own COMMIT; the connection sat idle most of the time. Here the orders that are
 * waiting when a connection (a lane) comes free share one transaction, as on SQLite: `BEGIN`,
 * the orders, then one COMMIT (one that fails is rolled back alone: `withSavepointsOnFailure`),
 * and nobody is answered before that COMMIT has returned (PostgreSQL is durable at COMMIT). Up to `lanes`
 * batches run at once, on their own connections.
 *
 * Locks: in this process a user's work is in at most one batch at a time (a second order waits
 * in the queue until the batch holding the first has committed), so two lanes never wait on
 * each other. Within a batch the work runs in the order of its users' ids (one user's orders
 * stay in arrival order), so every batch of every node takes account locks in the same order
 * and no two batches can deadlock; if one still fails to serialize (another writer, another
 * node), that unit alone is rolled back to its savepoint and queued again.
 *
 * Work without a `user` (it may lock anything) runs as its own `writeTransaction`, as before.
 */
function createPostgresBatcher(db: Db, options: { maxBatch?: number; lanes?: number }): WriteBatcher {
  // Each savepoint that writes takes a subtransaction id; past 64 in one transaction PostgreSQL's
  // per-backend cache overflows and every other backend's visibility checks slow down.
  const maxBatch = Math.min(options.maxBatch ?? 32, 60);
  const lanes = options.lanes ?? 4;
  const observe = transactionObserver(db);
  const queue: KeyedJob[] = [];
  /** Users with work in a running batch. */
  const busy = new Set<number>();
  let running = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (running < lanes) {
        const batch = takeBatch();
        if (batch.length === 0) break;
        running += 1;
        void runBatch(batch).finally(() => {
          running -= 1;
          for (const job of batch) busy.delete(job.user);
          if (queue.length > 0) schedule();
        });
      }
    });
  };

  /** The waiting work of users not in a running batch, up to `maxBatch`, sorted by user (stable). */
  function takeBatch(): KeyedJob[] {
    const batch: KeyedJob[] = [];
    const rest: KeyedJob[] = [];
    for (const job of queue) {
      if (batch.length < maxBatch && !busy.has(job.user)) batch.push(job);
      else rest.push(job);
    }
    if (batch.length === 0) return batch;
    // A user skipped for `busy` has all their work skipped, so their order is kept.
    queue.splice(0, queue.length, ...rest);
    for (const job of batch) busy.add(job.user);
    return batch.sort((a, b) => a.user - b.user);
  }

  /** Runs the batch (see `withSavepointsOnFailure`); the outcome of each job, or throws if a transaction failed. */
  const commitBatch = (batch: KeyedJob[], clock: BatchClock) => withSavepointsOnFailure(batch, runTransaction, observe, clock);

  /** One transaction of the batch: each unit in its own SAVEPOINT when `isolated`, else up to the first that throws. */
  async function runTransaction(batch: KeyedJob[], isolated: boolean): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    await db.kysely.connection().execute(async (conn) => {
      // Statements without parameters go in one round trip (the simple protocol allows several).
      await sql.raw(isolated ? 'begin; savepoint execution' : 'begin').execute(conn);
      try {
        for (const [i, job] of batch.entries()) {
          try {
            const value = await job.work(conn);
            outcomes.push({ ok: true, value });
            if (isolated && i < batch.length - 1) await sql.raw('release execution; savepoint execution').execute(conn);
          } catch (error) {
            outcomes.push({ ok: false, error });
            if (!isolated) break;
            // ROLLBACK TO keeps the savepoint, ready for the next unit of work.
            await sql.raw('rollback to execution').execute(conn);
          }
        }
        if (!isolated && outcomes.some((o) => !o.ok)) await sql`rollback`.execute(conn);
        else await sql`commit`.execute(conn);
      } catch (err) {
        await sql`rollback`.execute(conn).catch(() => {});
        throw err;
      }
    });
    return outcomes;
  }

  async function runBatch(batch: KeyedJob[]): Promise<void> {
    const clock = { started: performance.now() };
    let outcomes: Outcome[];
    try {
      const ran = await commitBatch(batch, clock);
      outcomes = ran.outcomes;
      await db.durable();
      observe?.(ran.committed ? 'commit' : 'rollback', (performance.now() - clock.started) / 1000);
    } catch (err) {
      observe?.('rollback', (performance.now() - clock.started) / 1000);
      for (const job of batch) job.reject(err);
      return;
    }
    const retries: KeyedJob[] = [];
    batch.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else if (isRetryable(outcome.error) && job.attempts < MAX_ATTEMPTS) retries.push({ ...job, attempts: job.attempts + 1 });
      else job.reject(outcome.error);
    });
    // Ahead of the user's later work, which is still waiting behind `busy`.
    if (retries.length > 0) queue.unshift(...retries);
  }

  return {
    run: <T>(work: (trx: Kysely<Database>) => Promise<T>, runOptions?: { user?: number }) => {
      const user = runOptions?.user;
      if (user === undefined) return writeTransaction(db, work);
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject, user, attempts: 1 });
        schedule();
      });
    },
  };
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code !== undefined && RETRYABLE_PG_CODES.has(code);
}
