import { writeTransaction } from '../../db/transaction.js';
import type { TradingDeps } from '../deps.js';
import { IDEMPOTENCY_KEY_TTL_MS } from '../idempotency.js';
import * as repo from '../repo.js';

/** Deletes Idempotency-Keys older than their retention; returns how many. */
export async function purgeIdempotencyKeys(deps: Pick<TradingDeps, 'db' | 'clock'>): Promise<number> {
  return writeTransaction(deps.db, (trx) => repo.deleteIdempotencyKeysBefore(trx, deps.clock.now() - IDEMPOTENCY_KEY_TTL_MS));
}
