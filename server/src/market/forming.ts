import type { Clock } from '../core/clock.js';
import { bucketStart, foldCandle, type LiveCandles, type ScaledCandle } from './candles.js';
import type { Pair } from './types.js';

/** The closed part of a forming candle: the minutes of its bucket before `through`, folded. */
interface FormingState {
  bucket: number;
  /** Minute start: every closed minute before it is in `closed`. */
  through: number;
  closed: ScaledCandle | undefined;
}

/** Reads the candle of `tf` minutes that [from, before) makes from what is stored and in memory. */
export type ClosedPartReader = (pair: Pair, tf: number, from: number, before: number) => Promise<ScaledCandle | undefined>;

/**
 * The live candle of the larger timeframes (m5 to d1) the price socket sends: the closed
 * minutes of the bucket folded once into a running candle, plus the live minute. The database
 * is read once when a pair and timeframe are first asked for (`prepare`); after that each read
 * only folds the minutes closed since the last one from memory, so a chart update costs O(1)
 * however many ticks came.
 */
export class FormingCandles {
  private readonly states = new Map<string, FormingState>();
  private readonly seeding = new Map<string, Promise<void>>();

  constructor(
    private readonly candles: LiveCandles,
    private readonly clock: Clock,
    private readonly readClosedPart: ClosedPartReader,
  ) {}

  /** Reads the closed part of the pair's forming candle unless it is known (subscribe time, never per tick). */
  prepare(pair: Pair, tf: number): Promise<void> {
    const key = `${pair.symbol}:${tf}`;
    if (this.states.has(key)) return Promise.resolve();
    let seeding = this.seeding.get(key);
    if (!seeding) {
      const through = this.throughMinute(pair.symbol);
      const bucket = bucketStart(through, tf);
      seeding = this.readClosedPart(pair, tf, bucket, through)
        .then((closed) => {
          this.states.set(key, { bucket, through, closed: closed && { ...closed } });
        })
        .finally(() => this.seeding.delete(key));
      this.seeding.set(key, seeding);
    }
    return seeding;
  }

  /**
   * The forming candle of `tf` minutes, or undefined when no minute of its bucket had a price or
   * the pair was not prepared. A state that memory can no longer bring up to date (the minutes
   * since its last read left memory) is dropped and prepared again in the background.
   */
  candle(pair: Pair, tf: number): ScaledCandle | undefined {
    const key = `${pair.symbol}:${tf}`;
    const state = this.states.get(key);
    if (!state) return undefined;
    const live = this.candles.liveCandle(pair.symbol);
    const through = this.throughMinute(pair.symbol);
    const bucket = bucketStart(through, tf);
    if (through > state.through) {
      if (bucket !== state.bucket) {
        state.bucket = bucket;
        state.closed = undefined;
      }
      const complete = this.candles.closedBetween(pair.symbol, Math.max(state.through, bucket), through, (c) => {
        if (state.closed) foldCandle(state.closed, c);
        else state.closed = { ...c, time: bucket };
      });
      if (!complete) {
        this.states.delete(key);
        void this.prepare(pair, tf).catch(() => {});
        return undefined;
      }
      state.through = through;
    }
    const closed = state.bucket === bucket ? state.closed : undefined;
    const liveHere = live && bucketStart(live.time, tf) === bucket ? live : undefined;
    if (!closed) return liveHere && { ...liveHere, time: bucket };
    const candle = { ...closed };
    if (liveHere) foldCandle(candle, liveHere);
    return candle;
  }

  /** The live minute, or the current one when the pair has not ticked in it: every minute before it is closed. */
  private throughMinute(symbol: string): number {
    return this.candles.liveCandle(symbol)?.time ?? bucketStart(this.clock.now(), 1);
  }
}
