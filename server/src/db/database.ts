import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { ConnectionBreaker } from './availability.js';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import type { Database } from './schema.js';
import { statementName } from './statement-names.js';
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

export interface OpenOptions {
  /** PostgreSQL: a schema to work in (tests isolate themselves this way). */
  schema?: string;
  /**
   * SQLite: checkpoint the WAL from a worker thread (see checkpointer.ts), for a long-running
   * server; `onWarning` hears of its failures. Short-lived users (the CLI) leave it to SQLite.
   */
  checkpointer?: { onWarning: (message: string) => void; restartFrames?: number };
  /**
   * SQLite: called once if syncing the WAL fails. Commits made since are visible but not on
   * disk and can never be acknowledged; the owner should stop (see wal-sync.ts).
   */
  onDurabilityLost?: (error: unknown) => void;
  /** PostgreSQL: how long acquiring a connection may take before the request fails (default 3 s). */
  connectTimeoutMs?: number;
  /** PostgreSQL: hears of connection errors outside any query (an idle or held connection dropped). */
  onConnectionError?: (error: unknown) => void;
  /** PostgreSQL: told when the database becomes unreachable and when it is reachable again. */
  onReachabilityChange?: (reachable: boolean, error?: unknown) => void;
}

/** Opens the configured database: a SQLite file by default, PostgreSQL when DATABASE_URL says so. */
export function openDatabase(database: Config['database'], options: OpenOptions = {}): Db {
  if (database.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: database.url,
      max: database.poolSize ?? 20,
      // Bounded, so a request during an outage answers 503 instead of hanging (pg waits forever by default).
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      // A peer that vanished without closing (no RST) is noticed by TCP keepalive, not hours later.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // A test may isolate itself in its own schema.
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An 'error' event nobody listens to ends the process. pg emits it on the pool for an idle
    // connection that drops, and on a checked-out client between queries (pg-pool removes its
    // own listener while a client is lent), so every client gets one for life.
    const onConnectionError = (err: unknown) => options.onConnectionError?.(err);
    pool.on('error', onConnectionError);
    pool.on('connect', (client) => {
      client.on('error', onConnectionError);
      runHotQueriesPrepared(client);
    });
    // Kysely only calls connect() and end(): the breaker answers at once while the database is
    // known to be down and lets one attempt through per backoff step (docs/operations.md#database-outages).
    const breaker = new ConnectionBreaker(options.onReachabilityChange ? { onChange: options.onReachabilityChange } : {});
    const guardedPool = {
      connect: () => breaker.run(() => pool.connect()),
      end: () => pool.end(),
    };
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guardedPool }) });
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
  // Savepoint journals (one savepoint per execution in a batch) stay in memory instead of
  // spilling to a temporary file past 64 KiB.
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma('foreign_keys = ON');
  cachePreparedStatements(sqlite);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const file = path.resolve(database.file);
  const wal = sqlite.memory ? undefined : createWalSync(`${file}-wal`, options.onDurabilityLost);
  let closed = false;
  let checkpointer: Checkpointer | undefined;
  if (options.checkpointer && !sqlite.memory) {
    let rewinding = false;
    const started = startCheckpointer(file, {
      onWarning: options.checkpointer.onWarning,
      ...(options.checkpointer.restartFrames ? { restartFrames: options.checkpointer.restartFrames } : {}),
      // Holding the one connection idle lets the checkpoint copy everything; queries queue meanwhile.
      onRestartNeeded: () => {
        if (rewinding || closed) return;
        rewinding = true;
        void kysely
          .connection()
          .execute(() => started.checkpointNow())
          .catch(() => {})
          .finally(() => {
            rewinding = false;
          });
      },
    });
    checkpointer = started;
    // Only a backstop now (about 40 MB): the worker checkpoints far sooner.
    sqlite.pragma('wal_autocheckpoint = 10000');
  }
  return {
    kysely,
    kind: 'sqlite',
    durable: () => wal?.sync() ?? Promise.resolve(),
    close: async () => {
      if (closed) return;
      closed = true;
      await checkpointer?.close();
      await wal?.close();
      await kysely.destroy();
    },
  };
}

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it on every call. A hot
 * query's text (db/statement-names.ts) is sent as a named statement instead: pg prepares it
 * on the connection the first time and then only binds and executes it.
 */
function runHotQueriesPrepared(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof text === 'string' && Array.isArray(values) ? statementName(text) : undefined;
    if (name === undefined) return query(text, values, callback);
    return query({ name, text, values }, callback);
  }) as typeof client.query;
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
