import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../core/clock.js';
import { LeaderLoad, type LeaderMode } from '../../core/leader-load.js';
import type { PairCatalog, PriceBook, Quote } from '../../market/index.js';
import type { Bus } from '../../realtime/bus.js';
import { exactTickPrice } from '../math.js';
import { ENGINE_TOPIC, type EngineChange, type TriggerExecutor } from './ports.js';
import { applyEngineChange, executeStep, type Step, type StepDeps } from './steps.js';
import type { BookQuote, Trigger, TriggerBook } from './trigger-book.js';

export interface OrderEngineDeps {
  market: { pairs: PairCatalog; prices: PriceBook; isLeader(): boolean };
  bus: Bus;
  clock: Clock;
  log: FastifyBaseLogger;
  executor: TriggerExecutor;
  book: TriggerBook;
}

export interface OrderEngineOptions {
  /** How often expiries, retries and leadership are checked without a tick (ms). */
  checkEveryMs: number;
  /** How often moved trailing stops are written (ms): each position at most once per period. */
  trailingWriteEveryMs: number;
  /** A failed execution is re-armed after this long (ms); a later tick that crosses it retries it. */
  retryAfterMs: number;
}

export const defaultEngineOptions: OrderEngineOptions = { checkEveryMs: 250, trailingWriteEveryMs: 1_000, retryAfterMs: 1_000 };

/** Where this node stands: only a leader whose book is loaded acts on ticks. */
export type EngineMode = LeaderMode;

/**
 * The order engine's runtime (docs/order-engine.md#the-engine): feeds the trigger book with
 * ticks and bus changes, and executes what it triggers through the TriggerExecutor, only on the
 * price-source leader. One account's steps run one after another; accounts run concurrently.
 * A failure is logged and retried later; it never stops the engine.
 */
export class OrderEngine {
  private readonly leadership: LeaderLoad<EngineChange, Awaited<ReturnType<TriggerExecutor['loadArmed']>>>;
  private readonly queues = new Map<number, Promise<void>>();
  private retries: Array<{ at: number; rearm: () => void }> = [];
  private writingTrailing: Promise<void> | undefined;
  private readonly unsubscribers: Array<() => void> = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private readonly stepDeps: StepDeps;

  constructor(
    private readonly deps: OrderEngineDeps,
    private readonly options: OrderEngineOptions = defaultEngineOptions,
  ) {
    this.stepDeps = { ...deps, retryLater: (rearm) => this.retryLater(rearm) };
    // docs/order-engine.md#the-engine: a new leader loads every armed order and protection before it acts.
    this.leadership = new LeaderLoad({
      name: 'order engine',
      contents: 'the armed orders',
      isLeader: () => deps.market.isLeader(),
      now: () => deps.clock.now(),
      log: deps.log,
      retryAfterMs: options.retryAfterMs,
      read: () => deps.executor.loadArmed(),
      install: ({ orders, protections }) => {
        deps.book.load(orders, protections);
        return { orders: orders.length, protections: protections.length };
      },
      apply: (change) => this.apply(change),
      // Another node leads now and loads from the database; the moves not written are its to redo.
      lost: () => deps.book.takeTrailingMoves(),
    });
  }

  private get mode(): EngineMode {
    return this.leadership.mode;
  }

