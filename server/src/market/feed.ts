import type { PriceSourceHealthDto } from '@pipdesk/contract';
import type { AppContext } from '../core/context.js';
import type { BusEvents } from '../realtime/bus.js';
import { type CandleStore, lastMids } from './candle-store.js';
import { bucketStart, DAY_MINUTES, type LiveCandles, MINUTE_MS } from './candles.js';
import type { Catalog } from './catalogue.js';
import type { Leadership } from './leader.js';
import { isStaleQuote, type MemoryPriceBook } from './price-book.js';
import { quoteFromBidAsk, toScaled } from './quotes.js';
import { type BarSeries, loadReplayData } from './replay-data.js';
import { realTimers, type Timers } from './sources/timers.js';
import type { PriceSource, Quote } from './types.js';

export interface MarketFeedDeps {
  ctx: AppContext;
  catalog: Catalog;
  book: MemoryPriceBook;
  candles: LiveCandles;
  store: CandleStore;
  source: PriceSource;
  leadership: Leadership;
  timers?: Timers;
}

/** After a minute closes, wait this long for its last ticks (they travel over the bus) before writing it. */
const ROLL_GRACE_MS = 250;
/** How often the leader deletes the one-minute candles past CHART_HISTORY_DAYS (each run deletes about this much of them). */
const PRUNE_EVERY_MS = 60 * MINUTE_MS;

/**
 * The tick path (docs/ARCHITECTURE.md): the leader's source publishes ticks on the bus;
 * every node takes them from the bus into its price book and one-minute candles, so a
 * tick reaches sockets and the risk engine without touching the database. The leader also
 * backfills history, and writes closed candles once a minute (and on stop).
 */
export class MarketFeed {
  private readonly timers: Timers;
  private unsubscribeBus: (() => void) | undefined;
  private rollTimer: unknown;
  private statusTimer: unknown;
  private lastTickAt: number | undefined;
  private feedUp = false;
  private readonly statusListeners = new Set<(up: boolean) => void>();
  private leading: Promise<void> = Promise.resolve();
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  /** When the leader last pruned old candles; the first run is at the first minute roll after leading. */
  private prunedAt = -Infinity;

  constructor(private readonly deps: MarketFeedDeps) {
    this.timers = deps.timers ?? realTimers;
  }

