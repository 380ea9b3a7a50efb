import { Dec, isLotStep, type OrderSide, type PlaceMarketOrderRequest, type PlaceMarketOrderResponse } from '@pipdesk/contract';
import type { PairCatalog } from '../../market/index.js';
import { checkChallengeOrder } from '../challenge.js';
import type { TradingDeps } from '../deps.js';
import { publishExecutionEffects } from '../events.js';
import { execute } from '../execution.js';
import { centilotsFromLots } from '../math.js';
import {
  checkProtection,
  fieldError,
  hasProtectionValues,
  type ProtectionValues,
  protectionValues,
  storedProtectionOf,
} from '../order-rules.js';
import { executionEvent, filledAnswer, lotsFromCentilotsNumber, rejectionError } from '../presenter.js';
import * as repo from '../repo.js';
import type { AccountId, UserId } from '../types.js';
import { placeWithKey } from './keyed-placement.js';

/** A market order as its call's contract entry reads it (docs/api.md#how-a-call-is-declared). */
export type PlaceOrderInput = PlaceMarketOrderRequest;

export type PlaceOrderResult = PlaceMarketOrderResponse;

/** docs/trading-rules.md validation: 400 and nothing stored. */
export function validateOrder(pairs: PairCatalog, input: PlaceOrderInput) {
  const symbol = input.symbol.trim().toUpperCase();
  const pair = pairs.get(symbol);
  if (!pair?.isActive) throw fieldError('symbol', `${symbol} is not a tradable currency pair`);
  if (input.side !== 'BUY' && input.side !== 'SELL') throw fieldError('side', 'must be BUY or SELL');
  if (!isLotStep(input.quantity)) throw fieldError('quantity', 'must be a positive multiple of 0.01');
  const lots = Dec.from(input.quantity);
  if (lots.lt(pair.minLotSize)) throw fieldError('quantity', `must be at least ${pair.minLotSize}`);
  if (lots.gt(pair.maxLotSize)) throw fieldError('quantity', `must be at most ${pair.maxLotSize}`);
  return { pair, quantityCentilots: centilotsFromLots(lots) };
}

/**
 * Executes a market order for the trader, telling whether the answer is a stored one
 * replayed for an Idempotency-Key. Throws AppError: 400 invalid input (nothing stored), 409
 * no trading account / key in flight, 422 business rejection (the REJECTED order is stored and
 * the error carries `{data:{order}}`) or key reused with another body.
 */
export async function placeMarketOrder(
  deps: Pick<
    TradingDeps,
    'writes' | 'inFlight' | 'pairs' | 'pricing' | 'clock' | 'keyClock' | 'bus' | 'log' | 'metrics' | 'challengeRules'
  >,
  userId: UserId,
  input: PlaceOrderInput,
  idempotencyKey?: string,
  /** The account the call names (docs/accounts.md); the trader's primary one when undefined. */
  accountId?: AccountId,
): Promise<{ response: PlaceOrderResult; replayed: boolean }> {
  const { pair, quantityCentilots } = validateOrder(deps.pairs, input);
  const protection = protectionValues(pair, input);
  const protected_ = hasProtectionValues(protection);
  return placeWithKey(
    deps,
    userId,
    idempotencyKey,
    () => ({
      symbol: pair.symbol,
      side: input.side,
      quantity: lotsFromCentilotsNumber(quantityCentilots),
      // Only when sent, so a plain order's fingerprint is what it always was.
      ...(protected_ ? protectionFingerprint(protection) : {}),
    }),
    {
      marketOrderSymbol: pair.symbol,
      place: async (trx, account, reads) => {
        if (protected_) checkMarketProtection(deps, pair, input.side, protection);
        const positions = reads.positions ?? (await repo.openPositions(trx, Number(account.id)));
        const held = positions.find((p) => p.symbol === pair.symbol);
        const heldCentilots = held ? Number(held.quantity_centilots) : 0;
        checkChallengeOrder(deps.challengeRules, Number(account.id), {
          quantityCentilots,
          hasStopLoss: protection.stopLoss !== null,
          // Against the position held, and not beyond it: it reduces or closes, leaving nothing unprotected.
          onlyReduces:
            (input.side === 'BUY' ? heldCentilots < 0 : heldCentilots > 0) && quantityCentilots <= Math.abs(heldCentilots),
        });
        const execution = await execute(deps, trx, {
          account,
          pair,
          side: input.side,
          quantityCentilots,
          reason: 'client',
          positions,
          statistics: { period: reads.period, pairStats: reads.pairStats },
          ...(protected_ ? { protection: storedProtectionOf(protection) } : {}),
        });
        const answer = execution.kind === 'filled' ? filledAnswer(deps.pricing, execution, Number(account.leverage), pair) : null;
        return { account, execution, answer };
      },
      // A rejection is committed with its order, so a retry of the key answers it again.
      keyAnswer: ({ execution, answer }) =>
        execution.kind === 'rejected' ? { error: rejectionError(execution, pair) } : { data: answer },
      answer: ({ account, execution, answer }): PlaceOrderResult => {
        const event = executionEvent(execution, answer, Number(account.leverage), pair);
        publishExecutionEffects(deps, userId, Number(account.id), execution, event);
        if (execution.kind === 'rejected') throw rejectionError(execution, pair);
        return answer!;
      },
    },
    accountId,
  );
}

export function protectionFingerprint(p: ProtectionValues): Record<string, unknown> {
  return {
    stop_loss: p.stopLoss?.toString() ?? null,
    take_profit: p.takeProfit?.toString() ?? null,
    trailing_stop_pips: p.trailingStopPips,
  };
}

/**
 * The protection a market order carries is for a position on its side (BUY: a long), judged
 * by the price that position closes at now: a long's by the bid, a short's by the ask
 * (docs/orders.md#validation). Without a price the order is rejected anyway (NO_PRICE).
 */
function checkMarketProtection(
  deps: Pick<TradingDeps, 'pricing'>,
  pair: { symbol: string; digits: number },
  side: OrderSide,
  protection: ProtectionValues,
): void {
  const quote = deps.pricing.quote(pair.symbol);
  if (!quote) return;
  const long = side === 'BUY';
  checkProtection(long, long ? quote.bid : quote.ask, protection, long ? 'the bid' : 'the ask', pair.digits);
}
