import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDbKind } from '../test/helpers.js';
import type { IdempotencyKeysTable } from '../trading/tables.js';
import { prepare } from './prepared.js';
import type { Database } from './schema.js';

type KeyRow = Selectable<IdempotencyKeysTable>;

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

const row = (userId: number, key: string, status = 201): Insertable<IdempotencyKeysTable> => ({
  user_id: userId,
  idempotency_key: key,
  request_hash: 'h',
  response_status: status,
  response_body: `{"key":"${key}"}`,
  created_at: 1_700_000_000_000 + userId,
});

const keyInsert = prepare<Insertable<IdempotencyKeysTable>, { id: number }>((q, value) =>
  q
    .insertInto('idempotency_keys')
    .values({
      user_id: value('user_id'),
      idempotency_key: value('idempotency_key'),
      request_hash: value('request_hash'),
      response_status: value('response_status'),
      response_body: value('response_body'),
      created_at: value('created_at'),
    })
    .returning('id'),
);

const keysOfUser = prepare<{ userId: number }, KeyRow>((q, value) =>
  q.selectFrom('idempotency_keys').selectAll().where('user_id', '=', value('userId')).orderBy('id'),
);

const keysOfUserWritten = (q: Kysely<Database>, userId: number) =>
  q.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();

async function seed(rows: Insertable<IdempotencyKeysTable>[]): Promise<void> {
  await t.ctx.db.kysely.insertInto('idempotency_keys').values(rows).execute();
}

async function storedKeys(): Promise<string[]> {
  const rows = await t.ctx.db.kysely.selectFrom('idempotency_keys').select('idempotency_key').orderBy('id').execute();
  return rows.map((r) => r.idempotency_key);
}

