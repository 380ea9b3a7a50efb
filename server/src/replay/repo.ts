import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ReplaySessionsTable, StoredReplayStatus } from './tables.js';

// The replay sessions' SQL (docs/replay.md#sessions-and-their-calls). Every read a trader's call
// makes names the trader: another trader's session is not found.

type Q = Kysely<Database>;
export type ReplaySessionRow = Selectable<ReplaySessionsTable>;

export async function insertSession(trx: Q, row: Insertable<ReplaySessionsTable>): Promise<number> {
  const inserted = await trx.insertInto('replay_sessions').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** The trader's session `id`, unless deleted. */
export async function findOwnSession(q: Q, userId: number, id: number): Promise<ReplaySessionRow | undefined> {
  return q
    .selectFrom('replay_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('status', '!=', 'deleted')
    .executeTakeFirst();
}

/** The trader's sessions, newest first, without the deleted ones. */
export async function sessionsOfUser(q: Q, userId: number): Promise<ReplaySessionRow[]> {
  return q
    .selectFrom('replay_sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', '!=', 'deleted')
    .orderBy('id', 'desc')
    .execute();
}

/** The session of a practice account (deleted ones too: the account stays on its market). */
export async function sessionOfAccount(q: Q, accountId: number): Promise<ReplaySessionRow | undefined> {
  return q.selectFrom('replay_sessions').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Writes a session's clock, status and speed (after every advance and control). */
export async function saveSession(
  q: Q,
  id: number,
  changes: { clock: number; status: StoredReplayStatus; speed: number; updatedAt: number },
): Promise<void> {
  await q
    .updateTable('replay_sessions')
    .set({ clock: changes.clock, status: changes.status, speed: changes.speed, updated_at: changes.updatedAt })
    .where('id', '=', id)
    .execute();
}

/** Sessions per statement of `saveClocks`: 3 parameters each, far below SQLite's limit. */
const CLOCKS_PER_STATEMENT = 1_000;

/**
 * Writes the clocks the play loop moved its sessions to in one turn, in one statement (per 1,000
 * sessions) rather than one per session (docs/replay.md#playing). A clock only moves forward: a
 * row a control has meanwhile written further (a step, a pause) keeps its clock.
 */
export async function saveClocks(q: Q, moved: ReadonlyArray<{ id: number; clock: number }>, now: number): Promise<void> {
  for (let i = 0; i < moved.length; i += CLOCKS_PER_STATEMENT) {
    const part = moved.slice(i, i + CLOCKS_PER_STATEMENT);
    const clock = sql<number>`case ${sql.join(
      part.map((m) => sql`when id = ${m.id} and clock < ${m.clock} then ${m.clock}`),
      sql` `,
    )} else clock end`;
    await q
      .updateTable('replay_sessions')
      .set({ clock, updated_at: now })
      .where(
        'id',
        'in',
        part.map((m) => m.id),
      )
      .execute();
  }
}

/**
 * At start nothing plays (a session plays only while its trader is there, docs/replay.md#playing):
 * the sessions left playing by the last run are paused. Returns how many.
 */
export async function pauseAllPlaying(q: Q, now: number): Promise<number> {
  const result = await q
    .updateTable('replay_sessions')
    .set({ status: 'paused', updated_at: now })
    .where('status', '=', 'playing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The trader's practice accounts' sessions, by account id (the accounts call shows each one's session). */
export async function sessionsOfAccounts(q: Q, userId: number): Promise<Map<number, { id: number; status: string }>> {
  const rows = await q
    .selectFrom('replay_sessions')
    .select(['id', 'account_id', 'status'])
    .where('user_id', '=', userId)
    .execute();
  return new Map(rows.map((r) => [Number(r.account_id), { id: Number(r.id), status: r.status }]));
}
