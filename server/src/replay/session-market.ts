import { type BarSeries, type Quote, quoteAround, WALK_KEYS_MS } from '../market/index.js';
import { checkReplayClock, dataRange, replayProblemMessage } from './data-range.js';
import type { DataRange, QuotedPair } from './types.js';
import { fillTickPrices, firstBarAtOrAfter, lastBarAtOrBefore, TICKS_PER_BAR, ticksPassed } from './walk.js';

export interface SessionMarketOptions {
  /** Every pair's real series (market `loadReplayData()`, parsed once per process and shared by all sessions). */
  data: ReadonlyMap<string, BarSeries>;
  /** The session's pairs (1–4, each with data) as the catalogue has them: their spread and digits make the quotes. */
  pairs: readonly QuotedPair[];
  /** A new session's start, or the clock a session was persisted at. */
  clock: number;
}

/**
 * The market of one replay session: the real minutes of its pairs played as ticks on the
 * session's own clock (docs/replay.md).
 *
 * The clock means "every tick at or before it has been played". A market built at a clock
 * plays exactly the ticks after it, so a new session at `start` and a session resumed at
 * its persisted clock are the same thing; the ticks at or before the clock are its present
 * (`quote`), not played again.
 *
 * Ticks of several pairs at the same instant come in symbol order. `next` can stop between
 * two of them, with the clock at their time: persist the clock after `advanceTo`, which
 * always finishes an instant, never in between.
 *
 * Cheap per session: a few typed arrays of 4 entries; the series are shared. Playing
 * allocates the quotes it returns and, once a minute per pair, the walk's four prices.
 */
export class SessionMarket {
  /** The session's pairs, sorted (the order of ticks at the same instant). */
  readonly symbols: readonly string[];
  /** Where the session runs; its clock never passes `range.to`. */
  readonly range: DataRange;
  private readonly pairs: QuotedPair[];
  private readonly series: BarSeries[];
  /** Per pair: the bar and tick (0–3) to play next, and the bar after the range. */
  private readonly bar: Int32Array;
  private readonly tick: Int32Array;
  private readonly end: Int32Array;
  /** Per pair: when its next tick plays (Infinity when it has none left). */
  private readonly due: Float64Array;
  /** Per pair: the four prices of its current bar. */
  private readonly prices: Float64Array;
  private readonly last: (Quote | undefined)[];
  private now: number;

  constructor(options: SessionMarketOptions) {
    const symbols = options.pairs.map((p) => p.symbol);
    const problem = checkReplayClock(options.data, symbols, options.clock);
    if (problem) throw new RangeError(`replay session market: ${replayProblemMessage(problem)}`);
    this.pairs = [...options.pairs].sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    this.symbols = this.pairs.map((p) => p.symbol);
    this.series = this.pairs.map((p) => options.data.get(p.symbol)!);
    this.range = dataRange(options.data, this.symbols)!;
    const n = this.pairs.length;
    this.bar = new Int32Array(n);
    this.tick = new Int32Array(n);
    this.end = new Int32Array(n);
    this.due = new Float64Array(n);
    this.prices = new Float64Array(n * TICKS_PER_BAR);
    this.last = new Array<Quote | undefined>(n).fill(undefined);
    this.now = options.clock;
    for (let j = 0; j < n; j++) this.locate(j, options.clock);
  }

  /** The session's "now" (epoch ms). */
  get clock(): number {
    return this.now;
  }

  /** Whether the clock has reached the end of the data: nothing more will play. */
  get finished(): boolean {
    return this.now >= this.range.to;
  }

  /** The pair's last quote at or before the clock (in a gap, the one before it); undefined for a pair not in the session. */
  quote(symbol: string): Quote | undefined {
    const j = this.symbols.indexOf(symbol);
    return j < 0 ? undefined : this.last[j];
  }

  /** When the next tick plays, or undefined when none is left before the end of the range. */
  nextTickTime(): number | undefined {
    const t = this.earliestDue();
    return t === -1 ? undefined : this.due[t];
  }

  /**
   * Plays the next tick if it is at or before `until`: the clock moves to its time and it
   * becomes the pair's quote. Undefined when no tick is due by then (the clock stays).
   * One tick at a time, so a caller can await its work (a fill) before the next.
   */
  next(until: number): Quote | undefined {
    const j = this.earliestDue();
    if (j === -1) return undefined;
    const t = this.due[j]!;
    if (t > until) return undefined;
    const pair = this.pairs[j]!;
    const quote = quoteAround(pair, this.prices[j * TICKS_PER_BAR + this.tick[j]!]!, pair.spread, t);
    this.last[j] = quote;
    this.now = t;
    this.stepPast(j);
    return quote;
  }

  /**
   * Moves the clock forward to `until` (at most the end of the range), playing every tick in
   * between in order, each handed to `onTick`: a step of a day plays what a day of playing
   * would. Returns how many ticks played. The clock never goes back.
   */
  advanceTo(until: number, onTick?: (quote: Quote) => void): number {
    if (!(until >= this.now)) throw new RangeError(`replay clock moves forward only (${until} < ${this.now})`);
    let played = 0;
    for (let q = this.next(until); q !== undefined; q = this.next(until)) {
      onTick?.(q);
      played++;
    }
    this.now = Math.min(until, this.range.to);
    return played;
  }

  private earliestDue(): number {
    let j = -1;
    let t = Number.POSITIVE_INFINITY;
    // Strictly earlier wins, so at the same instant the first pair in symbol order plays first.
    for (let s = 0; s < this.due.length; s++) {
      if (this.due[s]! < t) {
        t = this.due[s]!;
        j = s;
      }
    }
    return j;
  }

  /** Places pair j's cursor on its first tick after `clock` and its quote on its last tick at or before it. */
  private locate(j: number, clock: number): void {
    const times = this.series[j]!.times;
    const end = firstBarAtOrAfter(times, this.range.to);
    this.end[j] = end;
    let i = lastBarAtOrBefore(times, clock);
    // Never: clock ≥ range.from ≥ the pair's first bar. Kept so a broken series cannot index −1.
    if (i < 0) {
      this.enterBar(j, 0);
      return;
    }
    let passed = ticksPassed(times[i]!, clock);
    // At the end of the range a pair may have a bar opening there; it is not played, so not quoted.
    if (i >= end) {
      i = end - 1;
      passed = TICKS_PER_BAR;
    }
    this.enterBar(j, i);
    const pair = this.pairs[j]!;
    const at = times[i]! + WALK_KEYS_MS[passed - 1]!;
    this.last[j] = quoteAround(pair, this.prices[j * TICKS_PER_BAR + passed - 1]!, pair.spread, at);
    if (passed === TICKS_PER_BAR) this.enterBar(j, i + 1);
    else this.setTick(j, passed);
  }

  /** Moves pair j past the tick it just played; a missing minute is simply the next bar's later time. */
  private stepPast(j: number): void {
    const k = this.tick[j]! + 1;
    if (k < TICKS_PER_BAR) this.setTick(j, k);
    else this.enterBar(j, this.bar[j]! + 1);
  }

  private enterBar(j: number, i: number): void {
    this.bar[j] = i;
    if (i >= this.end[j]!) {
      this.due[j] = Number.POSITIVE_INFINITY;
      return;
    }
    fillTickPrices(this.series[j]!, i, this.prices, j * TICKS_PER_BAR);
    this.setTick(j, 0);
  }

  private setTick(j: number, k: number): void {
    this.tick[j] = k;
    this.due[j] = this.series[j]!.times[this.bar[j]!]! + WALK_KEYS_MS[k]!;
  }
}
