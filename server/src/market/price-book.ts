import type { PriceBook, Quote } from './types.js';

/**
 * The one staleness rule (docs/trading-rules.md#no-fill-on-a-stale-quote): a quote received at
 * `receivedAt` (this node's clock) is stale at `now` when older than `limitMs`, or never received.
 * Exactly at the limit it still counts, as the feed's `connected` does.
 */
export function isStaleQuote(receivedAt: number | undefined, now: number, limitMs: number): boolean {
  return receivedAt === undefined || now - receivedAt > limitMs;
}

/** The latest quote per symbol, in memory; listeners run synchronously on every tick. */
export class MemoryPriceBook implements PriceBook {
  private readonly quotes = new Map<string, Quote>();
  private readonly arrivals = new Map<string, number>();
  private readonly listeners = new Set<(quote: Quote) => void>();

  /** A failing listener is reported and never stops the others. */
  constructor(private readonly onListenerError: (err: unknown) => void) {}

  latest(symbol: string): Quote | undefined {
    return this.quotes.get(symbol.toUpperCase());
  }

  receivedAt(symbol: string): number | undefined {
    return this.arrivals.get(symbol.toUpperCase());
  }

  all(): Quote[] {
    return [...this.quotes.values()];
  }

  onTick(listener: (quote: Quote) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** `receivedAt`: this node's clock when the tick arrived (the quote's age is judged from it). */
  apply(quote: Quote, receivedAt: number): void {
    this.quotes.set(quote.symbol, quote);
    this.arrivals.set(quote.symbol, receivedAt);
    for (const listener of this.listeners) {
      try {
        listener(quote);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
