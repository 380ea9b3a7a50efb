import type { FastifyBaseLogger } from 'fastify';

/** Where a node stands: only a leader whose book is loaded acts on ticks. */
export type LeaderMode = 'follower' | 'loading' | 'leading';

export interface LeaderLoadHooks<Change, Loaded> {
  /** Names the book in log lines ("order engine", "alerts"). */
  name: string;
  /** What a load reads, for its failure's log line ("the armed orders"). */
  contents: string;
  isLeader(): boolean;
  now(): number;
  log: FastifyBaseLogger;
  /** How long to wait after a failed load before the next try (ms). */
  retryAfterMs: number;
  /** Reads the whole book from the database. */
  read(): Promise<Loaded>;
  /** Replaces the book with what was read; returns what the "leading" log line reports. */
  install(loaded: Loaded): Record<string, unknown>;
  /** Applies a change from the bus that arrived while the book loaded, in arrival order. */
  apply(change: Change): void;
  /** Leadership went to another node: forget what only a leader acts on. */
  lost(): void;
}

/**
 * The leadership of a book held in memory on the price-source leader (the order engine's
 * trigger book, the alerts' book; docs/order-engine.md#the-engine): a node that becomes the
 * leader loads the book from the database before it acts, buffering the bus's changes that
 * arrive meanwhile; a load that finishes after leadership changed again is dropped; a failed
 * load is retried after `retryAfterMs`; a node that stops leading forgets what it held.
 */
export class LeaderLoad<Change, Loaded> {
  private current: LeaderMode = 'follower';
  /** Bumped on every change of leadership: a load that finishes for an older one is dropped. */
  private generation = 0;
  /** Changes that arrive while the book loads, applied after it in arrival order. */
  private buffered: Change[] | null = null;
  private retryAt = 0;
  private loading: Promise<void> | undefined;
  private halted = false;

  constructor(private readonly hooks: LeaderLoadHooks<Change, Loaded>) {}

  get mode(): LeaderMode {
    return this.current;
  }

  /** Changes with every change of leadership: work begun under an older one is not applied. */
  get term(): number {
    return this.generation;
  }

  /** The load in progress, if any (start and stop wait for it). */
  get settled(): Promise<void> {
    return this.loading ?? Promise.resolve();
  }

  /** Read on every tick and timer: follows the market's leadership, loading or forgetting the book. */
  check(): void {
    if (this.halted) return;
    const leader = this.hooks.isLeader();
    if (leader && this.current === 'follower' && this.hooks.now() >= this.retryAt) this.load();
    else if (!leader && this.current !== 'follower') {
      this.generation++;
      this.current = 'follower';
      this.buffered = null;
      this.hooks.lost();
      this.hooks.log.info(`${this.hooks.name}: no longer the leader`);
    }
  }

  /** Loads the book again (after a bus outage hid changes); a no-op unless leading or loading. */
  reload(): void {
    if (!this.halted && this.current !== 'follower') this.load();
  }

  /** Keeps a change from the bus for after the load; false when none is loading (apply it now). */
  buffer(change: Change): boolean {
    if (!this.buffered) return false;
    this.buffered.push(change);
    return true;
  }

  /** No more loads or leadership changes; waits for a load in progress. */
  async halt(): Promise<void> {
    this.halted = true;
    await this.settled;
  }

  /** After `halt` and the owner's last writes: this node holds nothing any more. */
  rest(): void {
    this.current = 'follower';
  }

  private load(): void {
    const generation = ++this.generation;
    const { hooks } = this;
    this.current = 'loading';
    this.buffered = [];
    this.loading = hooks
      .read()
      .then((loaded) => {
        if (generation !== this.generation || this.halted) return;
        const counts = hooks.install(loaded);
        const buffered = this.buffered ?? [];
        this.buffered = null;
        for (const change of buffered) hooks.apply(change);
        this.current = 'leading';
        hooks.log.info(counts, `${hooks.name}: leading`);
      })
      .catch((err: unknown) => {
        if (generation !== this.generation) return;
        hooks.log.error({ err }, `${hooks.name}: loading ${hooks.contents} failed; retrying`);
        this.current = 'follower';
        this.buffered = null;
        this.retryAt = hooks.now() + hooks.retryAfterMs;
      })
      .finally(() => {
        if (generation === this.generation) this.loading = undefined;
      });
  }
}
