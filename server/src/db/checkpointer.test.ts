import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from './checkpointer.js';
import { type Db, openDatabase } from './database.js';
import { writeTransaction } from './transaction.js';

// The checkpointer is SQLite's alone; these tests open their own SQLite files whatever the suite's database.
const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(checkpointer?: { restartFrames: number; warnings: string[] }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipdesk-ckpt-'));
  dirs.push(dir);
  const file = path.join(dir, 'test.sqlite');
  const db = openDatabase(
    { kind: 'sqlite', file },
    checkpointer
      ? { checkpointer: { restartFrames: checkpointer.restartFrames, onWarning: (m) => checkpointer.warnings.push(m) } }
      : {},
  );
  dbs.push(db);
  return { db, wal: `${file}-wal` };
}

const walMb = (wal: string) => statSync(wal).size / 1e6;

/** 48 MB in back-to-back write transactions of 16 KiB: the load under which a passive checkpoint never catches up. */
async function writeSteadily(db: Db): Promise<number> {
  await sql`create table blobs (id integer primary key, body blob not null)`.execute(db.kysely);
  const body = Buffer.alloc(16 * 1024, 7);
  const count = 3000;
  for (let i = 0; i < count; i++) {
    await writeTransaction(db, (trx) => sql`insert into blobs (body) values (${body})`.execute(trx));
  }
  return count;
}

describe('WAL checkpointer', () => {
  it('keeps the WAL small under steady writes: the worker copies it back and the server rewinds it', async () => {
    const warnings: string[] = [];
    const { db, wal } = open({ restartFrames: 200, warnings });
    const written = await writeSteadily(db);
    // The server connection's own checkpoint waits for 10,000 pages (40 MB), so only the worker
    // can have kept it under 32 MB (it looks every 100 ms, in which these writes add about 4 MB;
    // a busy machine can delay it several times over: 23.6 MB was seen under a full CI run).
    expect(walMb(wal)).toBeLessThan(32);
    expect(warnings).toEqual([]);
    const rows = await sql<{ n: number }>`select count(*) as n from blobs`.execute(db.kysely);
    expect(Number(rows.rows[0]!.n)).toBe(written);
  }, 20_000);

  it('without it, SQLite checkpoints by itself every 1,000 pages (the CLI and short-lived tools)', async () => {
    const { db, wal } = open();
    await writeSteadily(db);
    expect(walMb(wal)).toBeLessThan(8);
  }, 20_000);

  it("close ends the worker's connection too: the last connection to close removes the WAL", async () => {
    const { db, wal } = open({ restartFrames: 200, warnings: [] });
    await writeTransaction(db, (trx) => sql`create table t (x integer)`.execute(trx));
    expect(statSync(wal).size).toBeGreaterThan(0);
    await db.close();
    expect(() => statSync(wal)).toThrow(/ENOENT/);
    // A second close is harmless.
    await db.close();
  });

  it('asks for the connection once per long WAL, not again and again while nothing is written', async () => {
    const { db } = open();
    await sql`create table blobs (id integer primary key, body blob not null)`.execute(db.kysely);
    const body = Buffer.alloc(16 * 1024, 7);
    // About 100 pages: a long WAL for a threshold of 50, short of SQLite's own checkpoint at 1,000.
    for (let i = 0; i < 25; i++) {
      await writeTransaction(db, (trx) => sql`insert into blobs (body) values (${body})`.execute(trx));
    }
    let asked = 0;
    const warnings: string[] = [];
    const file = (await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db.kysely))
      .rows[0]!.file;
    const checkpointer = startCheckpointer(file, {
      restartFrames: 50,
      onWarning: (m) => warnings.push(m),
      onRestartNeeded: () => {
        asked++;
        void db.kysely.connection().execute(() => checkpointer.checkpointNow());
      },
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(asked).toBe(1);
      expect(warnings).toEqual([]);
    } finally {
      await checkpointer.close();
    }
  });
});
