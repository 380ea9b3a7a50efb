import type { CreateTableBuilder } from 'kysely';
import type { DbKind } from './database.js';

/**
 * Conventions for every table (keep them so both databases behave the same):
 * - ids: integer auto-increment `id` (this helper);
 * - timestamps: epoch milliseconds in `bigint` columns (`*_at`), converted to ISO at the edge;
 * - money: integer minor units (cents) in `bigint` columns;
 * - prices and lots: exact scaled integers or decimal strings, never binary floats summed up.
 */
export function withId<TB extends string, C extends string>(kind: DbKind, table: CreateTableBuilder<TB, C>) {
  return kind === 'postgres'
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
