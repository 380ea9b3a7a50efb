import { type LoginResponse, newPasswordSchema, type RefreshResponse, type Role, type UserDto } from '@pipdesk/contract';
import { z } from 'zod';
import type { AppContext } from '../core/context.js';
import { parseInput } from '../core/validate.js';
import { writeTransaction } from '../db/transaction.js';
import { errors } from '../errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import * as repo from './repo.js';
import { createLoginThrottle } from './throttle.js';
import { createTokens, newTokenId } from './tokens.js';
import type { AuthUser } from './types.js';

/** What the auth service needs from the app (the CLI builds the same without Fastify). */
export type AuthDeps = Pick<AppContext, 'config' | 'db' | 'bus' | 'clock' | 'log'>;

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/** E-mails are case-insensitive: stored and compared lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Sign-in, token rotation, logout and per-request token checks (docs/api.md#auth-calls, docs/operations.md#tokens-and-sessions). */
export function createAuthService(deps: AuthDeps) {
  const { config, db, bus, clock } = deps;
  const tokens = createTokens(config, clock);
  const throttle = createLoginThrottle(db, config);
  let lastPrune = Number.NEGATIVE_INFINITY;

  /**
   * Sessions and refresh tokens would otherwise grow forever. At most once an hour per
   * process, a sign-in or a refresh (the calls that add rows) also deletes those that expired,
   * or were spent, more than a day ago (the day keeps the logout grace and clock skew well
   * inside). Any node may do it: the deletes are idempotent.
   */
  async function pruneIfDue(now: number): Promise<void> {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    const lifetime = config.refreshTokenTtlSeconds * 1000;
    try {
      await writeTransaction(db, (trx) => repo.pruneDeadSessions(trx, now - DAY_MS, now - lifetime - DAY_MS));
    } catch (err) {
      // The sign-in itself is committed; housekeeping failing must not turn it into an error.
      deps.log.warn({ err }, 'pruning expired sessions failed');
    }
  }

  async function issue(userId: number, sessionId: string, refreshTokenId: string) {
    const [access, refresh] = await Promise.all([
      tokens.sign('access', userId, sessionId),
      tokens.sign('refresh', userId, sessionId, refreshTokenId),
    ]);
    return { access: access.token, refresh: refresh.token };
  }

  function ended(sessionIds: string[]): void {
    for (const sessionId of sessionIds) bus.publish('session_revoked', { sessionId });
  }

  /** Any failure is the same 401 (or the same 429), whether or not the e-mail exists. */
  async function login(emailAsTyped: string, password: string, address: string): Promise<LoginResponse> {
    const email = normalizeEmail(emailAsTyped);
    const reservation = await throttle.reserve(email, address, clock.now());
    if (!reservation.allowed) throw errors.tooManyRequests(reservation.retryAfterSeconds);

    const user = await repo.findUserByEmail(db.kysely, email);
    // Unknown e-mail: verifyPassword hashes against a dummy, so the timing matches a real account.
    const passwordOk = await verifyPassword(password, user?.password_hash);
    if (!user || !passwordOk || user.is_active !== 1) throw errors.invalidCredentials();

    const now = clock.now();
    const sessionId = newTokenId();
    const refreshTokenId = newTokenId();
    await writeTransaction(db, async (trx) => {
      await throttle.succeeded(trx, reservation.ticket);
      await repo.insertSession(trx, { id: sessionId, userId: user.id, now });
      await repo.insertRefreshToken(trx, {
        id: refreshTokenId,
        sessionId,
        issuedAt: now,
        expiresAt: now + config.refreshTokenTtlSeconds * 1000,
      });
    });
    const issued = await issue(user.id, sessionId, refreshTokenId);
    await pruneIfDue(now);
    return {
      token: issued.access,
      refresh: issued.refresh,
      user: { id: user.id, email: user.email, full_name: user.full_name },
      expires_in: config.accessTokenTtlSeconds,
      must_change_password: user.must_change_password === 1,
    };
  }

  /**
   * Rotates a refresh token. Single use: a token that was already spent (or belongs to a
   * revoked session) is treated as stolen and ends its whole session family. Concurrent
   * refreshes of one token count as reuse too: one wins, the family then ends.
   */
  async function refresh(refreshToken: string): Promise<RefreshResponse> {
    const claims = await tokens.verify(refreshToken, 'refresh');
    const now = clock.now();
    const outcome = await writeTransaction(db, async (trx) => {
      const spent = await repo.spendRefreshToken(trx, claims.tokenId, now);
      const session = await repo.findSessionWithUser(trx, claims.sessionId);
      const live =
        spent !== undefined &&
        spent.session_id === claims.sessionId &&
        session !== undefined &&
        session.revoked_at === null &&
        session.is_active === 1 &&
        Number(session.user_id) === claims.userId;
      if (!live) {
        const reason = session && session.is_active !== 1 ? 'user_disabled' : 'refresh_reuse';
        const revoked = await repo.revokeSession(trx, claims.sessionId, reason, now);
        return { ok: false as const, revoked };
      }
      const nextTokenId = newTokenId();
      await repo.insertRefreshToken(trx, {
        id: nextTokenId,
        sessionId: claims.sessionId,
        issuedAt: now,
        expiresAt: now + config.refreshTokenTtlSeconds * 1000,
      });
      await repo.touchSession(trx, claims.sessionId, now);
      return { ok: true as const, nextTokenId };
    });
    if (!outcome.ok) {
      if (outcome.revoked) ended([claims.sessionId]);
      throw errors.invalidToken();
    }
    const issued = await issue(claims.userId, claims.sessionId, outcome.nextTokenId);
    await pruneIfDue(now);
    return issued;
  }

  /**
   * Ends the session of the bearer token and of the given refresh token. Never fails: a
   * token that is invalid or already ended is simply ignored. A recently expired token still
   * ends its session (the browser may log out after its access token lapsed).
   */
  async function logout(bearer: string | undefined, refreshToken: string | undefined): Promise<void> {
    const grace = config.refreshTokenTtlSeconds;
    const sessionIds = new Set<string>();
    const candidates: Array<[string | undefined, 'access' | 'refresh']> = [
      [bearer, 'access'],
      [refreshToken, 'refresh'],
    ];
    for (const [token, type] of candidates) {
      if (!token) continue;
      try {
        sessionIds.add((await tokens.verify(token, type, grace)).sessionId);
      } catch {
        // ignored: logout always succeeds
      }
    }
    if (sessionIds.size === 0) return;
    const now = clock.now();
    const revoked = await writeTransaction(db, async (trx) => {
      const done: string[] = [];
      for (const id of sessionIds) if (await repo.revokeSession(trx, id, 'logout', now)) done.push(id);
      return done;
    });
    ended(revoked);
  }

  /** Signature, algorithm, expiry, type, then the session and the user as they are right now. */
  async function verifyAccessToken(token: string): Promise<AuthUser> {
    const claims = await tokens.verify(token, 'access');
    const session = await repo.findSessionWithUser(db.kysely, claims.sessionId);
    if (!session || session.revoked_at !== null || session.is_active !== 1 || Number(session.user_id) !== claims.userId) {
      throw errors.invalidToken();
    }
    return {
      userId: claims.userId,
      email: session.email,
      fullName: session.full_name,
      sessionId: claims.sessionId,
      expiresAt: claims.expiresAt,
      role: session.role,
      mustChangePassword: session.must_change_password === 1,
    };
  }

  /**
   * Changes the caller's password (docs/academy.md#temporary-passwords): the current one must
   * match (a wrong one counts as a failed sign-in of the account, so this is no way round the
   * login throttle), the temporary-password flag is cleared and every other session of the user
   * ends on every node; the caller's own session goes on.
   */
  async function changePassword(
    caller: AuthUser,
    currentPassword: string,
    newPassword: string,
    address: string,
  ): Promise<{ endedSessions: number }> {
    const reservation = await throttle.reserve(caller.email, address, clock.now());
    if (!reservation.allowed) throw errors.tooManyRequests(reservation.retryAfterSeconds);
    const user = await repo.findUserById(db.kysely, caller.userId);
    const passwordOk = await verifyPassword(currentPassword, user?.password_hash);
    if (!user || !passwordOk) {
      throw errors.validation('current_password: is not your current password', [
        { field: 'current_password', message: 'is not your current password' },
      ]);
    }
    // Hash before the transaction: scrypt takes a few hundred ms and must not hold the write lock.
    const hash = await hashPassword(newPassword);
    const now = clock.now();
    const revoked = await writeTransaction(db, async (trx) => {
      await throttle.succeeded(trx, reservation.ticket);
      await repo.setPassword(trx, caller.userId, { hash, mustChange: false }, now);
      return repo.revokeOtherSessions(trx, caller.userId, caller.sessionId, 'password_changed', now);
    });
    ended(revoked);
    return { endedSessions: revoked.length };
  }

  return { login, refresh, logout, verifyAccessToken, changePassword };
}

