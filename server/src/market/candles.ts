import type { Candle } from '@pipdesk/contract';
import { fromScaled } from './quotes.js';

export const MINUTE_MS = 60_000;

/** Minutes in a UTC day: d1 candles open at 00:00 UTC. */
export const DAY_MINUTES = 1440;

/**
 * Timeframes stored besides one-minute candles (minutes): every chart timeframe, so a read of
 * any of them is one index range (docs/charting.md#timeframes-and-history).
 */
export const AGGREGATE_TIMEFRAMES = [5, 15, 30, 60, 240, DAY_MINUTES] as const;

/** Timeframes kept only as long as one-minute candles (CHART_HISTORY_DAYS); hourly and above stay. */
export const SUB_HOURLY_TIMEFRAMES = [1, 5, 15, 30] as const;

/** A candle with prices as scaled integers (see PRICE_SCALE): exact to compare and aggregate. */
export interface ScaledCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** Open time of the candle of `timeframeMinutes` that contains `time` (UTC-aligned: 4h candles open at 00, 04, 08…). */
export function bucketStart(time: number, timeframeMinutes: number): number {
  const size = timeframeMinutes * MINUTE_MS;
  return Math.floor(time / size) * size;
}

/**
 * Aggregates one-minute candles (oldest first) into candles of `timeframeMinutes`.
 * A bucket exists only when at least one minute of it exists: gaps stay gaps.
 */
export function aggregateCandles(minutes: readonly ScaledCandle[], timeframeMinutes: number): ScaledCandle[] {
  const out: ScaledCandle[] = [];
  let current: ScaledCandle | undefined;
  for (const m of minutes) {
    const start = bucketStart(m.time, timeframeMinutes);
    if (current && current.time === start) foldCandle(current, m);
    else {
      current = { time: start, open: m.open, high: m.high, low: m.low, close: m.close, volume: m.volume };
      out.push(current);
    }
  }
  return out;
}

/** Folds candle `next` (later than everything in `into`) into `into`: the aggregation rule for one more piece. */
export function foldCandle(into: ScaledCandle, next: ScaledCandle): void {
  if (next.high > into.high) into.high = next.high;
  if (next.low < into.low) into.low = next.low;
  into.close = next.close;
  into.volume += next.volume;
}

