import type { Kysely } from 'kysely';
import { lockTraderAccount, type TradingAccountRow } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import { errors } from '../../errors.js';
import { assertOrdersOpen } from '../challenge.js';
import type { TradingDeps } from '../deps.js';
import { type OrderReads, readAfterLock } from '../order-reads.js';
import type { AccountId, UserId } from '../types.js';
import { idempotentCommand, type KeyAnswer } from './idempotent-command.js';

/** The two halves of a placement that `placeWithKey` runs around the Idempotency-Key. */
export interface PlacementSteps<Placed, Result> {
  /** Inside the write transaction, after the account lock and the key's replay check: stores the order. */
  place: (trx: Kysely<Database>, account: TradingAccountRow, reads: OrderReads) => Promise<Placed>;
  /**
   * The first answer to remember for the key, in the same transaction (its order, or the
   * rejection the placement committed); idempotency.ts writes its envelope.
   */
  keyAnswer: (placed: Placed) => KeyAnswer;
  /** A market order's pair: its reads after the lock go in one statement on PostgreSQL (order-reads.ts). */
  marketOrderSymbol?: string;
  /** After the commit, the key still held: publishes, then answers or throws the rejection. */
  answer: (placed: Placed) => Result;
}

/**
 * Every placement with an optional Idempotency-Key (docs/trading-rules.md#idempotency), through
 * the steps of every keyed write (idempotent-command.ts): the key is the trader's, the lock is
 * the account's the call names (`accountId`, else the trader's primary one), read along with the
 * key's row and, for a market order on PostgreSQL, the order's reads; a first answer replays as
 * 201 or as its rejection. A named account is part of the fingerprint, so a key sent again for
 * another account is a reused key (422), never a replay of the first account's answer.
 */
export async function placeWithKey<Placed, Result>(
  deps: Pick<TradingDeps, 'writes' | 'inFlight' | 'keyClock'>,
  userId: UserId,
  idempotencyKey: string | undefined,
  fingerprint: () => Record<string, unknown>,
  steps: PlacementSteps<Placed, Result>,
  accountId?: AccountId,
): Promise<{ response: Result; replayed: boolean }> {
  return idempotentCommand(deps, idempotencyKey, {
    keyOwner: userId,
    // Only when named, so a primary-account order's fingerprint is what it always was.
    fingerprint: accountId === undefined ? fingerprint : () => ({ ...fingerprint(), account: accountId }),
    okStatus: 201,
    // It locks this user's account first and no other: it may share a transaction (write-batcher.ts).
    write: { user: userId },
    lock: async (trx, key) => {
      const account = await lockTraderAccount(trx, userId, accountId);
      if (!account) throw accountId === undefined ? errors.noTradingAccount() : errors.accountNotFound();
      const reads = await readAfterLock(trx, {
        accountId: Number(account.id),
        userId,
        key,
        marketOrderSymbol: steps.marketOrderSymbol,
      });
      return { account, reads };
    },
    keyRow: ({ reads }) => reads.key,
    run: (trx, { account, reads }) => {
      // After the key's replay: a retry of an order placed before the evaluation ended still replays.
      assertOrdersOpen(account);
      return steps.place(trx, account, reads);
    },
    keyAnswer: steps.keyAnswer,
    answer: steps.answer,
  });
}
