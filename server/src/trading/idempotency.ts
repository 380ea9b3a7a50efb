import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { type AppError, errors } from '../errors.js';
import * as repo from './repo.js';

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

/** An Idempotency-Key as a placement sees it: the trader's key and the fingerprint of this request. */
export interface KeyUse {
  userId: number;
  key: string;
  hash: string;
}

/**
 * Inside the placement's transaction, after the account lock: the first answer of a key
 * already used with this request (to replay), nothing for a new key; 422 for another request.
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

/** Records a key's first answer in the placement's own transaction, so it commits with the order or not at all. */
export async function rememberAnswer(
  trx: Kysely<Database>,
  use: KeyUse,
  answer: { status: number; body: string },
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

/** A replayed first answer: the same data again, or the same failure. */
export function replay<T>(answer: StoredAnswer): { response: T; replayed: true } {
  if (answer.status !== 201) throw replayedFailure(answer);
  return { response: answer.body.data as T, replayed: true };
}
