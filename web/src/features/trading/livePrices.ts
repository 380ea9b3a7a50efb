import type { CurrentPrices, Price } from '@pipdesk/contract';

/** Every symbol's latest price. A new object on every change, so React sees it. */
export type PriceMap = Readonly<Record<string, Price>>;

/**
 * The latest price of every pair, fed by the trading socket's price_update and by the
 * current-prices poll while the socket is down. A quote older than the one held is ignored,
 * so a slow poll answer never steps a price back in time.
 */
export class PriceBoard {
  private prices: PriceMap = {};
  private readonly listeners = new Set<() => void>();

  readonly snapshot = (): PriceMap => this.prices;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  get(symbol: string): Price | undefined {
    return this.prices[symbol];
  }

  /** A whole current-prices answer. */
  applyAll(prices: CurrentPrices): void {
    let next: Record<string, Price> | null = null;
    for (const [symbol, price] of Object.entries(prices)) {
      if (!isNewer(price, this.prices[symbol])) continue;
      next ??= { ...this.prices };
      next[symbol] = price;
    }
    if (next) this.replace(next);
  }

  /** One price_update of the socket (`price` is the mid). */
  apply(update: { symbol: string; price: number; bid: number; ask: number; timestamp: string }): void {
    const price: Price = {
      bid: update.bid,
      ask: update.ask,
      mid: update.price,
      price: update.price,
      timestamp: update.timestamp,
    };
    if (!isNewer(price, this.prices[update.symbol])) return;
    this.replace({ ...this.prices, [update.symbol]: price });
  }

  clear(): void {
    if (Object.keys(this.prices).length > 0) this.replace({});
  }

  private replace(next: PriceMap): void {
    this.prices = next;
    for (const l of [...this.listeners]) l();
  }
}

function isNewer(candidate: Price, held: Price | undefined): boolean {
  if (!held) return true;
  const a = Date.parse(candidate.timestamp);
  const b = Date.parse(held.timestamp);
  if (Number.isNaN(a) || Number.isNaN(b)) return true;
  return a >= b;
}
