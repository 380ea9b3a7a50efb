import { createHash } from 'node:crypto';
import type { Envelope } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { type AppError, errorEnvelope, errors } from '../errors.js';
import * as repo from './repo.js';

// The Idempotency-Key's storage (docs/trading-rules.md#idempotency): a key's fingerprint, the
// keys this process runs, and its first answer, stored as the client got it. The steps of a
// keyed write, in their order, are commands/idempotent-command.ts.

/** Keys are kept at least this long (docs/trading-rules.md#idempotency: ≥ 24 h); older ones are purged. */
export const IDEMPOTENCY_KEY_TTL_MS = 25 * 60 * 60 * 1000;

/** The fingerprint of an order request: a retry must repeat it exactly (after normalisation). */
export function requestHash(request: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(request)
      .sort()
      .map((k) => [k, request[k]]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

export const keyReused = () => errors.idempotencyKeyReused();

export const keyInFlight = () => errors.idempotencyKeyInFlight();

/** The stored first answer of a key, replayed to a retry. */
export interface StoredAnswer {
  status: number;
  body: { success: boolean; data?: unknown; error?: string; code?: string };
}

/** A first answer as it is stored: its status and the JSON of the body the client got. */
export interface AnswerToStore {
  status: number;
  body: string;
}

/**
 * The stored form of a first answer that succeeded: the envelope the call answered with
 * (docs/api.md), so a retry gets the same bytes whichever release stored it. Commands hand over
 * their data; only this module writes the envelope of what it stores.
 */
export function storedAnswer(status: number, data: unknown): AnswerToStore {
  const body: Envelope<unknown> = { success: true, data };
  return { status, body: JSON.stringify(body) };
}

/** The stored form of a first answer that failed (a committed rejection): the failure envelope of errors.ts. */
export function storedFailure(error: AppError): AnswerToStore {
  return { status: error.status, body: JSON.stringify(errorEnvelope(error)) };
}

/** Rebuilds the stored failure of a replayed key as the same error. */
export function replayedFailure(answer: StoredAnswer): AppError {
  return errors.replayed(answer.status, answer.body);
}

/**
 * Keys being executed by this process right now: a concurrent retry answers 409 at once
 * instead of queueing behind the first. (Across processes the account row lock orders
 * them and the later one replays the stored answer.)
 */
export class InFlightKeys {
  private readonly running = new Map<string, string>();

  /** Marks the key as running; returns the release function. Throws 409 (same request) or 422 (another request). */
  acquire(userId: number, key: string, hash: string): () => void {
    const id = `${userId}\u0000${key}`;
    const running = this.running.get(id);
    if (running !== undefined) throw running === hash ? keyInFlight() : keyReused();
    this.running.set(id, hash);
    return () => this.running.delete(id);
  }
}

/** An Idempotency-Key as a keyed write sees it: the caller's key and the fingerprint of this request. */
export interface KeyUse {
  userId: number;
  key: string;
  hash: string;
}

/**
 * Inside the write's transaction, after its lock: the first answer of a key already used with
 * this request (to replay), nothing for a new key; 422 for another request.
 */
export async function storedAnswerOf(trx: Kysely<Database>, use: KeyUse): Promise<StoredAnswer | undefined> {
  return storedAnswerFrom(await repo.findIdempotencyKey(trx, use.userId, use.key), use);
}

/** The same from the key's row, read already (order-reads.ts). */
export function storedAnswerFrom(stored: repo.IdempotencyRow | undefined, use: KeyUse): StoredAnswer | undefined {
  if (!stored) return undefined;
  if (stored.request_hash !== use.hash) throw keyReused();
  return { status: stored.response_status, body: JSON.parse(stored.response_body) };
}

/** Records a key's first answer in the write's own transaction, so it commits with the write or not at all. */
export async function rememberAnswer(
  trx: Kysely<Database>,
  use: KeyUse,
  answer: AnswerToStore,
  createdAt: number,
): Promise<void> {
  await repo.insertIdempotencyKey(trx, {
    user_id: use.userId,
    idempotency_key: use.key,
    request_hash: use.hash,
    response_status: answer.status,
    response_body: answer.body,
    created_at: createdAt,
  });
}

/** A replayed first answer: the same data again when it was the call's success (`okStatus`), else the same failure. */
export function replay<T>(answer: StoredAnswer, okStatus: number): { response: T; replayed: true } {
  if (answer.status !== okStatus) throw replayedFailure(answer);
  return { response: answer.body.data as T, replayed: true };
}
