import { type KyselyPlugin, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.js';
import { observeTransactions } from '../db/transaction.js';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { createWriteBatcher, type WriteBatcher } from './write-batcher.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

const row = (key: string, user = 1) => ({
  user_id: user,
  idempotency_key: key,
  request_hash: 'h',
  response_status: 201,
  response_body: '{}',
  created_at: 0,
});

async function storedKeys(): Promise<string[]> {
  const rows = await t.ctx.db.kysely.selectFrom('idempotency_keys').select('idempotency_key').orderBy('id').execute();
  return rows.map((r) => r.idempotency_key);
}

/**
 * `db` with every statement of the batcher seen by `onResult` (its SQL, once the database has
 * answered it) before the batcher itself sees the answer; `onResult` may hold it back.
 */
function observed(db: Db, onResult: (statement: string) => Promise<void> | void): Db {
  const statements = new WeakMap<object, string>();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      const node = args.node as { kind: string; sqlFragments?: readonly string[] };
      statements.set(
        args.queryId,
        node.kind === 'RawNode' ? (node.sqlFragments ?? []).join('?').trim().toLowerCase() : node.kind,
      );
      return args.node;
    },
    transformResult: async (args) => {
      await onResult(statements.get(args.queryId) ?? '');
      return args.result;
    },
  };
  return { ...db, kysely: db.kysely.withPlugin(plugin) };
}

/** The options that let a unit of work share a transaction on both databases: the user it locks. */
const asUser = (i: number) => ({ user: 1000 + i });

/**
 * Queues `size` units of work at once (so they share a batch), unit i storing key `${name}${i}`
 * for user 1000 + i and answering i; unit `failing` throws after its insert. `onRun` hears
 * each key every time its unit runs.
 */
function queueTogether(
  writes: WriteBatcher,
  name: string,
  size: number,
  failing?: number,
  onRun?: (key: string) => void,
): Promise<PromiseSettledResult<number>[]> {
  return Promise.allSettled(
    Array.from({ length: size }, (_, i) =>
      writes.run(async (trx) => {
        onRun?.(`${name}${i}`);
        await trx
          .insertInto('idempotency_keys')
          .values(row(`${name}${i}`, 1000 + i))
          .execute();
        if (i === failing) throw new Error('boom');
        return i;
      }, asUser(i)),
    ),
  );
}

/** A table whose rows must reference a parent, checked only at COMMIT (deferred), on both databases. */
async function createDeferredChild(): Promise<void> {
  await sql`create table batch_parent (id integer primary key)`.execute(t.ctx.db.kysely);
  await sql`create table batch_child (id integer primary key, parent integer references batch_parent (id) deferrable initially deferred)`.execute(
    t.ctx.db.kysely,
  );
}

