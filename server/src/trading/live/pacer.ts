/**
 * Real-time pacing for socket fan-out. Rate limits on what a connection receives are
 * transport pacing, not domain time, so they run on a monotonic clock and real timers
 * (tests may inject their own) rather than on the app's Clock.
 */
export interface Pacing {
  /** Monotonic milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** A real timer, or an immediate for what is due now. */
type RealHandle = { immediate: NodeJS.Immediate } | { timeout: NodeJS.Timeout };

export const realPacing: Pacing = {
  now: () => performance.now(),
  // What is due now runs on this turn's immediates rather than a 1 ms timer. Node stamps each
  // timer with the clock read when it is set, so two pacers set by one tick on either side of a
  // millisecond's edge fired in two turns, and a socket got its P&L and its prices in two
  // writes. Immediates queued by one tick all run in the same turn, and their frames leave
  // together in the next (docs/ARCHITECTURE.md#sockets).
  setTimeout: (fn, ms): RealHandle => (ms <= 0 ? { immediate: setImmediate(fn) } : { timeout: setTimeout(fn, ms) }),
  clearTimeout: (handle) => {
    const h = handle as RealHandle;
    if ('immediate' in h) clearImmediate(h.immediate);
    else clearTimeout(h.timeout);
  },
};

/** Something the pacer flushes: it remembers when it was last sent and whether it waits. */
export interface Paced {
  /** Pacing time of the last flush; -Infinity before the first. */
  lastFlushAt: number;
  /** True while queued, so a burst of changes queues it once. */
  queued: boolean;
}

/**
 * Flushes each queued item at most once per `intervalMs`, as early as allowed: the first
 * change after a quiet period goes out on the next turn (changes of the same turn, e.g. one
 * tick touching many accounts, are batched), later ones wait for the interval to pass.
 * Items queued together stay in phase, so one timer serves them all.
 */
export class Pacer<T extends Paced> {
  private readonly waiting: T[] = [];
  private timer: unknown = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  private readonly due: T[] = [];

  constructor(
    private readonly intervalMs: number,
    /** Receives every item due at once (so a caller can batch per socket); the array is reused. */
    private readonly flush: (items: readonly T[]) => void,
    private readonly pacing: Pacing = realPacing,
  ) {}

  /** Queues an item whose content changed; it is flushed once, however often this is called. */
  request(item: T): void {
    if (item.queued || this.stopped) return;
    item.queued = true;
    this.waiting.push(item);
    this.schedule(Math.max(this.pacing.now(), item.lastFlushAt + this.intervalMs));
  }

  /** Forgets an item (its connection closed); a queued item is skipped at flush time. */
  cancel(item: T): void {
    item.queued = false;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.pacing.clearTimeout(this.timer);
    this.timer = null;
    this.waiting.length = 0;
  }

  private schedule(at: number): void {
    if (at >= this.timerAt) return;
    if (this.timer !== null) this.pacing.clearTimeout(this.timer);
    this.timerAt = at;
    // Rounded up: a timer that fires a fraction early would flush before the interval has passed.
    this.timer = this.pacing.setTimeout(() => this.run(), Math.max(0, Math.ceil(at - this.pacing.now())));
  }

  private run(): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.pacing.now();
    let next = Number.POSITIVE_INFINITY;
    let kept = 0;
    // Compacts the queue in place: due items flush, the rest stay for the next timer.
    for (let i = 0; i < this.waiting.length; i++) {
      const item = this.waiting[i]!;
      if (!item.queued) continue;
      const due = item.lastFlushAt + this.intervalMs;
      if (due <= now) {
        item.queued = false;
        item.lastFlushAt = now;
        this.due.push(item);
      } else {
        this.waiting[kept++] = item;
        if (due < next) next = due;
      }
    }
    this.waiting.length = kept;
    if (kept > 0 && !this.stopped) this.schedule(next);
    try {
      if (this.due.length > 0) this.flush(this.due);
    } finally {
      this.due.length = 0;
    }
  }
}