  /** Follows the bus and ticks; on the leader, loads the book before it returns (and so before its first tick). */
  async start(): Promise<void> {
    const { bus, market } = this.deps;
    this.unsubscribers.push(
      bus.subscribe('message', ({ topic, payload }) => {
        if (topic === ENGINE_TOPIC) this.onChange(payload);
      }),
      bus.subscribe('resync', () => this.resync()),
      market.prices.onTick((quote) => this.onTick(quote)),
    );
    const every = (ms: number, fn: () => void) => {
      const timer = setInterval(fn, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.checkEveryMs, () => this.onTimer());
    every(this.options.trailingWriteEveryMs, () => void this.writeTrailingStops());
    this.leadership.check();
    await this.leadership.settled;
  }

  /** Stops acting, waits for running executions, and writes the trailing stops not yet written. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.retries = [];
    await this.leadership.halt();
    await this.idle();
    if (this.mode === 'leading') await this.writeTrailingStops();
    this.leadership.rest();
  }

  /** Resolves once no execution is running or queued (tests). */
  async idle(): Promise<void> {
    while (this.queues.size > 0 || this.writingTrailing) {
      await Promise.allSettled([...this.queues.values(), this.writingTrailing]);
    }
  }

  status(): { mode: EngineMode } & ReturnType<TriggerBook['counts']> {
    return { mode: this.mode, ...this.deps.book.counts() };
  }

  /**
   * Writes the trailing stops moved since the last write, in one batch (the timer calls it every
   * second, so a position is written at most once a second). A failed write is retried next time.
   */
  async writeTrailingStops(): Promise<void> {
    if (this.writingTrailing || this.mode !== 'leading') return this.writingTrailing;
    const moves = this.deps.book.takeTrailingMoves();
    if (moves.length === 0) return;
    const write = this.deps.executor
      .saveTrailingStops(moves)
      .catch((err: unknown) => {
        this.deps.book.restoreTrailingMoves(moves);
        this.deps.log.error({ err, positions: moves.length }, 'writing trailing stops failed; retrying in a second');
      })
      .finally(() => {
        this.writingTrailing = undefined;
      });
    this.writingTrailing = write;
    return write;
  }

  /**
   * docs/operations.md#redis-outages-and-leadership: after a bus outage the changes it hid are
   * lost, so a leader reloads every armed order and protection from the database, once the
   * executions already running have settled.
   */
  resync(): void {
    if (this.stopped || this.mode === 'follower') return;
    void this.idle()
      .then(() => {
        if (!this.stopped) this.leadership.reload();
      })
      .catch((err: unknown) => this.deps.log.error({ err }, 'order engine: reloading after a bus outage failed'));
  }

  // ------------------------------------------------------------------ inputs

  private onChange(change: EngineChange): void {
    if (!this.leadership.buffer(change)) this.apply(change);
  }

  private apply(change: EngineChange): void {
    applyEngineChange(this.deps.book, change, this.deps.log);
  }

  private onTick(quote: Quote): void {
    this.leadership.check();
    if (this.mode !== 'leading') return;
    this.expireDue();
    const pair = this.deps.market.pairs.get(quote.symbol);
    if (!pair) return;
    // exactQuote's bid and ask (the book needs no mid), read without text parsing when exact.
    const bid = exactTickPrice(quote.bid, pair.digits);
    const ask = exactTickPrice(quote.ask, pair.digits);
    const bookQuote: BookQuote = { symbol: pair.symbol, bid, ask, timestamp: quote.timestamp, receivedAt: this.deps.clock.now() };
    const { triggers } = this.deps.book.onTick(bookQuote);
    if (triggers.length === 0) return;
    let i = 0;
    while (i < triggers.length) {
      const accountId = accountOf(triggers[i]!);
      const steps: Step[] = [];
      for (; i < triggers.length && accountOf(triggers[i]!) === accountId; i++)
        steps.push({ trigger: triggers[i]!, quote: bookQuote });
      this.enqueue(accountId, steps);
    }
  }

  private onTimer(): void {
    this.leadership.check();
    if (this.mode !== 'leading') return;
    const now = this.deps.clock.now();
    if (this.retries.length > 0) {
      const due = this.retries.filter((r) => r.at <= now);
      this.retries = this.retries.filter((r) => r.at > now);
      for (const retry of due) retry.rearm();
    }
    this.expireDue();
  }

  private expireDue(): void {
    const { book, clock } = this.deps;
    const now = clock.now();
    // The earliest expiry first: a tick with nothing due asks the book for nothing more.
    const next = book.nextExpiry();
    if (next === undefined || next > now) return;
    const due = book.expireDue(now);
    let i = 0;
    while (i < due.length) {
      const accountId = due[i]!.accountId;
      const steps: Step[] = [];
      for (; i < due.length && due[i]!.accountId === accountId; i++) steps.push({ expire: due[i]! });
      this.enqueue(accountId, steps);
    }
  }

  // ------------------------------------------------------------------ execution

  /** Runs after everything already queued for the account (docs/order-engine.md#ordering). */
  private enqueue(accountId: number, steps: Step[]): void {
    const previous = this.queues.get(accountId) ?? Promise.resolve();
    const run = previous.then(async () => {
      for (const step of steps) await this.execute(step);
    });
    this.queues.set(accountId, run);
    void run.finally(() => {
      if (this.queues.get(accountId) === run) this.queues.delete(accountId);
    });
  }

  /** One step, never throwing (steps.ts): the outcome settles the book; a failure re-arms it later. */
  private execute(step: Step): Promise<void> {
    return executeStep(this.stepDeps, step);
  }

  private retryLater(rearm: () => void): void {
    if (this.stopped) return;
    this.retries.push({ at: this.deps.clock.now() + this.options.retryAfterMs, rearm });
  }
}

function accountOf(trigger: Trigger): number {
  return trigger.kind === 'close' ? trigger.protection.accountId : trigger.order.accountId;
}
