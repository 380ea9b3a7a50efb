import type { Pair, Quote } from './types.js';

/** Candle prices are stored as integers: mid × PRICE_SCALE (mids have at most digits + 1 ≤ 6 decimals). */
export const PRICE_SCALE = 1_000_000;

export const toScaled = (price: number): number => Math.round(price * PRICE_SCALE);
export const fromScaled = (scaled: number): number => scaled / PRICE_SCALE;

// Float noise of a product like 1.08412 × 100000 must not push a price across a point.
const EPS = 1e-7;

/**
 * A quote around a model mid: bid rounded down and ask rounded up to the pair's digits, so
 * ask − bid is never below the spread asked for and bid < ask always. The quoted mid is the
 * exact middle of bid and ask (digits + 1 decimals).
 */
export function quoteAround(
  pair: Pick<Pair, 'symbol' | 'digits' | 'pipSize'>,
  modelMid: number,
  spreadPips: number,
  timestamp: number,
): Quote {
  const scale = 10 ** pair.digits;
  const half = (spreadPips * pair.pipSize) / 2;
  const bidPoints = Math.floor((modelMid - half) * scale + EPS);
  let askPoints = Math.ceil((modelMid + half) * scale - EPS);
  if (askPoints <= bidPoints) askPoints = bidPoints + 1;
  return quoteFromPoints(pair.symbol, bidPoints, askPoints, scale, timestamp);
}

/** A quote from a bid and ask that came from elsewhere (the bus, an external feed), at the pair's digits. */
export function quoteFromBidAsk(pair: Pick<Pair, 'symbol' | 'digits'>, bid: number, ask: number, timestamp: number): Quote {
  const scale = 10 ** pair.digits;
  const bidPoints = Math.round(bid * scale);
  // Keeps bid < ask even when a feed quotes a spread finer than the pair's digits.
  const askPoints = Math.max(bidPoints + 1, Math.round(ask * scale));
  return quoteFromPoints(pair.symbol, bidPoints, askPoints, scale, timestamp);
}

function quoteFromPoints(symbol: string, bidPoints: number, askPoints: number, scale: number, timestamp: number): Quote {
  return {
    symbol,
    bid: bidPoints / scale,
    ask: askPoints / scale,
    mid: (bidPoints + askPoints) / (2 * scale),
    timestamp,
  };
}
