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