describe('write batcher (group commit, both databases)', () => {
  it('rolls back only the unit of work that failed; the others are committed and answered', async () => {
    const writes = createWriteBatcher(t.ctx.db);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        writes.run(async (trx) => {
          await trx
            .insertInto('idempotency_keys')
            .values(row(`k${i}`, 1000 + i))
            .execute();
          if (i === 5) throw new Error('boom');
          return i;
        }, asUser(i)),
      ),
    );
    expect(results[5]).toEqual({ status: 'rejected', reason: new Error('boom') });
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual(
      Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 5),
    );
    const keys = await storedKeys();
    expect(keys).toHaveLength(19);
    expect(keys).not.toContain('k5');
  });

  it('runs a batch without savepoints while no unit fails; once one fails, again with them, so it alone is rolled back', async () => {
    const statements: string[] = [];
    const writes = createWriteBatcher(
      observed(t.ctx.db, (statement) => {
        statements.push(statement);
      }),
    );
    const runs = new Map<string, number>();
    // Five units queued together share one batch.
    const batch = (name: string, failing?: number) =>
      queueTogether(writes, name, 5, failing, (key) => runs.set(key, (runs.get(key) ?? 0) + 1));
    const clean = await batch('a');
    expect(clean.map((r) => r.status)).toEqual(Array(5).fill('fulfilled'));
    expect(statements.filter((s) => s.includes('savepoint'))).toEqual([]);
    expect([...runs.values()]).toEqual([1, 1, 1, 1, 1]);

    const failed = await batch('b', 3);
    expect(failed.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(statements.some((s) => s.includes('savepoint'))).toBe(true);
    // The first run stopped at the failing unit and was rolled back whole; the second ran them all.
    expect(['b0', 'b1', 'b2', 'b3', 'b4'].map((k) => runs.get(k))).toEqual([2, 2, 2, 2, 1]);
    expect(await storedKeys()).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b4']);
  });

  it('counts each transaction it runs in the metrics: a batch run again after a failure is a rollback, then a commit', async () => {
    // A handle of its own, so that only this batcher's transactions are observed.
    const db: Db = { ...t.ctx.db };
    const seen: string[] = [];
    observeTransactions(db, (outcome, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      seen.push(outcome);
    });
    const writes = createWriteBatcher(db);
    const batch = (name: string, size: number, failing?: number) => queueTogether(writes, name, size, failing);
    await batch('a', 4);
    expect(seen).toEqual(['commit']);
    await batch('b', 4, 2);
    expect(seen).toEqual(['commit', 'rollback', 'commit']);
    // A batch of one that fails is rolled back, and nothing else runs.
    await batch('c', 1, 0);
    expect(seen).toEqual(['commit', 'rollback', 'commit', 'rollback']);
    expect(await storedKeys()).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b3']);
  });

  it('times a batch run again from its own BEGIN, also when its COMMIT fails', async () => {
    await createDeferredChild();
    const db: Db = { ...t.ctx.db };
    const seen: { outcome: string; seconds: number }[] = [];
    observeTransactions(db, (outcome, seconds) => seen.push({ outcome, seconds }));
    const writes = createWriteBatcher(db);
    let firstRun = true;
    const results = await Promise.allSettled([
      // Slow the first time only, then it throws: the batch runs again with savepoints.
      writes.run(async () => {
        if (firstRun) {
          firstRun = false;
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
        throw new Error('boom');
      }, asUser(0)),
      // A child without a parent: the second run's COMMIT refuses it.
      writes.run(async (trx) => {
        await sql`insert into batch_child (id, parent) values (1, 42)`.execute(trx);
        return 1;
      }, asUser(1)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(seen.map((s) => s.outcome)).toEqual(['rollback', 'rollback']);
    expect(seen[0]!.seconds).toBeGreaterThanOrEqual(0.29);
    expect(seen[1]!.seconds).toBeLessThan(0.29);
  });

  it('a unit of work that fails on a database error (after several statements) is rolled back alone', async () => {
    const writes = createWriteBatcher(t.ctx.db);
    const results = await Promise.allSettled(
      [0, 1, 2].map((i) =>
        writes.run(async (trx) => {
          await trx
            .insertInto('idempotency_keys')
            .values(row(`k${i}`, 1000 + i))
            .execute();
          // The second unit inserts its key twice: a unique violation inside its savepoint.
          if (i === 1) await trx.insertInto('idempotency_keys').values(row('k1', 1001)).execute();
          return i;
        }, asUser(i)),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await storedKeys()).sort()).toEqual(['k0', 'k2']);
  });

  it('a failed unit of work leaves nothing behind even after several statements', async () => {
    const writes = createWriteBatcher(t.ctx.db);
    await expect(
      writes.run(async (trx) => {
        await trx.insertInto('idempotency_keys').values(row('a')).execute();
        await trx.insertInto('idempotency_keys').values(row('a')).execute(); // unique violation
      }, asUser(1)),
    ).rejects.toThrow();
    expect(await storedKeys()).toEqual([]);
    await writes.run((trx) => trx.insertInto('idempotency_keys').values(row('b')).execute(), asUser(1));
    expect(await storedKeys()).toEqual(['b']);
  });

  it("runs one user's concurrent units of work one after the other in arrival order, each seeing the ones before it", async () => {
    const writes = createWriteBatcher(t.ctx.db);
    const seen = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        writes.run(async (trx) => {
          const before = await trx
            .selectFrom('idempotency_keys')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          await trx
            .insertInto('idempotency_keys')
            .values(row(`k${i}`))
            .execute();
          return Number(before.n);
        }, asUser(1)),
      ),
    );
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(await storedKeys()).toHaveLength(30);
  });

  it('answers no unit of work before its COMMIT has returned', async () => {
    const events: string[] = [];
    let releaseCommit!: () => void;
    const commitHeld = new Promise<void>((resolve) => {
      releaseCommit = resolve;
    });
    const db = observed(t.ctx.db, async (statement) => {
      if (statement !== 'commit') return;
      events.push('commit returned');
      await commitHeld;
    });
    const writes = createWriteBatcher(db);
    const runs = Array.from({ length: 10 }, (_, i) =>
      writes
        .run(async (trx) => {
          await trx
            .insertInto('idempotency_keys')
            .values(row(`k${i}`, 1000 + i))
            .execute();
          return i;
        }, asUser(i))
        .then((value) => {
          events.push(`answered ${value}`);
          return value;
        }),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(events.filter((e) => e === 'commit returned').length).toBeGreaterThan(0);
    expect(events.filter((e) => e.startsWith('answered'))).toEqual([]);
    releaseCommit();
    expect(await Promise.all(runs)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    // Each answer follows a commit that returned: none comes before the first.
    expect(events[0]).toBe('commit returned');
    expect(await storedKeys()).toHaveLength(10);
  });

  it('fails every unit of work of the batch and stores none when the COMMIT fails', async () => {
    await createDeferredChild();
    const writes = createWriteBatcher(t.ctx.db);
    // Held until all are queued, so they share one transaction.
    let go!: () => void;
    const gate = new Promise<void>((resolve) => {
      go = resolve;
    });
    const first = writes.run(async () => gate, asUser(99));
    const results = Promise.allSettled(
      Array.from({ length: 5 }, (_, i) =>
        writes.run(async (trx) => {
          await trx
            .insertInto('idempotency_keys')
            .values(row(`k${i}`, 1000 + i))
            // A child without a parent: accepted now, refused at COMMIT.
            .execute();
          if (i === 2) await sql`insert into batch_child (id, parent) values (1, 42)`.execute(trx);
          return i;
        }, asUser(i)),
      ),
    );
    go();
    await expect(first).rejects.toThrow();
    const settled = await results;
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    expect(await storedKeys()).toEqual([]);
    // The batcher goes on: the next unit of work commits.
    await writes.run((trx) => trx.insertInto('idempotency_keys').values(row('after')).execute(), asUser(1));
    expect(await storedKeys()).toEqual(['after']);
  });
});

// SQLite only: it commits with synchronous = NORMAL and the batcher must wait for `db.durable()`
// (the WAL fsync) before answering. PostgreSQL is durable at COMMIT (checked above).
describe.runIf(testDbKind === 'sqlite')('write batcher on SQLite', () => {
  it('answers a unit of work only once the commit is durable, not when it is committed', async () => {
    let makeDurable!: () => void;
    const durableCalls: Promise<void>[] = [];
    const db = {
      ...t.ctx.db,
      durable: () => {
        const durable = new Promise<void>((resolve) => {
          makeDurable = resolve;
        });
        durableCalls.push(durable);
        return durable;
      },
    };
    const writes = createWriteBatcher(db);
    let settled = false;
    const run = writes.run(async (trx) => {
      await trx.insertInto('idempotency_keys').values(row('k')).execute();
      return 'answered';
    });
    run.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );

    await new Promise((r) => setTimeout(r, 50));
    expect(await storedKeys()).toEqual(['k']); // committed and readable by others
    expect(durableCalls).toHaveLength(1);
    expect(settled).toBe(false); // but not answered yet

    makeDurable();
    await expect(run).resolves.toBe('answered');
    expect(durableCalls).toHaveLength(1);
  });
});

describe.runIf(testDbKind === 'postgres')('write batcher on PostgreSQL', () => {
  it('shares one transaction among the units of work waiting together', async () => {
    const writes = createWriteBatcher(t.ctx.db, { lanes: 2 });
    const xids = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        writes.run(
          async (trx) => (await sql<{ xid: string }>`select txid_current()::text as xid`.execute(trx)).rows[0]!.xid,
          asUser(i),
        ),
      ),
    );
    // 40 units of work queued together: at most two lanes' worth of transactions, not 40.
    expect(new Set(xids).size).toBeLessThanOrEqual(4);
  });

  it('queues a unit of work that failed to serialize again, rolled back alone, in a later transaction', async () => {
    const writes = createWriteBatcher(t.ctx.db);
    const attempts: string[] = [];
    const [retried, other] = await Promise.all([
      writes.run(async (trx) => {
        const xid = (await sql<{ xid: string }>`select txid_current()::text as xid`.execute(trx)).rows[0]!.xid;
        attempts.push(xid);
        await trx
          .insertInto('idempotency_keys')
          .values(row(`try${attempts.length}`, 1001))
          .execute();
        if (attempts.length === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        return attempts.length;
      }, asUser(1)),
      writes.run((trx) => trx.insertInto('idempotency_keys').values(row('other', 1002)).execute(), asUser(2)),
    ]);
    expect(retried).toBe(2);
    expect(other).toBeDefined();
    expect(new Set(attempts).size).toBe(2);
    expect((await storedKeys()).sort()).toEqual(['other', 'try2']);
  });

  it('work without a user runs in a transaction of its own, beside the batches', async () => {
    const writes = createWriteBatcher(t.ctx.db);
    const xids = await Promise.all(
      [0, 1, 2].map(() =>
        writes.run(async (trx) => (await sql<{ xid: string }>`select txid_current()::text as xid`.execute(trx)).rows[0]!.xid),
      ),
    );
    expect(new Set(xids).size).toBe(3);
  });
});
