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

/**
 * Writes a session's clock, status and speed (after every advance and control). A deleted session
 * stays deleted, and a clock only moves forward (a move of another node may have written further).
 */
export async function saveSession(
  q: Q,
  id: number,
  changes: { clock: number; status: StoredReplayStatus; speed: number; updatedAt: number },
): Promise<void> {
  await q
    .updateTable('replay_sessions')
    .set({
      clock: sql<number>`case when clock < ${changes.clock} then ${changes.clock} else clock end`,
      status: changes.status,
      speed: changes.speed,
      updated_at: changes.updatedAt,
    })
    .where('id', '=', id)
    .where('status', '!=', 'deleted')
    .execute();
}

/** What a node compares its copy of a session with (docs/replay.md#many-nodes). */
export interface StoredState {
  id: number;
  clock: number;
  status: StoredReplayStatus;
  speed: number;
  /** The practice account's changes so far (`ReplaySessionsTable.revision`). */
  revision: number;
}

const stateOf = (r: { id: number; clock: number; status: StoredReplayStatus; speed: number; revision: number }): StoredState => ({
  id: Number(r.id),
  clock: Number(r.clock),
  status: r.status,
  speed: Number(r.speed),
  revision: Number(r.revision),
});

const STATE = ['id', 'clock', 'status', 'speed', 'revision'] as const;

/** A session's clock, status and speed as stored (one read by its primary key). */
export async function storedState(q: Q, id: number): Promise<StoredState | undefined> {
  const row = await q.selectFrom('replay_sessions').select(STATE).where('id', '=', id).executeTakeFirst();
  return row && stateOf(row);
}

/** A session's lease is free to `me`: released, expired, or already mine. */
const leaseFree = (me: string, now: number) => sql<boolean>`(mover is null or mover = ${me} or lease_until < ${now})`;

/**
 * Takes (or renews) the lease of session `id` for node `me` until `until`, unless another node
 * holds it (docs/replay.md#many-nodes): one conditional write. Returns the session as stored when
 * taken, undefined when another node holds it or the session is deleted.
 */
export async function takeLease(q: Q, id: number, me: string, now: number, until: number): Promise<StoredState | undefined> {
  const row = await q
    .updateTable('replay_sessions')
    .set({ mover: me, lease_until: until })
    .where('id', '=', id)
    .where('status', '!=', 'deleted')
    .where(leaseFree(me, now))
    .returning(STATE)
    .executeTakeFirst();
  return row && stateOf(row);
}

/**
 * The play loop's turn: takes or renews the leases of those of `ids` that are playing and not held
 * by another node, in one statement; returns them as stored.
 */
export async function takePlayingLeases(
  q: Q,
  ids: readonly number[],
  me: string,
  now: number,
  until: number,
): Promise<StoredState[]> {
  if (ids.length === 0) return [];
  const rows = await q
    .updateTable('replay_sessions')
    .set({ mover: me, lease_until: until })
    .where('id', 'in', [...ids])
    .where('status', '=', 'playing')
    .where(leaseFree(me, now))
    .returning(STATE)
    .execute();
  return rows.map(stateOf);
}

/** Counts a change of the session's practice account; returns its revision after it, or undefined. */
export async function bumpRevision(q: Q, accountId: number): Promise<number | undefined> {
  const row = await q
    .updateTable('replay_sessions')
    .set({ revision: sql<number>`revision + 1` })
    .where('account_id', '=', accountId)
    .returning('revision')
    .executeTakeFirst();
  return row && Number(row.revision);
}

/** Gives up node `me`'s lease of session `id` (after a control on a session that is not playing here). */
export async function releaseLease(q: Q, id: number, me: string): Promise<void> {
  await q.updateTable('replay_sessions').set({ lease_until: 0 }).where('id', '=', id).where('mover', '=', me).execute();
}

/** Gives up every lease of node `me` (its shutdown): another node may move its sessions at once. */
export async function releaseLeases(q: Q, me: string): Promise<number> {
  const result = await q
    .updateTable('replay_sessions')
    .set({ lease_until: 0 })
    .where('mover', '=', me)
    .where('lease_until', '>', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Writes the play and pause controls' status and speed, which move no clock and need no lease: the
 * node that plays the session reads them at its next turn. Not for a deleted session, and `playing`
 * not for a finished one. Returns the session as stored after the write, or undefined.
 */
export async function setPlaying(
  q: Q,
  id: number,
  changes: { status: 'playing' | 'paused'; speed: number; updatedAt: number },
): Promise<StoredState | undefined> {
  const row = await q
    .updateTable('replay_sessions')
    .set({ status: changes.status, speed: changes.speed, updated_at: changes.updatedAt })
    .where('id', '=', id)
    .where('status', 'in', changes.status === 'playing' ? ['paused', 'playing'] : ['playing'])
    .returning(STATE)
    .executeTakeFirst();
  return row && stateOf(row);
}

/**
 * Pauses a playing session nobody here watches, unless another node holds its lease (a socket
 * there watches it, and it plays there). Returns whether it was paused.
 */
export async function pauseUnleased(q: Q, id: number, at: { me: string; clock: number; now: number }): Promise<boolean> {
  const result = await q
    .updateTable('replay_sessions')
    .set({
      status: 'paused',
      clock: sql<number>`case when clock < ${at.clock} then ${at.clock} else clock end`,
      updated_at: at.now,
    })
    .where('id', '=', id)
    .where('status', '=', 'playing')
    .where(leaseFree(at.me, at.now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
 * the sessions left playing by the last run are paused, unless another node holds their lease.
 * Returns how many.
 */
export async function pauseAllPlaying(q: Q, now: number): Promise<number> {
  const result = await q
    .updateTable('replay_sessions')
    .set({ status: 'paused', updated_at: now })
    .where('status', '=', 'playing')
    // Another node still playing one keeps it: only the leases nobody renews are this start's to end.
    .where('lease_until', '<', now)
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
