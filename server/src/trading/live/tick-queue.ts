import type { Quote } from '../../market/index.js';

// The live book's ticks in slices (docs/operations.md#ticks-in-slices): when they are applied,
// not how. The book says how to start a tick and how to work on it for a budget of positions;
// this queue keeps the ticks in order and gives each turn of the event loop one budget.

/**
 * Positions a tick revalues in one turn of the event loop before it lets requests in: a fifth of
 * a millisecond at the measured ~3 µs each. 64 rather than 256 halved the meter's median and took
 * a few ms off its p99 with 10,000 attempts (bench/README.md, evaluations with ticks in slices).
 */
export const SLICE_POSITIONS = 64;

/**
 * Ticks that may wait behind the one under way before a pair's newer tick replaces its waiting one
 * (`push`): about two a pair, a quarter of a second of a 100-a-second feed at most.
 */
export const MAX_WAITING_TICKS = 24;

/** A tick being worked on: `done` once every position it moves has been revalued. */
export interface TickWork {
  done: boolean;
}

export interface TickSteps<R extends TickWork> {
  /** Applies the tick's price; the work it then needs, or null when it moves no position. */
  start(quote: Quote): R | null;
  /** Works on `run` for at most about `budget` positions; the budget left. */
  slice(run: R, budget: number): number;
}

export class TickQueue<R extends TickWork> {
  private running: R | null = null;
  private readonly waiting: Quote[] = [];
  private working = false;
  private resume: NodeJS.Immediate | null = null;

  constructor(
    private readonly steps: TickSteps<R>,
    /** Positions per turn of the event loop; tests set it small to see slices. */
    private readonly budgetPerTurn = SLICE_POSITIONS,
  ) {}

  /**
   * A tick: applied at once when its turn's budget allows, else in the turns that follow, after
   * the ticks before it. Once `MAX_WAITING_TICKS` wait (the node is falling behind), a pair's newer
   * tick takes the place of that pair's tick still waiting, so the node catches up with the market
   * and the queue stays bounded.
   */
  push(quote: Quote): void {
    if (this.waiting.length >= MAX_WAITING_TICKS && this.replaceWaiting(quote)) return;
    this.waiting.push(quote);
    if (!this.working && !this.resume) this.work();
  }

  /** Ticks received and not yet applied in full: the one under way and those waiting behind it. */
  pending(): number {
    return (this.running ? 1 : 0) + this.waiting.length;
  }

  /** Drops the tick under way and those waiting (the node stops). */
  stop(): void {
    if (this.resume) clearImmediate(this.resume);
    this.resume = null;
    this.running = null;
    this.waiting.length = 0;
  }

  private replaceWaiting(quote: Quote): boolean {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i]!.symbol !== quote.symbol) continue;
      this.waiting[i] = quote;
      return true;
    }
    return false;
  }

  /** One turn: applies the waiting ticks in order until they are done or the turn's budget is spent. */
  private work(): void {
    this.working = true;
    let budget = this.budgetPerTurn;
    try {
      while (budget > 0) {
        if (this.running) {
          budget = this.steps.slice(this.running, budget);
          if (this.running.done) this.running = null;
          continue;
        }
        const quote = this.waiting.shift();
        if (!quote) break;
        this.running = this.steps.start(quote);
      }
    } finally {
      this.working = false;
      // Also after a listener threw: the ticks behind it are still applied, on the next turn.
      if (this.running || this.waiting.length > 0)
        this.resume = setImmediate(() => {
          this.resume = null;
          this.work();
        });
    }
  }
}
