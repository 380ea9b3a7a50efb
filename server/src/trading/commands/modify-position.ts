import type { ModifyPositionRequest, ModifyPositionResponse } from '@pipdesk/contract';
import { lockTraderAccount } from '../../accounts/index.js';
import { errors } from '../../errors.js';
import { assertOrdersOpen, checkStopLossKept } from '../challenge.js';
import type { TradingDeps } from '../deps.js';
import { publishEngineChanges, publishPositionProtection } from '../events.js';
import { storedProtection } from '../execution.js';
import { valuePosition } from '../math.js';
import { checkProtection, exactPrice, storedProtectionOf } from '../order-rules.js';
import { positionDto, protectionChange } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, PositionId, UserId } from '../types.js';

export type ModifyPositionInput = ModifyPositionRequest;

/**
 * Sets or clears an open position's protection (docs/orders.md#protection-on-positions): fields left out
 * keep their value, null clears. A new stop loss or take profit is checked against the price
 * the position closes at now (a long's bid, a short's ask). 404 when it is not the trader's,
 * 409 when closed, 400 naming the field (nothing stored), 503 without a price to check against.
 * Every change bumps the position's `protection_version` (docs/order-engine.md#the-engine): a
 * trigger the engine decided on the protection before it is then stale.
 */
export async function modifyPosition(
  deps: Pick<TradingDeps, 'writes' | 'pairs' | 'pricing' | 'clock' | 'bus' | 'log' | 'challengeRules'>,
  userId: UserId,
  positionId: PositionId,
  input: ModifyPositionInput,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
): Promise<ModifyPositionResponse> {
  if (!Number.isSafeInteger(positionId) || positionId <= 0) throw errors.positionNotFound();
  const outcome = await deps.writes.run(async (trx) => {
    const account = await lockTraderAccount(trx, userId, accountId);
    if (!account) throw errors.positionNotFound();
    assertOrdersOpen(account);
    checkStopLossKept(deps.challengeRules, Number(account.id), input.stop_loss === null);
    const row = await repo.findPosition(trx, Number(account.id), positionId);
    if (!row) throw errors.positionNotFound();
    if (row.status !== 'OPEN' || Number(row.quantity_centilots) === 0) throw errors.positionClosed();
    const pair = deps.pairs.get(row.symbol);
    if (!pair) throw errors.unavailable(`Currency pair ${row.symbol} is missing from the catalogue`);
    const long = Number(row.quantity_centilots) > 0;
    const given = {
      stopLoss: input.stop_loss == null ? null : exactPrice(pair, 'stop_loss', input.stop_loss),
      takeProfit: input.take_profit == null ? null : exactPrice(pair, 'take_profit', input.take_profit),
      trailingStopPips: input.trailing_stop_pips ?? null,
    };
    if (given.stopLoss !== null || given.takeProfit !== null) {
      const quote = deps.pricing.quote(pair.symbol);
      if (!quote) throw errors.unavailable(`No price yet for ${pair.symbol}: protection is checked against the current price`);
      checkProtection(long, long ? quote.bid : quote.ask, given, long ? 'the bid' : 'the ask', pair.digits);
    }
    const kept = storedProtection(row);
    const changed = storedProtectionOf(given);
    const protection = {
      stop_loss_e10: input.stop_loss === undefined ? kept.stop_loss_e10 : changed.stop_loss_e10,
      take_profit_e10: input.take_profit === undefined ? kept.take_profit_e10 : changed.take_profit_e10,
      trailing_stop_pips: input.trailing_stop_pips === undefined ? kept.trailing_stop_pips : changed.trailing_stop_pips,
    };
    const updated = await repo.updatePositionProtection(trx, positionId, protection, deps.clock.now());
    if (!updated) throw errors.positionClosed();
    return { account, pair, before: repo.positionStateFromRow(row), after: repo.positionStateFromRow(updated) };
  });
  const { account, pair, before, after } = outcome;
  const position = positionDto(after, valuePosition(after, Number(account.leverage), deps.pricing), pair);
  // Left out, the stop loss kept is the stored one, which may be behind a trailing stop the engine
  // moved in memory: the engine keeps its own then (a trailing stop never moves back).
  const change = protectionChange(before, after, userId, input.stop_loss !== undefined);
  if (change) publishEngineChanges(deps, [change]);
  publishPositionProtection(deps, {
    userId,
    accountId: Number(account.id),
    positionId,
    stopLoss: after.stopLoss ?? null,
    takeProfit: after.takeProfit ?? null,
    trailingStopPips: after.trailingStopPips ?? null,
    position,
  });
  return { position };
}
