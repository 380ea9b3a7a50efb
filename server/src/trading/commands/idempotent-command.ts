import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AppError } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import {
  type KeyUse,
  rememberAnswer,
  replay,
  requestHash,
  storedAnswer,
  storedAnswerFrom,
  storedAnswerOf,
  storedFailure,
} from '../idempotency.js';
import type { IdempotencyRow } from '../repo.js';

/** The answer a retry of the key gets: its data, or the failure the command committed. */
export type KeyAnswer = { data: unknown } | { error: AppError };

/** A write with an optional Idempotency-Key: its parts, which `idempotentCommand` runs in order. */
export interface IdempotentCommand<Locked, Done, Result> {
  /** The caller the key belongs to: keys are scoped to who sends them. */
  keyOwner: number;
  /** The validated request, normalised: a retry must repeat it exactly. Read only when a key is sent. */
  fingerprint: () => Record<string, unknown>;
  /** The status of the command's answer (201 a placement, 200 a reset): a stored answer with another replays as a failure. */
  okStatus: number;
  /** How the write is run (write-batcher.ts: `user`, the one account it locks, lets it share a transaction). */
  write?: { user?: number };
  /** First in the transaction: locks the account the command changes (409 without one) and reads along what it can. */
  lock: (trx: Kysely<Database>, key: string | undefined) => Promise<Locked>;
  /** The key's row when `lock` read it along (order-reads.ts); without this the key is read after the lock. */
  keyRow?: (locked: Locked) => IdempotencyRow | undefined;
  /** The command itself, under the lock, for a new key or none. */
  run: (trx: Kysely<Database>, locked: Locked, keyUse: KeyUse | undefined) => Promise<Done>;
  /** The answer to store for the key; left out when `run` stores it itself (the placements). */
  keyAnswer?: (done: Done) => KeyAnswer;
  /** After the commit, the key still held: publishes, then answers or throws. */
  answer: (done: Done) => Result;
}

/**
 * The steps of every write with an optional Idempotency-Key (docs/trading-rules.md#idempotency),
 * in this order: fingerprint the validated request, hold the key in this process (409 while it
 * runs, 422 for another body), lock, replay a stored first answer, else run and remember the
 * answer in the same transaction; the key is released only after the answer is published.
 * Validation runs before this, so an invalid body stores nothing.
 */
export async function idempotentCommand<Locked, Done, Result>(
  deps: Pick<TradingDeps, 'writes' | 'inFlight' | 'keyClock'>,
  idempotencyKey: string | undefined,
  command: IdempotentCommand<Locked, Done, Result>,
): Promise<{ response: Result; replayed: boolean }> {
  const keyUse = idempotencyKey
    ? { userId: command.keyOwner, key: idempotencyKey, hash: requestHash(command.fingerprint()) }
    : undefined;
  const release = keyUse ? deps.inFlight.acquire(keyUse.userId, keyUse.key, keyUse.hash) : undefined;
  try {
    const outcome = await deps.writes.run(async (trx) => {
      const locked = await command.lock(trx, keyUse?.key);
      if (keyUse) {
        const stored = command.keyRow ? storedAnswerFrom(command.keyRow(locked), keyUse) : await storedAnswerOf(trx, keyUse);
        if (stored) return { kind: 'replay' as const, stored };
      }
      const done = await command.run(trx, locked, keyUse);
      if (keyUse && command.keyAnswer) {
        const answer = command.keyAnswer(done);
        const toStore = 'error' in answer ? storedFailure(answer.error) : storedAnswer(command.okStatus, answer.data);
        await rememberAnswer(trx, keyUse, toStore, deps.keyClock.now());
      }
      return { kind: 'done' as const, done };
    }, command.write);
    if (outcome.kind === 'replay') return replay<Result>(outcome.stored, command.okStatus);
    return { response: command.answer(outcome.done), replayed: false };
  } finally {
    release?.();
  }
}
