import { type BarSeries, MINUTE_MS } from '../market/index.js';
import type { CurrencyPair } from './types.js';
import { priceAtOrBefore } from './walk.js';

/**
 * The mid of any catalogue pair at session time `t` from the real data, or undefined when no
 * data reaches it: then the caller uses the catalogue's model (DESIGN §19 "from the nearest
 * pairs that have it, else the catalogue's model"; docs/replay.md#conversion).
 *
 * Nearest first: the pair's own file; else its two currencies valued in USD, each from a
 * USD pair (GBPUSD, USDJPY) before a cross (EURJPY with JPY known). Every file counts, not only
 * the session's pairs: a USD account trading EURJPY needs USDJPY's real rate, and those files
 * play the same minutes the session does. A file counts while `t` lies within its data (in
 * its gaps, the price before the gap, as a session's own quote holds it). The prices are the
 * walk's at `t`, the same a session's quotes are built on, so a derived rate never disagrees
 * with a session's ticks.
 */
export function realMidAt(data: ReadonlyMap<string, BarSeries>, pair: CurrencyPair, t: number): number | undefined {
  const own = data.get(pair.symbol);
  if (own && covers(own, t)) return priceAtOrBefore(own, t);
  const usd = usdValuesAt(data, t);
  const base = usd.get(pair.baseCurrency);
  const quote = usd.get(pair.quoteCurrency);
  return base !== undefined && quote !== undefined ? base / quote : undefined;
}

/** Each currency's value in USD that the files reaching `t` give. */
function usdValuesAt(data: ReadonlyMap<string, BarSeries>, t: number): Map<string, number> {
  const usd = new Map<string, number>([['USD', 1]]);
  const mids: Array<{ base: string; quote: string; mid: number }> = [];
  for (const symbol of [...data.keys()].sort()) {
    const series = data.get(symbol)!;
    if (!covers(series, t)) continue;
    const mid = priceAtOrBefore(series, t);
    if (mid !== undefined) mids.push({ base: symbol.slice(0, 3), quote: symbol.slice(3, 6), mid });
  }
  // USD pairs first, then crosses until none adds a currency: the shortest chain wins.
  for (const m of mids) {
    if (m.quote === 'USD' && !usd.has(m.base)) usd.set(m.base, m.mid);
    else if (m.base === 'USD' && !usd.has(m.quote)) usd.set(m.quote, 1 / m.mid);
  }
  for (let progress = true; progress; ) {
    progress = false;
    for (const m of mids) {
      const base = usd.get(m.base);
      const quote = usd.get(m.quote);
      if (base === undefined && quote !== undefined) usd.set(m.base, m.mid * quote);
      else if (quote === undefined && base !== undefined) usd.set(m.quote, base / m.mid);
      else continue;
      progress = true;
    }
  }
  return usd;
}

/** Whether `t` lies within the file's data (from its first bar to the end of its last). */
function covers(series: BarSeries, t: number): boolean {
  return series.length > 0 && t >= series.times[0]! && t <= series.times[series.length - 1]! + MINUTE_MS;
}
