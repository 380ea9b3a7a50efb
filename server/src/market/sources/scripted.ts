import type { PriceSource, Quote } from '../types.js';

/**
 * A price source driven by hand (tests, demos): `push` emits a tick as if the market sent it.
 * Pass it as `startTestApp({ priceSource })`; ticks reach the price book, candles and sockets
 * through the same path as the simulator's.
 */
export class ScriptedPriceSource implements PriceSource {
  readonly name: string;
  private emit: ((quote: Quote) => void) | undefined;
  private up = false;
  /** Ticks pushed before start, delivered on start in order. */
  private readonly pending: Quote[] = [];

  constructor(name = 'scripted') {
    this.name = name;
  }

  async start(emit: (quote: Quote) => void): Promise<void> {
    this.emit = emit;
    this.up = true;
    for (const q of this.pending.splice(0)) emit(q);
  }

  async stop(): Promise<void> {
    this.up = false;
    this.emit = undefined;
  }

  connected(): boolean {
    return this.up;
  }

  /** Marks the source up or down without stopping it (for connection-state tests). */
  setConnected(up: boolean): void {
    this.up = up;
  }

  /** Emits a tick; `mid` is computed from bid and ask. */
  push(tick: { symbol: string; bid: number; ask: number; timestamp: number }): void {
    const quote: Quote = { ...tick, mid: (tick.bid + tick.ask) / 2 };
    if (this.emit) this.emit(quote);
    else this.pending.push(quote);
  }
}
