/** Timers are injected so sources can be driven step by step in tests. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd: a pending price step never keeps a stopping process alive. */
export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/**
 * Timers a test advances by hand together with a ManualClock-like `advance` callback:
 * `runNext()` moves time to the next due timer and fires it.
 */
export class ManualTimers implements Timers {
  private queue: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  constructor(
    private readonly now: () => number,
    private readonly setNow: (ms: number) => void,
  ) {}
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.queue.push({ at: this.now() + Math.max(0, ms), fn, id });
    this.queue.sort((a, b) => a.at - b.at || a.id - b.id);
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((t) => t.id !== handle);
  }
  /** Fires the next timer (moving the clock to it); false when none is pending. */
  runNext(): boolean {
    const t = this.queue.shift();
    if (!t) return false;
    if (t.at > this.now()) this.setNow(t.at);
    t.fn();
    return true;
  }
  get pending(): number {
    return this.queue.length;
  }
}
