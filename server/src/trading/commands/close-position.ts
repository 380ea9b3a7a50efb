import { type ClosePositionResponse, Dec, isLotStep } from '@pipdesk/contract';
import { lockTraderAccount } from '../../accounts/index.js';
import { errors } from '../../errors.js';
import { assertOrdersOpen } from '../challenge.js';
import type { TradingDeps } from '../deps.js';
import { publishExecutionEffects } from '../events.js';
import { execute } from '../execution.js';
import { centilotsFromLots, lotsFromCentilots } from '../math.js';
import { fieldError } from '../order-rules.js';
import { closeAnswer, executionEvent, filledAnswer, rejectionError } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, PositionId, UserId } from '../types.js';

export type ClosePositionResult = ClosePositionResponse;

export interface ClosePositionOptions {
  /** The price the trader saw, kept on the order for the record (never executed at). */
  currentPrice?: number;
  /**
   * `stop_out` marks the order as the risk engine's, `challenge_breach` as the evaluation's that
   * ended the attempt (docs/evaluations.md); both work on an account that is no longer active.
   */
  reason: 'client' | 'stop_out' | 'challenge_breach';
  /** Lots to close (docs/orders.md#partial-close): a multiple of 0.01, above 0, at most the position's size; default the whole. */
  quantity?: number;
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId;
}

/**
 * Closes the position, or `quantity` lots of it, at the current bid (long) or ask (short).
 * 404 when it is not the trader's, 409 when already closed, 400 for a quantity it does not
 * have, 422 when no price (stored REJECTED).
 */
export async function closePosition(
  deps: Pick<TradingDeps, 'writes' | 'pairs' | 'pricing' | 'clock' | 'bus' | 'log' | 'metrics'>,
  userId: UserId,
  positionId: PositionId,
  options: ClosePositionOptions,
): Promise<ClosePositionResult> {
  if (!Number.isSafeInteger(positionId) || positionId <= 0) throw errors.positionNotFound();
  const outcome = await deps.writes.run(async (trx) => {
    const account = await lockTraderAccount(trx, userId, options.accountId);
    if (!account) throw errors.positionNotFound();
    if (options.reason === 'client') assertOrdersOpen(account);
    const positions = await repo.openPositions(trx, Number(account.id));
    const target =
      positions.find((p) => Number(p.id) === positionId) ?? (await repo.findPosition(trx, Number(account.id), positionId));
    if (!target) throw errors.positionNotFound();
    if (target.status !== 'OPEN' || Number(target.quantity_centilots) === 0) throw errors.positionClosed();
    const pair = deps.pairs.get(target.symbol);
    if (!pair) throw errors.unavailable(`Currency pair ${target.symbol} is missing from the catalogue`);
    const quantity = Number(target.quantity_centilots);
    const closing = options.quantity === undefined ? Math.abs(quantity) : partialQuantity(options.quantity, quantity);
    const execution = await execute(deps, trx, {
      account,
      pair,
      side: quantity > 0 ? 'SELL' : 'BUY',
      quantityCentilots: closing,
      reason: options.reason === 'client' ? 'close' : options.reason,
      positions,
      target,
      ...(options.currentPrice === undefined ? {} : { clientPrice: options.currentPrice }),
      ignoreAccountStatus: options.reason !== 'client',
    });
    const answer = execution.kind === 'filled' ? filledAnswer(deps.pricing, execution, Number(account.leverage), pair) : null;
    return { account, pair, execution, answer };
  });
  const { account, pair, execution, answer } = outcome;
  const event = executionEvent(execution, answer, Number(account.leverage), pair);
  publishExecutionEffects(deps, userId, Number(account.id), execution, event);
  if (execution.kind === 'rejected') throw rejectionError(execution, pair);
  return closeAnswer(execution, answer!, pair);
}

/** The centilots of a partial close: a multiple of 0.01, above 0, at most the position's size (400 otherwise). */
function partialQuantity(lots: number, positionCentilots: number): number {
  if (!isLotStep(lots)) throw fieldError('quantity', 'must be a positive multiple of 0.01');
  const centilots = centilotsFromLots(Dec.from(lots));
  const size = Math.abs(positionCentilots);
  if (centilots > size) {
    throw fieldError('quantity', `must be at most the position's size (${lotsFromCentilots(size).toString()} lots)`);
  }
  return centilots;
}
