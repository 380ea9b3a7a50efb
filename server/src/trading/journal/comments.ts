import type { CommentResponse } from '@pipdesk/contract';
import { findAccountByUser } from '../../accounts/index.js';
import { writeTransaction } from '../../db/transaction.js';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import { currentPeriodOf } from '../performance/service.js';
import type { UserId } from '../types.js';
import * as repo from './repo.js';

export interface NewComment {
  /** The trader whose closed trade it is. */
  traderId: UserId;
  tradeId: number;
  author: { id: number; full_name: string };
  /** Already trimmed and within the contract's limit. */
  text: string;
}

const tradeNotFound = () => errors.notFound('Trade not found');

/**
 * Adds an instructor's comment to one of the trader's closed trades (docs/academy.md#comments);
 * the trader's journal shows it from then on, oldest first. A trade that is not one of the
 * trader's closed trades (another trader's, an opening execution, an unknown id) is 404.
 */
export async function addComment(deps: Pick<TradingDeps, 'db' | 'clock'>, input: NewComment): Promise<CommentResponse> {
  const account = await findAccountByUser(deps.db.kysely, input.traderId);
  if (!account) throw tradeNotFound();
  // An account from before the journal gets its entries first (docs/performance.md#the-period).
  await currentPeriodOf(deps, account);
  const now = deps.clock.now();
  const id = await writeTransaction(deps.db, async (trx) => {
    const entry = await repo.lockEntry(trx, deps.db.kind, Number(account.id), input.tradeId);
    if (!entry) throw tradeNotFound();
    return repo.insertComment(trx, {
      trade_id: input.tradeId,
      author_user_id: input.author.id,
      text: input.text,
      created_at: now,
    });
  });
  return { id, trade_id: input.tradeId, author: input.author, text: input.text, created_at: new Date(now).toISOString() };
}
