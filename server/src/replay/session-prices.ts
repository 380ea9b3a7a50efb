import {
  type BarSeries,
  type PairCatalog,
  type PriceBook,
  type Quote,
  quoteAround,
  REFERENCE_USD_VALUE,
} from '../market/index.js';
import { realMidAt } from './conversion.js';
import type { SessionMarket } from './session-market.js';

/**
 * A session's prices as trading reads them (a `PriceBook`, docs/replay.md#the-accounts-market):
 * its own pairs' last quotes at its clock, and for every other catalogue pair a quote at the
 * real mid at the clock (`realMidAt`), else at the catalogue's model (the reference USD values),
 * so a conversion needs no live price. A conversion quote is one object per clock: trading's
 * `Pricing` caches by quote identity.
 */
export class SessionPriceBook implements PriceBook {
  private readonly converted = new Map<string, Quote | undefined>();
  private convertedAt = Number.NaN;

  constructor(
    private readonly market: SessionMarket,
    private readonly data: ReadonlyMap<string, BarSeries>,
    private readonly pairs: PairCatalog,
  ) {}

  latest(symbol: string): Quote | undefined {
    const s = symbol.toUpperCase();
    if (this.market.symbols.includes(s)) return this.market.quote(s);
    return this.conversion(s);
  }

  /** As fresh as the session's clock: a session's quote is never stale. */
  receivedAt(symbol: string): number | undefined {
    return this.latest(symbol) ? this.market.clock : undefined;
  }

  all(): Quote[] {
    return this.market.symbols.map((s) => this.market.quote(s)).filter((q): q is Quote => q !== undefined);
  }

  /** The session's ticks are played by its driver (replay/sessions.ts), not listened to. */
  onTick(): () => void {
    return () => {};
  }

  private conversion(symbol: string): Quote | undefined {
    const clock = this.market.clock;
    if (clock !== this.convertedAt) {
      this.converted.clear();
      this.convertedAt = clock;
    }
    if (this.converted.has(symbol)) return this.converted.get(symbol);
    const pair = this.pairs.get(symbol);
    let quote: Quote | undefined;
    if (pair) {
      const base = REFERENCE_USD_VALUE[pair.baseCurrency] ?? (pair.baseCurrency === 'USD' ? 1 : undefined);
      const quoted = REFERENCE_USD_VALUE[pair.quoteCurrency] ?? (pair.quoteCurrency === 'USD' ? 1 : undefined);
      const model = base !== undefined && quoted !== undefined ? base / quoted : undefined;
      const mid = realMidAt(this.data, pair, clock) ?? model;
      if (mid !== undefined) quote = quoteAround(pair, mid, pair.spread, clock);
    }
    this.converted.set(symbol, quote);
    return quote;
  }
}
