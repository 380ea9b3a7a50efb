import type { Kysely } from 'kysely';
import { lockAccountByUser, type TradingAccountRow } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import { type KeyUse, replay, requestHash, storedAnswerFrom } from '../idempotency.js';
import { type OrderReads, readAfterLock } from '../order-reads.js';
import type { UserId } from '../types.js';

/** The two halves of a placement that `placeWithKey` runs around the Idempotency-Key. */
export interface PlacementSteps<Placed, Result> {
  /**
   * Inside the write transaction, after the account lock and the key's replay check: stores
   * the order and, when `keyUse` is set, remembers its first answer in the same transaction.
   */
  place: (trx: Kysely<Database>, account: TradingAccountRow, keyUse: KeyUse | undefined, reads: OrderReads) => Promise<Placed>;
  /** A market order's pair: its reads after the lock go in one statement on PostgreSQL (order-reads.ts). */
  marketOrderSymbol?: string;
  /** After the commit, the key still held: publishes, then answers or throws the rejection. */
  answer: (placed: Placed) => Result;
}

/**
 * The order of every placement with an optional Idempotency-Key
 * (docs/trading-rules.md#idempotency): fingerprint the validated request, hold the key in
 * this process (409 while it runs, 422 for another body), lock the account (409 without
 * one), replay a stored first answer, else place; the key is released only after the answer
 * has been published. Validation runs before this, so an invalid body stores nothing.
 */
export async function placeWithKey<Placed, Result>(
  deps: Pick<TradingDeps, 'writes' | 'inFlight'>,
  userId: UserId,
  idempotencyKey: string | undefined,
  fingerprint: () => Record<string, unknown>,
  steps: PlacementSteps<Placed, Result>,
): Promise<{ response: Result; replayed: boolean }> {
  const hash = idempotencyKey ? requestHash(fingerprint()) : '';
  const keyUse = idempotencyKey ? { userId, key: idempotencyKey, hash } : undefined;
  const release = keyUse ? deps.inFlight.acquire(userId, keyUse.key, hash) : undefined;
  try {
    const outcome = await deps.writes.run(
      async (trx) => {
        const account = await lockAccountByUser(trx, userId);
        if (!account) throw errors.noTradingAccount();
        const reads = await readAfterLock(trx, {
          accountId: Number(account.id),
          userId,
          key: keyUse?.key,
          marketOrderSymbol: steps.marketOrderSymbol,
        });
        const stored = keyUse && storedAnswerFrom(reads.key, keyUse);
        if (stored) return { kind: 'replay' as const, answer: stored };
        return { kind: 'placed' as const, placed: await steps.place(trx, account, keyUse, reads) };
      },
      // It locks this user's account first and no other: it may share a transaction (write-batcher.ts).
      { user: userId },
    );
    if (outcome.kind === 'replay') return replay<Result>(outcome.answer);
    return { response: steps.answer(outcome.placed), replayed: false };
  } finally {
    release?.();
  }
}
