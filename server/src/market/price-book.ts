import type { PriceBook, Quote } from './types.js';

/** The latest quote per symbol, in memory; listeners run synchronously on every tick. */
export class MemoryPriceBook implements PriceBook {
  private readonly quotes = new Map<string, Quote>();
  private readonly listeners = new Set<(quote: Quote) => void>();

  /** A failing listener is reported and never stops the others. */
  constructor(private readonly onListenerError: (err: unknown) => void) {}

  latest(symbol: string): Quote | undefined {
    return this.quotes.get(symbol.toUpperCase());
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

  apply(quote: Quote): void {
    this.quotes.set(quote.symbol, quote);
    for (const listener of this.listeners) {
      try {
        listener(quote);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
