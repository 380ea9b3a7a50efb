import { Dec, type DecInput } from './decimal.js';
import { type PairTerms, pipValueUsd, UsdRate } from './trading-math.js';

/**
 * Position size from risk (docs/charting.md#position-size), shared by server and web so the
 * ticket's "Risk %" offers what the server answers. Pure functions over exact decimals.
 */

/** Why a stop price gives no distance; each end words it from its own table. */
export type StopProblem =
  /** No side given and the stop is between the bid and the ask (inclusive): it protects neither side. */
  | 'STOP_INSIDE_SPREAD'
  /** A BUY's stop at or above the ask, or a SELL's at or below the bid. */
  | 'STOP_WRONG_SIDE';

export type StopDistance = { side: 'BUY' | 'SELL'; pips: Dec } | { problem: StopProblem };

/**
 * The distance in pips from the entry (the ask for a BUY, the bid for a SELL, as a market
 * order fills) to `stopPrice`. Without `side`: BUY when the stop is below the bid, SELL when
 * it is above the ask. Exact: pip sizes are powers of ten, so the quotient terminates.
 */
export function stopDistancePips(
  quote: { bid: DecInput; ask: DecInput },
  stopPrice: DecInput,
  pipSize: DecInput,
  side?: 'BUY' | 'SELL',
): StopDistance {
  const bid = Dec.from(quote.bid);
  const ask = Dec.from(quote.ask);
  const stop = Dec.from(stopPrice);
  const chosen = side ?? (stop.lt(bid) ? 'BUY' : stop.gt(ask) ? 'SELL' : undefined);
  if (!chosen) return { problem: 'STOP_INSIDE_SPREAD' };
  const distance = chosen === 'BUY' ? ask.minus(stop) : stop.minus(bid);
  if (distance.sign() <= 0) return { problem: 'STOP_WRONG_SIDE' };
  return { side: chosen, pips: distance.div(pipSize) };
}

export interface PositionSizeInput {
  /** The account's equity in USD (the server passes it rounded to the cent, as the trader sees it). */
  equity: DecInput;
  /** Per cent of equity the trade may lose at the stop, > 0 and ≤ 100. */
  riskPct: DecInput;
  /** The stop's distance from the entry, > 0. */
  stopPips: DecInput;
  pair: Pick<PairTerms, 'pip_size' | 'contract_size' | 'min_lot_size' | 'max_lot_size'>;
  /** USD per unit of the pair's quote currency at current mids. */
  quoteUsdRate: UsdRate | DecInput;
}

export interface PositionSizeResult {
  /** A multiple of 0.01, at most the pair's max lot size; 0 when even its minimum risks more. */
  lots: Dec;
  /** `riskPct` % of equity (0 when equity is not positive): the most the trade may lose at the stop. */
  riskAmount: Dec;
  /** What one pip of one lot is worth in USD. */
  pipValuePerLot: Dec;
}

const LOT_STEP = Dec.from('0.01');

/**
 * The largest multiple of 0.01 lots whose loss at the stop is at most `riskPct` % of equity:
 * loss(lots) = lots × contract size × stop pips × pip size × (quote → USD). The comparison is
 * made without dividing, loss × 100 × (rate's divisor) ≤ equity × risk % × (rate's multiplier)
 * side by side, so a quotient rounded at its last place can never tip a size over the risk.
 * Then capped at the pair's max lot size; below its min lot size the answer is 0 (no size the
 * pair accepts stays within the risk).
 */
export function positionSizeFromRisk(input: PositionSizeInput): PositionSizeResult {
  const { pair } = input;
  const rate = UsdRate.of(input.quoteUsdRate);
  const equity = Dec.from(input.equity);
  const riskPct = Dec.from(input.riskPct);
  const pipValuePerLot = pipValueUsd(pair, 1, rate);
  if (equity.sign() <= 0) return { lots: Dec.ZERO, riskAmount: Dec.ZERO, pipValuePerLot };
  const riskAmount = equity.times(riskPct).div(100);
  // The budget and the loss of one lot, both multiplied through by 100 × the rate's divisor.
  const budget = equity.times(riskPct).times(rate.divide);
  const lossPerLot = Dec.from(input.stopPips).times(pair.pip_size).times(pair.contract_size).times(rate.multiply).times(100);
  const within = (lots: Dec) => lots.times(lossPerLot).lte(budget);
  let lots = budget.div(lossPerLot).round(2, 'floor');
  // The quotient is rounded at its 20th decimal: the step below is the answer if that rounding went up.
  if (!within(lots)) lots = lots.minus(LOT_STEP);
  lots = Dec.min(lots, Dec.from(pair.max_lot_size));
  if (lots.lt(pair.min_lot_size)) lots = Dec.ZERO;
  return { lots, riskAmount, pipValuePerLot };
}
