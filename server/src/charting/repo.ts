import { type Kysely, type Selectable, sql } from 'kysely';
import type { DbKind } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { DrawingsTable } from './tables.js';

// The charting module's SQL. Every query names the trader: a row of another trader is never
// read, changed or deleted, whatever id a caller sends.

type Q = Kysely<Database>;
export type DrawingRow = Selectable<DrawingsTable>;
export type NewDrawingRow = Omit<DrawingRow, 'id'>;

/** The trader's drawings on a pair, oldest first. */
export function listDrawings(q: Q, userId: number, symbol: string): Promise<DrawingRow[]> {
  return q.selectFrom('drawings').selectAll().where('user_id', '=', userId).where('symbol', '=', symbol).orderBy('id').execute();
}

export function findDrawing(q: Q, userId: number, id: number): Promise<DrawingRow | undefined> {
  return q.selectFrom('drawings').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export async function countDrawings(q: Q, userId: number, symbol: string): Promise<number> {
  const row = await q
    .selectFrom('drawings')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .where('symbol', '=', symbol)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Serializes the writers of one trader's drawings on one pair until the transaction ends, so a
 * count and the insert it allows cannot be overtaken by a concurrent insert. SQLite's write
 * transaction (BEGIN IMMEDIATE) serializes already; PostgreSQL takes a transaction-scoped
 * advisory lock on the (schema, trader, pair) key, as auth/throttle.ts does for its counters.
 */
export async function lockTraderPair(q: Q, kind: DbKind, userId: number, symbol: string): Promise<void> {
  if (kind !== 'postgres') return;
  const key = `:pipdesk:drawings:${userId}:${symbol}`;
  await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ${key}))`.execute(q);
}

export function insertDrawing(q: Q, row: NewDrawingRow): Promise<DrawingRow> {
  return q.insertInto('drawings').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Changes the trader's drawing; undefined when it is not one of theirs. */
export function updateDrawing(
  q: Q,
  userId: number,
  id: number,
  changes: Partial<Pick<DrawingRow, 'points' | 'text' | 'color'>> & { updated_at: number },
): Promise<DrawingRow | undefined> {
  return q
    .updateTable('drawings')
    .set(changes)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the trader's drawing; false when it is not one of theirs. */
export async function deleteDrawing(q: Q, userId: number, id: number): Promise<boolean> {
  const result = await q.deleteFrom('drawings').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ------------------------------------------------------------------ chart layouts

/** The trader's saved layout as stored (JSON), if any. */
export async function findLayout(q: Q, userId: number): Promise<string | undefined> {
  const row = await q.selectFrom('chart_layouts').select('layout').where('user_id', '=', userId).executeTakeFirst();
  return row?.layout;
}

/** Keeps the trader's layout, replacing the one saved before. */
export async function saveLayout(q: Q, userId: number, layout: string, now: number): Promise<void> {
  await q
    .insertInto('chart_layouts')
    .values({ user_id: userId, layout, updated_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ layout, updated_at: now }))
    .execute();
}