describe('prepared queries', () => {
  it('give the same rows as the query written with Kysely, for each new value', async () => {
    await seed([row(1, 'a'), row(2, 'b'), row(1, 'c'), row(3, 'd'), row(2, 'e')]);
    const expectedKeys: Record<number, string[]> = { 1: ['a', 'c'], 2: ['b', 'e'], 3: ['d'], 99: [] };
    // Several values in a row, back and forth: a value frozen from the first call would show here.
    for (const userId of [2, 1, 3, 2, 99, 1]) {
      const prepared = await keysOfUser.execute(t.ctx.db.kysely, { userId });
      expect(prepared).toEqual(await keysOfUserWritten(t.ctx.db.kysely, userId));
      expect(prepared.map((r) => r.idempotency_key)).toEqual(expectedKeys[userId]);
    }
  });

  it('keep the constants written into the query, wherever they sit among the values', async () => {
    await seed([
      row(1, 'created'),
      row(1, 'conflict', 409),
      { ...row(1, 'other hash'), request_hash: 'x' },
      row(2, 'created too'),
      row(2, 'rejected', 422),
    ]);
    const createdOfUser = prepare<{ userId: number }, KeyRow>((q, value) =>
      q
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('response_status', '=', 201)
        .where('user_id', '=', value('userId'))
        .where('request_hash', '=', 'h')
        .orderBy('id'),
    );
    const written = (userId: number) =>
      t.ctx.db.kysely
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('response_status', '=', 201)
        .where('user_id', '=', userId)
        .where('request_hash', '=', 'h')
        .orderBy('id')
        .execute();
    for (const [userId, keys] of [
      [1, ['created']],
      [2, ['created too']],
      [1, ['created']],
    ] as const) {
      const prepared = await createdOfUser.execute(t.ctx.db.kysely, { userId });
      expect(prepared.map((r) => r.idempotency_key)).toEqual(keys);
      expect(prepared).toEqual(await written(userId));
    }
  });

  it('throw an error naming a value missing at execute time, and write nothing', async () => {
    // A caller whose types were bypassed can leave a value out; it must not run with a hole.
    const { request_hash: _, ...withoutHash } = row(1, 'no hash');
    const incomplete = withoutHash as Insertable<IdempotencyKeysTable>;

    // On the first call (the query is compiled then) and on a later one (compiled already).
    const error: unknown = await keyInsert.execute(t.ctx.db.kysely, incomplete).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^No value for request_hash in insert into /);
    expect(await storedKeys()).toEqual([]);

    await keyInsert.execute(t.ctx.db.kysely, row(1, 'complete'));
    await expect(keyInsert.execute(t.ctx.db.kysely, { ...incomplete, idempotency_key: 'no hash again' })).rejects.toThrow(
      /No value for request_hash/,
    );
    expect(await storedKeys()).toEqual(['complete']);
  });

  it('run inside a transaction, seeing its uncommitted rows, and on the plain database', async () => {
    const db = t.ctx.db;
    // Rolled back: the prepared insert and read ran on the transaction, so nothing is left.
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await keyInsert.execute(trx, row(7, 'rolled back'));
        expect((await keysOfUser.execute(trx, { userId: 7 })).map((r) => r.idempotency_key)).toEqual(['rolled back']);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await keysOfUser.execute(db.kysely, { userId: 7 })).toEqual([]);

    // Committed: visible on the plain database afterwards.
    await db.kysely.transaction().execute(async (trx) => {
      await keyInsert.execute(trx, row(7, 'committed'));
      expect((await keysOfUser.execute(trx, { userId: 7 })).map((r) => r.idempotency_key)).toEqual(['committed']);
    });
    const rows = await keysOfUser.execute(db.kysely, { userId: 7 });
    expect(rows.map((r) => r.idempotency_key)).toEqual(['committed']);
    expect(rows).toEqual(await keysOfUserWritten(db.kysely, 7));
  });

  it('are built once per database, shared with its transactions, for the kind of that database', async () => {
    const builtFor: string[] = [];
    const keyCount = prepare<{ userId: number }, { n: number }>((q, value, kind) => {
      builtFor.push(kind);
      return q
        .selectFrom('idempotency_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', value('userId'));
    });
    await seed([row(1, 'a'), row(1, 'b'), row(2, 'c')]);
    const count = async (q: Kysely<Database>, userId: number) => Number((await keyCount.execute(q, { userId }))[0]!.n);

    expect(await count(t.ctx.db.kysely, 1)).toBe(2);
    expect(await t.ctx.db.kysely.transaction().execute((trx) => count(trx, 2))).toBe(1);
    expect(await count(t.ctx.db.kysely, 3)).toBe(0);
    expect(builtFor).toEqual([t.ctx.db.kind]);
  });

  it('answer the id of each inserted row', async () => {
    const first = await keyInsert.execute(t.ctx.db.kysely, row(1, 'first'));
    const second = await keyInsert.execute(t.ctx.db.kysely, row(1, 'second'));
    const stored = await t.ctx.db.kysely.selectFrom('idempotency_keys').select(['id', 'idempotency_key']).orderBy('id').execute();
    expect(stored.map((r) => r.idempotency_key)).toEqual(['first', 'second']);
    expect(first).toEqual([{ id: stored[0]!.id }]);
    expect(second).toEqual([{ id: stored[1]!.id }]);
    expect(typeof first[0]!.id).toBe('number');
    expect(first[0]!.id).not.toBe(second[0]!.id);
  });
});

describe.runIf(testDbKind === 'postgres')('prepared queries on PostgreSQL', () => {
  it('run as named statements, prepared once per connection; other queries stay unnamed', async () => {
    // A text no other test runs, so it is new on whichever pooled connection this gets.
    const keysFromUser = prepare<{ userId: number }, KeyRow>((q, value) =>
      q.selectFrom('idempotency_keys').selectAll().where('user_id', '>=', value('userId')).orderBy('id'),
    );
    const prepared = (conn: Kysely<Database>) =>
      sql<{ name: string }>`select name from pg_prepared_statements order by name`
        .execute(conn)
        .then((r) => r.rows.map((x) => x.name));
    await t.ctx.db.kysely.connection().execute(async (conn) => {
      const before = await prepared(conn);
      // A query built on the spot (a text no prepared query has) stays unnamed.
      await conn.selectFrom('idempotency_keys').select('id').where('user_id', '<', 7).execute();
      expect(await prepared(conn)).toEqual(before);
      await seed([row(1, 'a')]);
      for (const userId of [1, 2, 1]) await keysFromUser.execute(conn, { userId });
      const after = await prepared(conn);
      expect(after.length).toBe(before.length + 1);
      expect(after.every((name) => name.startsWith('pipdesk_'))).toBe(true);
      expect((await keysFromUser.execute(conn, { userId: 1 })).map((r) => r.idempotency_key)).toEqual(['a']);
    });
  });
});
