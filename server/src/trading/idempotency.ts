import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '@pipdesk/contract';
import { AppError, errors } from '../errors.js';

/** Keys are kept at least this long (DESIGN §9: ≥ 24 h); older ones are purged. */
export const IDEMPOTENCY_KEY_TTL_MS = 25 * 60 * 60 * 1000;

/** Reads the optional `Idempotency-Key` header: 1 to 255 visible characters, else 400. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header))
    throw errors.validation('Idempotency-Key: send the header once', [
      { field: 'Idempotency-Key', message: 'send the header once' },
    ]);
  const key = header.trim();
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    const message = `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`;
    throw errors.validation(`Idempotency-Key: ${message}`, [{ field: 'Idempotency-Key', message }]);
  }
  return key;
}

/** The fingerprint of an order request: a retry must repeat it exactly (after normalisation). */
export function requestHash(request: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(request)
      .sort()
      .map((k) => [k, request[k]]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

export const keyReused = () =>
  errors.unprocessable('This Idempotency-Key was already used with a different request', 'IDEMPOTENCY_KEY_REUSED');

export const keyInFlight = () =>
  errors.conflict('A request with this Idempotency-Key is still being processed; retry shortly', 'IDEMPOTENCY_KEY_IN_FLIGHT');

/** The stored first answer of a key, replayed to a retry. */
export interface StoredAnswer {
  status: number;
  body: { success: boolean; data?: unknown; error?: string; code?: string };
}

/** Rebuilds the stored failure of a replayed key as the same error. */
export function replayedFailure(answer: StoredAnswer): AppError {
  const { body } = answer;
  return new AppError(
    answer.status,
    body.code ?? 'UNPROCESSABLE',
    body.error ?? 'Order rejected',
    undefined,
    body.data === undefined ? undefined : { data: body.data },
    { 'idempotent-replayed': 'true' },
  );
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
