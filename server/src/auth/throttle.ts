import { type Kysely, sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { writeTransaction } from '../db/transaction.js';
import * as repo from './repo.js';

export interface ThrottleSettings {
  loginMaxFailuresPerAccount: number;
  loginMaxFailuresPerAddress: number;
  loginThrottleWindowSeconds: number;
}

/** A sign-in attempt allowed to proceed; it already counts as a failure until `succeeded` says otherwise. */
export interface AttemptTicket {
  account: string;
  addressFailureId: number;
}

export type Reservation = { allowed: true; ticket: AttemptTicket } | { allowed: false; retryAfterSeconds: number };

/**
 * Throttling of failed sign-ins per account and per client address, counted in the database
 * (sliding window) so a restart does not reset it. The account is the e-mail as typed,
 * whether or not such a user exists, so the answers never reveal which e-mails exist.
 *
 * An attempt is recorded as a failure *before* the password is checked and withdrawn when it
 * succeeds: concurrent guesses cannot all slip in before the first failure is written.
 */
export function createLoginThrottle(db: Db, settings: ThrottleSettings) {
  const windowMs = settings.loginThrottleWindowSeconds * 1000;

  /** Seconds until the failures in the window drop below `max` (0 when already below). */
  function waitSeconds(failures: number[], max: number, now: number): number {
    if (failures.length < max) return 0;
    const freesAt = failures[failures.length - max]! + windowMs;
    return Math.max(1, Math.ceil((freesAt - now) / 1000));
  }

  async function lock(trx: Kysely<Database>, key: string): Promise<void> {
    // SQLite's BEGIN IMMEDIATE already serializes writers; PostgreSQL counts-then-inserts
    // under a per-subject advisory lock (always account before address: no lock cycles).
    if (db.kind === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
  }

  async function reserve(account: string, address: string, now: number): Promise<Reservation> {
    return writeTransaction(db, async (trx) => {
      await lock(trx, `login:account:${account}`);
      await lock(trx, `login:address:${address}`);
      const since = now - windowMs;
      await repo.pruneLoginFailures(trx, since);
      const byAccount = await repo.recentLoginFailures(trx, 'account', account, since);
      const byAddress = await repo.recentLoginFailures(trx, 'address', address, since);
      const wait = Math.max(
        waitSeconds(byAccount, settings.loginMaxFailuresPerAccount, now),
        waitSeconds(byAddress, settings.loginMaxFailuresPerAddress, now),
      );
      if (wait > 0) return { allowed: false, retryAfterSeconds: wait };
      await repo.insertLoginFailure(trx, 'account', account, now);
      const addressFailureId = await repo.insertLoginFailure(trx, 'address', address, now);
      return { allowed: true, ticket: { account, addressFailureId } };
    });
  }

  /** A successful sign-in clears the account's failures and withdraws its own from the address. Run in the caller's write transaction. */
  async function succeeded(trx: Kysely<Database>, ticket: AttemptTicket): Promise<void> {
    await repo.deleteLoginFailures(trx, 'account', ticket.account);
    await repo.deleteLoginFailure(trx, ticket.addressFailureId);
  }

  return { reserve, succeeded };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
