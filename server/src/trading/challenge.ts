import type { TradingAccountRow } from '../accounts/index.js';
import { errors } from '../errors.js';

/**
 * An evaluation account whose attempt has ended (failed or passed) is read-only
 * (docs/evaluations.md#attempts): every order call of its trader answers 409 `CHALLENGE_CLOSED`
 * and stores nothing. The evaluation's own closes and cancels at a breach go through.
 */
export function assertOrdersOpen(account: Pick<TradingAccountRow, 'kind' | 'status'>): void {
  if (account.kind !== 'primary' && account.status === 'CLOSED') throw errors.challengeClosed();
}

/** The order rules of an evaluation account's current phase (docs/evaluations.md#the-rules). */
export interface ChallengeOrderRules {
  requireStopLoss: boolean;
  /** Null: no limit. */
  maxLotsCentilots: number | null;
}

/** Where trading reads them: the evaluations' in-memory book on this node (no database read per order). */
export interface ChallengeRulesSource {
  orderRules(accountId: number): ChallengeOrderRules | undefined;
}

/**
 * An order on an evaluation account meets its phase's order rules, else 400 and nothing stored:
 * above `max_lots` is `MAX_LOTS_EXCEEDED`; with `require_stop_loss`, an order that would leave a
 * position without a stop loss is `STOP_LOSS_REQUIRED` (an order that only reduces or closes a
 * position leaves none).
 */
export function checkChallengeOrder(
  source: ChallengeRulesSource | undefined,
  accountId: number,
  order: { quantityCentilots: number; hasStopLoss: boolean; onlyReduces: boolean },
): void {
  const rules = source?.orderRules(accountId);
  if (!rules) return;
  if (rules.maxLotsCentilots !== null && order.quantityCentilots > rules.maxLotsCentilots) {
    throw errors.maxLotsExceeded((rules.maxLotsCentilots / 100).toFixed(2));
  }
  if (rules.requireStopLoss && !order.hasStopLoss && !order.onlyReduces) throw errors.stopLossRequired();
}

/** With `require_stop_loss`, clearing a stop loss (a position's or a pending order's) is refused. */
export function checkStopLossKept(source: ChallengeRulesSource | undefined, accountId: number, clearing: boolean): void {
  if (clearing && source?.orderRules(accountId)?.requireStopLoss) throw errors.stopLossRequired();
}
