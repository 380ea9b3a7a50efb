import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Database } from './schema.js';

export type DbKind = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  kind: DbKind;
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
  // better-sqlite3 defaults WAL to synchronous=NORMAL, which can lose committed money on
  // power loss; FULL syncs the WAL on every commit.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  cachePreparedStatements(sqlite);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  let closed = false;
  return {
    kysely,
    kind: 'sqlite',
    close: async () => {
      if (closed) return;
      closed = true;
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
