import {
  Dec,
  type PositionSize,
  type PositionSizeQuery,
  positionSizeFromRisk,
  type StopProblem,
  stopDistancePips,
} from '@pipdesk/contract';
import { findTraderAccount } from '../accounts/index.js';
import type { Db } from '../db/database.js';
import { errors, validationFromIssues } from '../errors.js';
import { type PairCatalog, pairDto } from '../market/index.js';
import type { LiveTrading } from '../trading/live/index.js';
import type { Pricing } from '../trading/math.js';
import { activePair } from './drawings.js';

// Position size from risk (docs/charting.md#position-size): the math is the contract's
// `positionSizeFromRisk`, shared with the order ticket; this file finds its inputs.

export interface PositionSizeDeps {
  db: Db;
  pairs: PairCatalog;
  /** Current exact quotes and USD rates, from memory. */
  pricing: Pick<Pricing, 'quote' | 'usdRate'>;
  /** The live book's account figures (equity at the latest prices), from memory. */
  live: Pick<LiveTrading, 'accountFigures'>;
}

const STOP_PROBLEMS: Record<StopProblem, string> = {
  STOP_INSIDE_SPREAD: 'is between the bid and the ask: send side, or a stop below the bid (BUY) or above the ask (SELL)',
  STOP_WRONG_SIDE: 'must be below the ask for a BUY and above the bid for a SELL',
};

/** GET trading/position-size/. */
export async function positionSize(
  deps: PositionSizeDeps,
  userId: number,
  query: PositionSizeQuery,
  /** The account the call names (docs/accounts.md), already checked to be the trader's; else the primary one. */
  accountId?: number,
): Promise<PositionSize> {
  const pair = activePair(deps.pairs, query.symbol);
  // The account row is the one read of the call: it says which account, and its balance is the
  // equity when the live book holds nothing for it (no open position, so nothing to value).
  const account = await findTraderAccount(deps.db.kysely, userId, accountId);
  if (!account) throw accountId === undefined ? errors.noTradingAccount() : errors.accountNotFound();
  const quote = deps.pricing.quote(pair.symbol);
  if (!quote) throw errors.unavailable(`No price yet for ${pair.symbol}`);
  const quoteUsdRate = deps.pricing.usdRate(pair.quoteCurrency);
  if (!quoteUsdRate) throw errors.unavailable(`No price yet to convert ${pair.quoteCurrency} to USD`);

  const stopPips = stopDistance(query, quote, pair.pipSize);

  const live = deps.live.accountFigures(Number(account.id));
  // The equity the trader sees, to the cent: the risk is a share of that figure, so the answer
  // can be checked by hand from the screen (docs/decisions.md).
  const equity = (live?.equity ?? Dec.scaled(Number(account.balance_minor), 2)).round(2);
  const size = positionSizeFromRisk({ equity, riskPct: query.risk_pct, stopPips, pair: pairDto(pair), quoteUsdRate });
  return {
    lots: size.lots.toNumber(2),
    risk_amount: size.riskAmount.toNumber(2),
    pip_value_per_lot: size.pipValuePerLot.toNumber(2),
    stop_pips: stopPips.toNumber(),
  };
}

/** The stop's distance in pips: `stop_pips` as sent, or from `stop_price` and the entry (400 naming it when it protects nothing). */
function stopDistance(query: PositionSizeQuery, quote: { bid: Dec; ask: Dec }, pipSize: number): Dec {
  if (query.stop_price === undefined) return Dec.from(query.stop_pips ?? 0);
  const distance = stopDistancePips(quote, query.stop_price, pipSize, query.side);
  if ('problem' in distance) throw validationFromIssues([{ path: ['stop_price'], message: STOP_PROBLEMS[distance.problem] }]);
  return distance.pips;
}
