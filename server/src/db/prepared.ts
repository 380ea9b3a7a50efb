import { type Compilable, type CompiledQuery, type Kysely, PostgresAdapter } from 'kysely';
import type { DbKind } from './database.js';
import type { Database } from './schema.js';

/** Marks the place of a named value in a prepared query. */
class Slot {
  constructor(readonly name: string) {}
}

export interface PreparedQuery<P, R> {
  /** Runs the query on `q` (the database, a connection or a transaction) with these values. */
  execute(q: Kysely<Database>, values: P): Promise<R[]>;
}

/**
 * A hot query, built and compiled by Kysely once per database and then run with new values.
 * Kysely otherwise rebuilds and recompiles the query tree on every call; on the order path
 * that cost as much CPU as SQLite's own work. `build` places each value with `value(name)`;
 * constants written straight into the query (`'OPEN'`) stay as they are, and `kind` tells
 * which database the query is compiled for.
 */
export function prepare<P extends Record<string, unknown>, R>(
  build: (q: Kysely<Database>, value: <K extends keyof P & string>(name: K) => P[K], kind: DbKind) => Compilable<R>,
): PreparedQuery<P, R> {
  // Keyed by the dialect's adapter, which a database shares with its transactions.
  const compiled = new WeakMap<object, { query: CompiledQuery<R>; parameters: (values: P) => unknown[] }>();
  return {
    async execute(q, values) {
      const adapter = q.getExecutor().adapter;
      let entry = compiled.get(adapter);
      if (!entry) {
        const kind: DbKind = adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
        const query = build(q, (name) => new Slot(name) as never, kind).compile();
        const slots = query.parameters.map((p) => (p instanceof Slot ? p.name : { constant: p }));
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
  };
}
