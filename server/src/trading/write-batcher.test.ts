import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import { createWriteBatcher } from './write-batcher.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

const row = (key: string) => ({
  user_id: 1,
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

describe('write batcher', () => {
  it('rolls back only the unit of work that failed; the others are committed and answered', async () => {
    const writes = createWriteBatcher(t.ctx.db);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        writes.run(async (trx) => {
          await trx
            .insertInto('idempotency_keys')
            .values(row(`k${i}`))
            .execute();
          if (i === 5) throw new Error('boom');
          return i;
        }),
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

  it('a failed unit of work leaves nothing behind even after several statements', async () => {
    const writes = createWriteBatcher(t.ctx.db);
    await expect(
      writes.run(async (trx) => {
        await trx.insertInto('idempotency_keys').values(row('a')).execute();
        await trx.insertInto('idempotency_keys').values(row('a')).execute(); // unique violation
      }),
    ).rejects.toThrow();
    expect(await storedKeys()).toEqual([]);
    await writes.run((trx) => trx.insertInto('idempotency_keys').values(row('b')).execute());
    expect(await storedKeys()).toEqual(['b']);
  });

  it('runs concurrent units of work one after the other, each seeing the ones before it', async () => {
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
        }),
      ),
    );
    // SQLite: one writer, in arrival order. PostgreSQL: one transaction each, so every count is distinct too
    // only when they serialize; without a lock two may see the same count.
    if (testDbKind === 'sqlite') expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
    else expect(seen.every((n) => n >= 0 && n < 30)).toBe(true);
    expect(await storedKeys()).toHaveLength(30);
  });
});

// SQLite only: it commits with synchronous = NORMAL and the batcher must wait for `db.durable()`
// (the WAL fsync) before answering. PostgreSQL is durable at COMMIT, so its batcher is a plain
// writeTransaction that never calls `durable()`; there is no wait to check there.
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