  async start(): Promise<void> {
    const { ctx } = this.deps;
    this.unsubscribeBus = ctx.bus.subscribe('tick', (event) => this.onBusTick(event));
    this.scheduleRoll();
    this.scheduleStatus();
    await this.deps.leadership.start((leader) => {
      this.leading = this.leading
        .then(() => (leader ? this.lead() : this.follow()))
        .catch((err: unknown) => {
          ctx.log.error({ err }, 'price source change of leadership failed');
        });
    });
    // A lone node (or the first leader) has history and a running source before it serves.
    await this.leading;
    this.updateStatus();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.rollTimer !== undefined) this.timers.clearTimeout(this.rollTimer);
    if (this.statusTimer !== undefined) this.timers.clearTimeout(this.statusTimer);
    this.unsubscribeBus?.();
    await this.leading;
    if (this.deps.leadership.isLeader()) {
      await this.deps.source.stop();
      // The forming candle too, so a restart within the minute continues it.
      await this.write(true);
    }
    await this.deps.leadership.stop();
  }

  /** Whether prices are flowing: the leader asks its source; other nodes look at the ticks they receive. */
  feedConnected(): boolean {
    if (this.deps.leadership.isLeader()) return this.deps.source.connected();
    return (
      this.lastTickAt !== undefined && this.deps.ctx.clock.now() - this.lastTickAt <= this.deps.ctx.config.externalFeedStaleMs
    );
  }

  health(): PriceSourceHealthDto {
    const now = this.deps.ctx.clock.now();
    const limit = this.deps.ctx.config.externalFeedStaleMs;
    const stale: PriceSourceHealthDto['stale_pairs'] = [];
    for (const pair of this.deps.catalog.active()) {
      const at = this.deps.book.receivedAt(pair.symbol);
      if (isStaleQuote(at, now, limit))
        stale.push({ symbol: pair.symbol, age_ms: at === undefined ? null : Math.max(0, now - at) });
    }
    return {
      name: this.deps.source.name,
      connected: this.feedConnected(),
      last_tick_age_ms: this.lastTickAt === undefined ? null : Math.max(0, now - this.lastTickAt),
      stale_after_ms: limit,
      stale_pairs: stale,
    };
  }

  /** Called when the feed goes up or down (the price socket tells its clients). */
  onStatusChange(listener: (up: boolean) => void): () => void {
    this.statusListeners.add(listener);
    return () => {
      this.statusListeners.delete(listener);
    };
  }

  isLeader(): boolean {
    return this.deps.leadership.isLeader();
  }

  /** Writes the closed candles now (tests; the minute timer does it otherwise). */
  flush(): Promise<void> {
    return this.write(false);
  }

  /**
   * Deletes one-minute to 30-minute candles older than CHART_HISTORY_DAYS (at least a day: the
   * socket's gap fill reads a day of minutes), after the queued writes. Returns the rows deleted.
   */
  prune(): Promise<number> {
    const { ctx, catalog, store } = this.deps;
    const now = ctx.clock.now();
    this.prunedAt = now;
    const keepDays = Math.max(1, ctx.config.chartHistoryDays);
    const before = bucketStart(now - keepDays * DAY_MINUTES * MINUTE_MS, 60);
    const run = this.writing.then(() => store.prune(catalog.list(), before));
    this.writing = run.then(
      () => {},
      (err: unknown) => ctx.log.error({ err }, 'deleting old one-minute candles failed; retried at the next run'),
    );
    return run;
  }

  private async lead(): Promise<void> {
    if (this.stopped) return;
    const { candles, source } = this.deps;
    candles.persisting = true;
    candles.queueRecent();
    try {
      await this.prepareHistory();
    } catch (err) {
      // Prices matter more than chart history: serve them even when the backfill failed.
      this.deps.ctx.log.error({ err }, 'chart history backfill failed; starting the price source anyway');
    }
    await source.start((quote) => this.publish(quote));
    this.updateStatus();
  }

  private async follow(): Promise<void> {
    this.deps.candles.persisting = false;
    await this.deps.source.stop();
    this.updateStatus();
  }

  /** Backfills history where a pair has none, restores the current minute's candle, and lets the source continue from the last closes. */
  private async prepareHistory(): Promise<void> {
    const { ctx, catalog, store, candles, source } = this.deps;
    const pairs = catalog.active();
    let last = await store.lastCandles(pairs);
    const missing = pairs.filter((p) => !last.has(p.symbol));
    if (missing.length > 0 && ctx.config.chartHistoryDays > 0) {
      const started = performance.now();
      const usePairSeries = ctx.config.priceSource === 'replay';
      const rows = await store.backfill(missing, {
        now: ctx.clock.now(),
        days: ctx.config.chartHistoryDays,
        hourlyDays: Math.max(ctx.config.chartHistoryDays, ctx.config.chartHourlyHistoryDays),
        seed: ctx.config.priceSeed,
        replay: this.replayData(),
        usePairSeries,
        allPairs: pairs,
      });
      ctx.log.info(
        {
          pairs: missing.length,
          rows,
          days: ctx.config.chartHistoryDays,
          hourly_days: ctx.config.chartHourlyHistoryDays,
          ms: Math.round(performance.now() - started),
        },
        'chart history backfilled',
      );
      last = await store.lastCandles(pairs);
    }
    const nowMinute = bucketStart(ctx.clock.now(), 1);
    for (const [symbol, candle] of last) if (candle.time === nowMinute) candles.resumeLive(symbol, candle);
    source.resume?.(lastMids(last));
  }

  private replayData(): ReadonlyMap<string, BarSeries> {
    try {
      return loadReplayData();
    } catch (err) {
      this.deps.ctx.log.warn({ err }, 'replay data unreadable; history is simulated');
      return new Map();
    }
  }

  /** Only the leader's ticks enter the bus; a node that just lost the lead drops the stragglers. */
  private publish(quote: Quote): void {
    if (!this.deps.leadership.isLeader()) return;
    this.deps.ctx.bus.publish('tick', { symbol: quote.symbol, bid: quote.bid, ask: quote.ask, timestamp: quote.timestamp });
  }

  private onBusTick(event: BusEvents['tick']): void {
    const pair = typeof event?.symbol === 'string' ? this.deps.catalog.get(event.symbol) : undefined;
    if (!pair?.isActive) return;
    const bid = Number(event.bid);
    const ask = Number(event.ask);
    const timestamp = Number(event.timestamp);
    if (!(bid > 0) || !(ask > 0) || !Number.isFinite(bid) || !Number.isFinite(ask) || !Number.isFinite(timestamp)) return;
    const quote = quoteFromBidAsk(pair, bid, ask, timestamp);
    this.lastTickAt = this.deps.ctx.clock.now();
    // Candles first, so listeners of the book (the price socket) see the candle this tick built.
    this.deps.candles.apply(pair.symbol, toScaled(quote.mid), quote.timestamp);
    this.deps.book.apply(quote, this.lastTickAt);
    if (!this.feedUp) this.updateStatus();
  }

  private scheduleRoll(): void {
    if (this.stopped) return;
    const now = this.deps.ctx.clock.now();
    const delay = MINUTE_MS - (now % MINUTE_MS) + ROLL_GRACE_MS;
    this.rollTimer = this.timers.setTimeout(() => {
      this.rollTimer = undefined;
      const now = this.deps.ctx.clock.now();
      this.deps.candles.roll(now);
      if (this.deps.leadership.isLeader()) {
        void this.write(false);
        if (now - this.prunedAt >= PRUNE_EVERY_MS) void this.prune().catch(() => {});
      }
      this.scheduleRoll();
    }, delay);
  }

  private scheduleStatus(): void {
    if (this.stopped) return;
    this.statusTimer = this.timers.setTimeout(() => {
      this.statusTimer = undefined;
      this.updateStatus();
      this.scheduleStatus();
    }, 1_000);
  }

  private updateStatus(): void {
    const up = this.feedConnected();
    if (up === this.feedUp) return;
    this.feedUp = up;
    for (const listener of this.statusListeners) {
      try {
        listener(up);
      } catch (err) {
        this.deps.ctx.log.error({ err }, 'feed status listener failed');
      }
    }
  }

  /** Writes queued closed candles (and the live ones on stop), one batch at a time; a failed batch is queued again. */
  private write(includeLive: boolean): Promise<void> {
    this.writing = this.writing.then(async () => {
      const { candles, catalog, store, ctx } = this.deps;
      const items = candles.takeUnflushed();
      const all = includeLive ? [...items, ...candles.liveCandles()] : items;
      if (all.length === 0) return;
      const rows = all.flatMap(({ symbol, candle }) => {
        const pair = catalog.get(symbol);
        return pair ? [{ pairId: pair.id, timeframe: 1, ...candle }] : [];
      });
      try {
        await store.write(rows);
      } catch (err) {
        candles.requeue(items);
        ctx.log.error({ err, candles: rows.length }, 'writing candles failed; will retry next minute');
      }
    });
    return this.writing;
  }
}