export type AuthService = ReturnType<typeof createAuthService>;

/** The signed-in trader as the API shows them. */
export function userDto(user: AuthUser): UserDto {
  return { id: user.userId, email: user.email, full_name: user.fullName };
}

/**
 * Disables a trader and ends all their sessions at once: their access tokens fail on the
 * next request (every request checks its session in the database, which is what another
 * process, such as the CLI, can reach) and `user_disabled` tells sockets to close.
 */
export async function disableTrader(
  deps: Pick<AppContext, 'db' | 'bus' | 'clock'>,
  emailAsTyped: string,
): Promise<{ userId: number; email: string; wasActive: boolean; endedSessions: number }> {
  const email = normalizeEmail(emailAsTyped);
  const now = deps.clock.now();
  const result = await writeTransaction(deps.db, async (trx) => {
    const user = await repo.findUserByEmail(trx, email);
    if (!user) return undefined;
    await repo.setUserActive(trx, user.id, false, now);
    const sessions = await repo.revokeUserSessions(trx, user.id, 'user_disabled', now);
    return { userId: user.id, email: user.email, wasActive: user.is_active === 1, sessions };
  });
  if (!result) throw errors.traderNotFound(email);
  deps.bus.publish('user_disabled', { userId: result.userId });
  for (const sessionId of result.sessions) deps.bus.publish('session_revoked', { sessionId });
  return { userId: result.userId, email: result.email, wasActive: result.wasActive, endedSessions: result.sessions.length };
}