/** Merges two candle lists by open time, oldest first; on the same time `preferred` wins. */
export function mergeByTime(base: readonly ScaledCandle[], preferred: readonly ScaledCandle[]): ScaledCandle[] {
  if (preferred.length === 0) return [...base];
  const byTime = new Map<number, ScaledCandle>();
  for (const c of base) byTime.set(c.time, c);
  for (const c of preferred) byTime.set(c.time, c);
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/** The chart answer of a stored candle. */
export function toChartCandle(c: ScaledCandle): Candle {
  return {
    time: c.time,
    open: fromScaled(c.open),
    high: fromScaled(c.high),
    low: fromScaled(c.low),
    close: fromScaled(c.close),
    volume: c.volume,
  };
}

/**
 * One-minute candles built in memory from ticks, per symbol: the live (forming) candle,
 * the recently closed ones (so reads never wait for the database), and, on the node that
 * persists candles, the queue of closed candles not yet written.
 */
export class LiveCandles {
  private readonly live = new Map<string, ScaledCandle>();
  private readonly recent = new Map<string, ScaledCandle[]>();
  private unflushed: Array<{ symbol: string; candle: ScaledCandle }> = [];
  /** Closed minutes before this may have left memory (the last roll's horizon). */
  private horizon = -Infinity;

  constructor(
    /** Closed candles stay readable from memory this long (the writer flushes within seconds). */
    private readonly keepClosedMs = 10 * MINUTE_MS,
  ) {}

  /** Applies a tick's mid; returns the live candle it changed, or undefined for a tick of an already closed minute. */
  apply(symbol: string, midScaled: number, timestamp: number): ScaledCandle | undefined {
    const minute = bucketStart(timestamp, 1);
    const current = this.live.get(symbol);
    if (current && minute < current.time) return undefined;
    if (current && minute === current.time) {
      if (midScaled > current.high) current.high = midScaled;
      if (midScaled < current.low) current.low = midScaled;
      current.close = midScaled;
      current.volume += 1;
      return current;
    }
    if (current) this.close(symbol, current);
    const candle = { time: minute, open: midScaled, high: midScaled, low: midScaled, close: midScaled, volume: 1 };
    this.live.set(symbol, candle);
    return candle;
  }

  /** Closes every live candle of a minute before `now`'s; returns them. */
  roll(now: number): Array<{ symbol: string; candle: ScaledCandle }> {
    const minute = bucketStart(now, 1);
    const closed: Array<{ symbol: string; candle: ScaledCandle }> = [];
    for (const [symbol, candle] of this.live) {
      if (candle.time < minute) {
        this.close(symbol, candle);
        this.live.delete(symbol);
        closed.push({ symbol, candle });
      }
    }
    const keepFrom = minute - this.keepClosedMs;
    this.horizon = Math.max(this.horizon, keepFrom);
    for (const [symbol, list] of this.recent) {
      if (list.length > 0 && list[0]!.time < keepFrom)
        this.recent.set(
          symbol,
          list.filter((c) => c.time >= keepFrom),
        );
    }
    return closed;
  }

  /** Restores the current minute's candle written before a restart, so its ticks keep counting. */
  resumeLive(symbol: string, candle: ScaledCandle): void {
    if (!this.live.has(symbol)) this.live.set(symbol, { ...candle });
  }

  liveCandle(symbol: string): ScaledCandle | undefined {
    return this.live.get(symbol);
  }

  /**
   * Calls `visit` with each closed minute of `symbol` in [from, before), oldest first; false when
   * memory may no longer hold all of them (`from` is older than what the last roll kept).
   */
  closedBetween(symbol: string, from: number, before: number, visit: (c: ScaledCandle) => void): boolean {
    if (from < this.horizon) return false;
    for (const c of this.recent.get(symbol) ?? []) if (c.time >= from && c.time < before) visit(c);
    return true;
  }

  /** Every one-minute candle memory holds for `symbol` (closed, unwritten, live), oldest first. */
  candles(symbol: string): ScaledCandle[] {
    const closed = [
      ...(this.recent.get(symbol) ?? []),
      ...this.unflushed.filter((u) => u.symbol === symbol).map((u) => u.candle),
    ];
    const live = this.live.get(symbol);
    return mergeByTime(closed, live ? [live] : []);
  }

  /** Takes the closed candles to write (the writer puts them back with `requeue` when the write fails). */
  takeUnflushed(): Array<{ symbol: string; candle: ScaledCandle }> {
    const taken = this.unflushed;
    this.unflushed = [];
    return taken;
  }

  requeue(items: Array<{ symbol: string; candle: ScaledCandle }>): void {
    this.unflushed = [...items, ...this.unflushed];
  }

  /** Queues every recently closed candle for writing (a node that just became the writer). */
  queueRecent(): void {
    for (const [symbol, list] of this.recent) for (const candle of list) this.unflushed.push({ symbol, candle: { ...candle } });
  }

  /** Live candles, copied, for a final write on shutdown. */
  liveCandles(): Array<{ symbol: string; candle: ScaledCandle }> {
    return [...this.live].map(([symbol, candle]) => ({ symbol, candle: { ...candle } }));
  }

  /** Whether closed candles are queued for writing (only the node that persists sets this). */
  persisting = false;

  private close(symbol: string, candle: ScaledCandle): void {
    const list = this.recent.get(symbol) ?? [];
    list.push(candle);
    this.recent.set(symbol, list);
    if (this.persisting) this.unflushed.push({ symbol, candle: { ...candle } });
  }
}
