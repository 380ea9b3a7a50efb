/**
 * The SQL texts of the prepared hot queries on PostgreSQL (db/prepared.ts registers each as it
 * compiles it), each with the server-side prepared statement name database.ts runs it under. A
 * named statement is parsed and planned once per connection instead of on every call (an order
 * runs about ten of them; docs/order-engine.md#group-commit).
 * Only these texts are named, so an ad-hoc query (an IN list of any length) never fills a
 * connection's statement cache.
 */
const names = new Map<string, string>();

/** Gives a compiled hot query's SQL a statement name (once; the same text keeps its name). */
export function nameStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `pipdesk_${names.size + 1}`);
}

/** The statement name of a hot query's SQL, or undefined for any other text. */
export function statementName(sql: string): string | undefined {
  return names.get(sql);
}
