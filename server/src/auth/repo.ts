import type { Kysely } from 'kysely';
import { prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { LoginFailureScope, SessionEndReason } from './tables.js';

/** Any Kysely handle: the database itself or a transaction. Writes run inside `writeTransaction`. */
type Q = Kysely<Database>;

export async function findUserByEmail(q: Q, email: string) {
  return q.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function insertUser(
  q: Q,
  user: { email: string; passwordHash: string; fullName: string; now: number; mustChangePassword?: boolean },
) {
  const row = await q
    .insertInto('users')
    .values({
      email: user.email,
      password_hash: user.passwordHash,
      full_name: user.fullName,
      is_active: 1,
      ...(user.mustChangePassword ? { must_change_password: 1 } : {}),
      created_at: user.now,
      updated_at: user.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function setUserActive(q: Q, userId: number, active: boolean, now: number): Promise<void> {
  await q
    .updateTable('users')
    .set({ is_active: active ? 1 : 0, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

export async function insertSession(q: Q, session: { id: string; userId: number; now: number }): Promise<void> {
  await q
    .insertInto('sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      created_at: session.now,
      last_refreshed_at: session.now,
      revoked_at: null,
      revoked_reason: null,
    })
    .execute();
}

const sessionWithUser = prepare<{ sessionId: string }, SessionWithUser>('auth.sessionWithUser', (q, value) =>
  q
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as session_id',
      'sessions.user_id',
      'sessions.revoked_at',
      'users.email',
      'users.full_name',
      'users.is_active',
      'users.role',
      'users.must_change_password',
    ])
    .where('sessions.id', '=', value('sessionId')),
);

/** A session and its user's current state. */
export interface SessionWithUser {
  session_id: string;
  user_id: number;
  revoked_at: number | null;
  email: string;
  full_name: string;
  is_active: number;
  role: 'trader' | 'instructor' | 'admin';
  must_change_password: number;
}

/** One primary-key lookup per authenticated request (prepared: it runs on every call). */
export async function findSessionWithUser(q: Q, sessionId: string): Promise<SessionWithUser | undefined> {
  return (await sessionWithUser.execute(q, { sessionId }))[0];
}

export async function touchSession(q: Q, sessionId: string, now: number): Promise<void> {
  await q.updateTable('sessions').set({ last_refreshed_at: now }).where('id', '=', sessionId).execute();
}

/** Revokes one session if still live; true when this call revoked it. */
export async function revokeSession(q: Q, sessionId: string, reason: SessionEndReason, now: number): Promise<boolean> {
  const result = await q
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes every live session of a user; returns their ids. */
export async function revokeUserSessions(q: Q, userId: number, reason: SessionEndReason, now: number): Promise<string[]> {
  const rows = await q
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function insertRefreshToken(q: Q, token: { id: string; sessionId: string; issuedAt: number; expiresAt: number }) {
  await q
    .insertInto('refresh_tokens')
    .values({ id: token.id, session_id: token.sessionId, issued_at: token.issuedAt, expires_at: token.expiresAt, used_at: null })
    .execute();
}

/**
 * Spends a refresh token: one conditional UPDATE, so of any number of concurrent attempts
 * exactly one gets the row back (PostgreSQL re-checks `used_at IS NULL` after the row lock;
 * SQLite writers are serialized). Undefined: unknown or already spent.
 */
export async function spendRefreshToken(q: Q, tokenId: string, now: number) {
  return q
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('id', '=', tokenId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['session_id'])
    .executeTakeFirst();
}

/** Times of a subject's failures since `since`, oldest first. */
export async function recentLoginFailures(q: Q, scope: LoginFailureScope, subject: string, since: number): Promise<number[]> {
  const rows = await q
    .selectFrom('login_failures')
    .select('failed_at')
    .where('scope', '=', scope)
    .where('subject', '=', subject)
    .where('failed_at', '>', since)
    .orderBy('failed_at')
    .execute();
  return rows.map((r) => r.failed_at);
}

export async function insertLoginFailure(q: Q, scope: LoginFailureScope, subject: string, now: number): Promise<number> {
  const row = await q
    .insertInto('login_failures')
    .values({ scope, subject, failed_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteLoginFailures(q: Q, scope: LoginFailureScope, subject: string): Promise<void> {
  await q.deleteFrom('login_failures').where('scope', '=', scope).where('subject', '=', subject).execute();
}

export async function deleteLoginFailure(q: Q, id: number): Promise<void> {
  await q.deleteFrom('login_failures').where('id', '=', id).execute();
}

/** Forgets failures older than the window (they no longer count). */
export async function pruneLoginFailures(q: Q, before: number): Promise<void> {
  await q.deleteFrom('login_failures').where('failed_at', '<=', before).execute();
}

/**
 * Deletes what no token can use any more: refresh tokens expired or spent before
 * `tokensBefore`, and sessions last refreshed before `sessionsBefore` (every refresh and access
 * token of those has expired, so a token naming one is refused whether or not the row is
 * there). A spent token's row is not needed to catch its reuse: `spendRefreshToken` finds no
 * unspent row either way, and the session ends the same.
 */
export async function pruneDeadSessions(q: Q, tokensBefore: number, sessionsBefore: number): Promise<number> {
  await q
    .deleteFrom('refresh_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', tokensBefore), eb('used_at', '<', tokensBefore)]))
    .execute();
  const result = await q.deleteFrom('sessions').where('last_refreshed_at', '<', sessionsBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The stored secret named `name`, if any node stored one. */
export async function findSecret(q: Q, name: string): Promise<string | undefined> {
  const row = await q.selectFrom('auth_secrets').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Stores `value` unless a secret of that name exists: the first node to start wins, the rest read it. */
export async function insertSecretIfAbsent(q: Q, name: string, value: string, now: number): Promise<void> {
  await q
    .insertInto('auth_secrets')
    .values({ name, value, created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export async function setPasswordHash(q: Q, userId: number, passwordHash: string, now: number): Promise<void> {
  await q.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', userId).execute();
}

/** Sets the password and whether it is a temporary one (docs/academy.md#temporary-passwords). */
export async function setPassword(
  q: Q,
  userId: number,
  password: { hash: string; mustChange: boolean },
  now: number,
): Promise<void> {
  await q
    .updateTable('users')
    .set({ password_hash: password.hash, must_change_password: password.mustChange ? 1 : 0, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

export async function findUserById(q: Q, userId: number) {
  return q.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

/**
 * Users' full names by id, in one query: how other modules show who wrote something (the
 * journal's comments) without reading the users table themselves (docs/ARCHITECTURE.md).
 */
export async function userNamesByIds(q: Q, userIds: readonly number[]): Promise<Map<number, string>> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return new Map();
  const rows = await q.selectFrom('users').select(['id', 'full_name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.full_name]));
}

/** Revokes every live session of a user but one; returns their ids. */
export async function revokeOtherSessions(
  q: Q,
  userId: number,
  keepSessionId: string,
  reason: SessionEndReason,
  now: number,
): Promise<string[]> {
  const rows = await q
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('id', '!=', keepSessionId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function setUserRole(q: Q, userId: number, role: 'trader' | 'instructor' | 'admin', now: number): Promise<void> {
  await q.updateTable('users').set({ role, updated_at: now }).where('id', '=', userId).execute();
}

/** Which of these (lower-cased) e-mails belong to a user. */
export async function existingEmails(q: Q, emails: readonly string[]): Promise<string[]> {
  if (emails.length === 0) return [];
  const rows = await q
    .selectFrom('users')
    .select('email')
    .where('email', 'in', [...emails])
    .execute();
  return rows.map((r) => r.email);
}
