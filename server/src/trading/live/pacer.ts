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

/** Something the pacer flushes: when it was last sent, and whether it waits. */
export interface Paced {
  /** Pacing time of the last flush; -Infinity before the first. */
  lastFlushAt: number;
  /** Pacing time of the flush before the last (read by a pacer that allows two a window). */
  previousFlushAt: number;
  /** True while queued, so a burst of changes queues it once. */
  queued: boolean;
  /**
   * While queued: -Infinity when a change that cannot wait is queued, else the pacing time by
   * which the changes that may wait want to go.
   */
  notBefore: number;
  /** Queued for later than its latest change that cannot wait: the cap holds it back. */
  heldBack: boolean;
  /** Another change that cannot wait came while it was held back: its flush carries several. */
  coalesced: boolean;
  /** Its last flush carried coalesced changes: its changes come steadily, and flushes are spaced. */
  spaced: boolean;
}

/** The pacing state of something never flushed. */
export function unpaced(): Paced {
  return {
    lastFlushAt: Number.NEGATIVE_INFINITY,
    previousFlushAt: Number.NEGATIVE_INFINITY,
    queued: false,
    notBefore: Number.NEGATIVE_INFINITY,
    heldBack: false,
    coalesced: false,
    spaced: false,
  };
}

/**
 * Flushes each queued item as early as its cap allows: at most `burst` flushes of an item in
 * any window of `burst × intervalMs` (the first change after a quiet period goes out on the
 * next turn; changes of the same turn, e.g. one tick touching many accounts, are batched).
 *
 * With `burst` 1 that is one flush per interval. With `burst` 2 (the P&L stream: at most 2 a
 * second) a second change within the interval also goes out at once, so an account moved by
 * two pairs' ticks a few ms apart sees both at once instead of the second half a second late
 * (docs/ARCHITECTURE.md#sockets). But an item whose changes come steadily would then get its
 * flushes in pairs with a gap of nearly the window between them; so once a flush carries
 * changes that waited together (`coalesced`), its item is `spaced`: its flushes keep `intervalMs`
 * apart, as with `burst` 1, until one goes out carrying a single change.
 *
 * A change may also be requested with time to wait (`mayWaitMs`): it goes out with the next
 * change that cannot wait, or after that time. So until then it takes no place of its own in
 * the window that the changes that matter more would need; when it goes alone, its flush
 * counts like any other (the cap is on what the client receives).
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
    /** Flushes allowed in any window of `burst × intervalMs`: 1 or 2. */
    private readonly burst: 1 | 2 = 1,
  ) {}

  /**
   * Queues an item whose content changed; it is flushed once, however often this is called.
   * `mayWaitMs`: the change may wait that long for another to carry it (see the class).
   */
  request(item: T, mayWaitMs = 0): void {
    if (this.stopped) return;
    const now = this.pacing.now();
    if (item.queued) {
      if (mayWaitMs > 0) return; // it goes with what is queued, at the latest when that goes
      if (item.notBefore === Number.NEGATIVE_INFINITY) {
        // Another change that cannot wait, while the cap holds the first back: a steady stream.
        if (item.heldBack) item.coalesced = true;
        return;
      }
      // It was queued by changes that may wait: this one takes them along as early as allowed.
    } else {
      item.queued = true;
      this.waiting.push(item);
    }
    const due = this.dueAt(item);
    item.notBefore = mayWaitMs > 0 ? now + mayWaitMs : Number.NEGATIVE_INFINITY;
    item.heldBack = due > now;
    this.schedule(Math.max(now + mayWaitMs, due));
  }

  /** Forgets an item (its connection closed); a queued item is skipped at flush time. */
  cancel(item: T): void {
    item.queued = false;
    item.coalesced = false;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.pacing.clearTimeout(this.timer);
    this.timer = null;
    this.waiting.length = 0;
  }

  /** The earliest pacing time the item may flush again. */
  private dueAt(item: T): number {
    if (this.burst === 1) return item.lastFlushAt + this.intervalMs;
    const window = item.previousFlushAt + 2 * this.intervalMs;
    return item.spaced ? Math.max(window, item.lastFlushAt + this.intervalMs) : window;
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
      const due = Math.max(this.dueAt(item), item.notBefore);
      if (due <= now) {
        item.queued = false;
        item.spaced = item.coalesced;
        item.coalesced = false;
        item.heldBack = false;
        item.previousFlushAt = item.lastFlushAt;
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