/** Lets a disabled trader sign in again (`npm run trader -- enable`); their old sessions stay ended. */
export async function enableTrader(
  deps: Pick<AppContext, 'db' | 'clock'>,
  emailAsTyped: string,
): Promise<{ userId: number; email: string; wasActive: boolean }> {
  const email = normalizeEmail(emailAsTyped);
  const result = await writeTransaction(deps.db, async (trx) => {
    const user = await repo.findUserByEmail(trx, email);
    if (!user) return undefined;
    await repo.setUserActive(trx, user.id, true, deps.clock.now());
    return { userId: user.id, email: user.email, wasActive: user.is_active === 1 };
  });
  if (!result) throw errors.traderNotFound(email);
  return result;
}

/**
 * Sets a new password (`npm run trader -- reset-password`, docs/operations.md#passwords) and ends
 * every session of the trader on every node: whoever knew the old password is signed out.
 */
export async function resetPassword(
  deps: Pick<AppContext, 'db' | 'bus' | 'clock'>,
  emailAsTyped: string,
  newPassword: string,
): Promise<{ userId: number; email: string; endedSessions: number }> {
  const email = normalizeEmail(emailAsTyped);
  const password = parseInput(z.strictObject({ password: newPasswordSchema }), { password: newPassword }).password;
  const passwordHash = await hashPassword(password);
  const now = deps.clock.now();
  const result = await writeTransaction(deps.db, async (trx) => {
    const user = await repo.findUserByEmail(trx, email);
    if (!user) return undefined;
    await repo.setPasswordHash(trx, user.id, passwordHash, now);
    const sessions = await repo.revokeUserSessions(trx, user.id, 'password_reset', now);
    return { userId: user.id, email: user.email, sessions };
  });
  if (!result) throw errors.traderNotFound(email);
  for (const sessionId of result.sessions) deps.bus.publish('session_revoked', { sessionId });
  return { userId: result.userId, email: result.email, endedSessions: result.sessions.length };
}

/**
 * Gives a user a role (`npm run trader -- role`, docs/academy.md#roles). Every request reads the
 * role from the database, so it applies at the user's next call on every node, without signing in again.
 */
export async function setRole(
  deps: Pick<AppContext, 'db' | 'clock'>,
  emailAsTyped: string,
  role: Role,
): Promise<{ userId: number; email: string; previous: Role; role: Role }> {
  const email = normalizeEmail(emailAsTyped);
  const result = await writeTransaction(deps.db, async (trx) => {
    const user = await repo.findUserByEmail(trx, email);
    if (!user) return undefined;
    if (user.role !== role) await repo.setUserRole(trx, user.id, role, deps.clock.now());
    return { userId: Number(user.id), email: user.email, previous: user.role, role };
  });
  if (!result) throw errors.traderNotFound(email);
  return result;
}
