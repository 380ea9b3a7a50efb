import type { OrderSide } from '@pipdesk/contract';
import { expect } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { ScriptedPriceSource } from '../market/sources/scripted.js';
import type { insertSignedInTrader } from './factories.js';
import type { TestApp } from './helpers.js';

/**
 * For API tests that build a history of trades by hand (performance, journal): a scripted
 * price source on a manual clock, and market orders placed through the real call.
 * Test-only: never imported by production code.
 */

export type SignedInTrader = Awaited<ReturnType<typeof insertSignedInTrader>>;

/** A scripted market on a manual clock (by default Monday 5 January 2026, 12:00 UTC). */
export function scriptedMarket(start = Date.UTC(2026, 0, 5, 12, 0, 0)) {
  const prices = new ScriptedPriceSource();
  const clock = new ManualClock(start);
  const last = new Map<string, number>();
  /** Quotes the bid at the clock's time; the ask is one point above (the market keeps bid < ask), so a buy fills one point higher. */
  const quote = (symbol: string, bid: number) => {
    last.set(symbol, bid);
    prices.push({ symbol, bid, ask: bid, timestamp: clock.now() });
  };
  /**
   * Moves the clock on, and the market ticks again at its last prices: an order placed after
   * a jump in time is never judged on a quote older than the stale limit
   * (docs/trading-rules.md#no-fill-on-a-stale-quote), and no price moves.
   */
  const advance = (ms: number) => {
    clock.advance(ms);
    for (const [symbol, bid] of last) quote(symbol, bid);
  };
  return { prices, clock, quote, advance };
}

/**
 * Places a market order through the real call, as the trader, and expects it filled (201);
 * gives the order's id.
 */
export async function placeFilledMarketOrder(
  t: TestApp,
  trader: { headers: { authorization: string } },
  order: { symbol: string; side: OrderSide; quantity: number },
): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/trading/place-market-order/',
    headers: trader.headers,
    payload: order,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.order.id;
}
