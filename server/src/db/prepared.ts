import { type Compilable, type CompiledQuery, type Kysely, PostgresAdapter, type QueryCreator } from 'kysely';
import type { DbKind } from './database.js';
import type { Database } from './schema.js';
import { nameStatement } from './statement-names.js';

/**
 * The CTEs a composed statement may hold, by name, with the row each returns: each module
 * declares its own (`declare module '…/db/prepared.js' { interface ComposedCtes { … } }`), as
 * its tables extend `Database`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the modules' CTEs extend it by declaration merging
export interface ComposedCtes {}

/**
 * A PostgreSQL statement being composed of data-modifying CTEs by several modules' repositories
 * (docs/order-engine.md#round-trips): each adds its CTEs and hands the statement on as this type.
 * Every CTE any module declares is in its type from the start (Kysely's `QueryCreator` is
 * invariant in its database type, so a statement that grew by a CTE is this type again only when
 * that CTE was declared already), and a part may read the ones the parts before it added.
 */
export type ComposedStatement = QueryCreator<Database & ComposedCtes>;

/** `q` as the start of a composed statement: only its type changes (Kysely's `withTables`). */
export function composedStatement(q: Kysely<Database>): ComposedStatement {
  return q.withTables<{ [Name in keyof ComposedCtes]: ComposedCtes[Name] }>();
}

/** Marks the place of a named value in a prepared query. */
class Slot {
  constructor(readonly name: string) {}
}

export interface PreparedQuery<P, R> {
  /** Runs the query on `q` (the database, a connection or a transaction) with these values. */
  execute(q: Kysely<Database>, values: P): Promise<R[]>;
  /** The SQL this query runs on `q`'s database and each parameter's value name (a constant as JSON), without running it. */
  describe(q: Kysely<Database>): { sql: string; parameters: string[] };
}

/** A hot query registered under its name (see `preparedQueries`). */
export interface NamedPreparedQuery {
  readonly name: string;
  describe(q: Kysely<Database>): { sql: string; parameters: string[] };
}

const registry: NamedPreparedQuery[] = [];

/**
 * The named prepared queries of every module imported so far, in registration order. A test
 * snapshots their compiled SQL on both databases, so a change to a hot query shows in review.
 */
export const preparedQueries: readonly NamedPreparedQuery[] = registry;

type Build<P, R> = (q: Kysely<Database>, value: <K extends keyof P & string>(name: K) => P[K], kind: DbKind) => Compilable<R>;

/** Which database `q` (the database, a connection or a transaction) runs on. */
export function dbKindOf(q: Kysely<Database>): DbKind {
  return q.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Compiles `build` for `q`'s database with each value's place marked by its name. */
function compileWithSlots<P, R>(build: Build<P, R>, q: Kysely<Database>) {
  const kind = dbKindOf(q);
  const query = build(q, (name) => new Slot(name) as never, kind).compile();
  const slots = query.parameters.map((p) => (p instanceof Slot ? p.name : { constant: p }));
  return { query, slots };
}

/**
 * A hot query, built and compiled by Kysely once per database and then run with new values.
 * Kysely otherwise rebuilds and recompiles the query tree on every call; on the order path
 * that cost as much CPU as SQLite's own work. `build` places each value with `value(name)`;
 * constants written straight into the query (`'OPEN'`) stay as they are, and `kind` tells
 * which database the query is compiled for.
 */
export function prepare<P extends Record<string, unknown>, R>(name: string, build: Build<P, R>): PreparedQuery<P, R>;
/** An unnamed query (a test's) is not registered; every hot query of the modules is named (`module.query`, unique). */
export function prepare<P extends Record<string, unknown>, R>(build: Build<P, R>): PreparedQuery<P, R>;
export function prepare<P extends Record<string, unknown>, R>(
  nameOrBuild: string | Build<P, R>,
  namedBuild?: Build<P, R>,
): PreparedQuery<P, R> {
  const build = typeof nameOrBuild === 'string' ? namedBuild! : nameOrBuild;
  // Keyed by the dialect's adapter, which a database shares with its transactions.
  const compiled = new WeakMap<object, { query: CompiledQuery<R>; parameters: (values: P) => unknown[] }>();
  const prepared: PreparedQuery<P, R> = {
    async execute(q, values) {
      const adapter = q.getExecutor().adapter;
      let entry = compiled.get(adapter);
      if (!entry) {
        const { query, slots } = compileWithSlots(build, q);
        if (adapter instanceof PostgresAdapter) nameStatement(query.sql);
        const parameters = (v: P) =>
          slots.map((s) => {
            if (typeof s !== 'string') return s.constant;
            if (v[s] === undefined) throw new Error(`No value for ${s} in ${query.sql}`);
            return v[s];
          });
        entry = { query, parameters };
        compiled.set(adapter, entry);
      }
      const result = await q.executeQuery<R>({ ...entry.query, parameters: entry.parameters(values) });
      return result.rows;
    },
    describe(q) {
      const { query, slots } = compileWithSlots(build, q);
      return { sql: query.sql, parameters: slots.map((s) => (typeof s === 'string' ? s : JSON.stringify(s.constant))) };
    },
  };
  if (typeof nameOrBuild === 'string') {
    if (registry.some((r) => r.name === nameOrBuild)) throw new Error(`Two prepared queries are named ${nameOrBuild}`);
    registry.push({ name: nameOrBuild, describe: prepared.describe });
  }
  return prepared;
}
