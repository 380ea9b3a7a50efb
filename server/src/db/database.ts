import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Database } from './schema.js';
import { createWalSync } from './wal-sync.js';

export type DbKind = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  kind: DbKind;
  /**
   * Resolves once every transaction committed before the call is on disk; write
   * transactions await it before they answer. PostgreSQL is durable at COMMIT already;
   * SQLite commits without waiting for the disk and syncs its WAL here (see wal-sync.ts).
   */
  durable(): Promise<void>;
  /** Closes the pool or file; safe to call twice. */
  close(): Promise<void>;
}

// pg returns BIGINT (int8) and NUMERIC as strings by default; our int8 columns hold
// minor units and scaled prices that fit in 2^53, so read them as numbers.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** Opens the configured database: a SQLite file by default, PostgreSQL when DATABASE_URL says so. */
export function openDatabase(database: Config['database'], options: { schema?: string } = {}): Db {
  if (database.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: database.url,
      max: 20,
      // A test may isolate itself in its own schema.
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    let closed = false;
    return {
      kysely,
      kind: 'postgres',
      durable: () => Promise.resolve(),
      close: async () => {
        if (closed) return;
        closed = true;
        await kysely.destroy();
      },
    };
  }
  mkdirSync(path.dirname(path.resolve(database.file)), { recursive: true });
  const sqlite = new SQLite(database.file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL alone (better-sqlite3's default for WAL) can lose committed money on power loss.
  // FULL would fsync inside COMMIT, on the event loop; instead every write transaction
  // awaits `durable()`, which fsyncs the WAL on the thread pool before anyone is answered.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('foreign_keys = ON');
  cachePreparedStatements(sqlite);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const wal = sqlite.memory ? undefined : createWalSync(`${path.resolve(database.file)}-wal`);
  let closed = false;
  return {
    kysely,
    kind: 'sqlite',
    durable: () => wal?.sync() ?? Promise.resolve(),
    close: async () => {
      if (closed) return;
      closed = true;
      await wal?.close();
      await kysely.destroy();
    },
  };
}

/**
 * Kysely prepares every query anew; the order path runs the same dozen SQL texts thousands of
 * times a second, and preparing costs about as much as running. A prepared statement can be
 * reused once a call has returned (Kysely runs them to completion on the one connection).
 */
function cachePreparedStatements(sqlite: SQLite.Database, max = 500): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, SQLite.Statement>();
  sqlite.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      if (cache.size >= max) cache.clear();
      cache.set(source, statement);
    }
    return statement;
  }) as typeof sqlite.prepare;
}
