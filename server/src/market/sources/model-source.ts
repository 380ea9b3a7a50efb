import type { Clock } from '../../core/clock.js';
import { bucketStart } from '../candles.js';
import { isMajor } from '../catalogue.js';
import { LegModel, legsFromMids } from '../legs.js';
import { MarketPath, type SeriesSampler } from '../market-path.js';
import { quoteAround } from '../quotes.js';
import { createRng, type Rng } from '../random.js';
import { type BarSeries, barAt, WALK_KEYS_MS, walkKeys, walkValue } from '../replay-data.js';
import type { Pair, PriceSource, Quote } from '../types.js';
import { realTimers, type Timers } from './timers.js';

export interface ModelSourceOptions {
  pairs: readonly Pair[];
  seed: number;
  clock: Clock;
  timers?: Timers;
  /** Real series to play (replay mode). Without them every leg is the stochastic model (simulator). */
  replay?: ReadonlyMap<string, BarSeries>;
  onError?: (err: unknown) => void;
}

/**
 * Steps come every 40–110 ms (about 13 a second) and only a few pairs tick in each, so
 * ticks are spread in time as in a real market instead of every pair moving at once (which
 * would also make every step a burst of writes to every subscriber).
 */
const STEP_MIN_MS = 40;
const STEP_MAX_MS = 110;
/** Chance that a pair ticks in a step: majors about 3.4 ticks a second, crosses about 2. */
const TICK_CHANCE_MAJOR = 0.255;
const TICK_CHANCE_CROSS = 0.15;
/** Spread widening: rare (about once a minute and a half per pair), short, 1.5× to 3.5× the typical spread. */
const WIDEN_CHANCE = 0.0009;

/**
 * The simulator and the replay source: one leg model (see legs.ts) stepped on injected
 * timers. The simulator drives every leg stochastically; replay walks the real series
 * (time-shifted to now) and uses the model only for legs no file reaches. Deterministic
 * for a seed, a start state and a clock.
 */
export class ModelPriceSource implements PriceSource {
  readonly name: 'simulator' | 'replay';
  private readonly path: MarketPath;
  private readonly model: LegModel;
  private readonly rng: Rng;
  private readonly timers: Timers;
  private readonly legs: Float64Array;
  private readonly sampler: LiveSampler;
  private readonly widen: Array<{ until: number; factor: number }>;
  private readonly latestQuotes: Quote[] = [];
  private emit: ((quote: Quote) => void) | undefined;
  private timer: unknown;
  private lastStepAt = 0;
  private running = false;

  constructor(private readonly options: ModelSourceOptions) {
    const replay = options.replay ?? new Map<string, BarSeries>();
    this.name = options.replay ? 'replay' : 'simulator';
    this.path = new MarketPath(options.pairs, replay, options.replay !== undefined);
    this.model = new LegModel(this.path.currencies);
    this.rng = createRng(options.seed, 'live');
    this.timers = options.timers ?? realTimers;
    this.legs = new Float64Array(this.path.currencies.length);
    this.sampler = new LiveSampler(createRng(options.seed, 'walk'));
    this.widen = options.pairs.map(() => ({ until: 0, factor: 1 }));
  }

  /** Continues from the last known mids (the end of the stored history), so prices do not jump at start. */
  resume(lastMids: ReadonlyMap<string, number>): void {
    const legs = legsFromMids(lastMids, this.path.currencies);
    for (const c of this.path.modelLegs) this.model.set(c, legs.get(c)!);
  }

  async start(emit: (quote: Quote) => void): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.emit = emit;
    this.lastStepAt = this.options.clock.now();
    // Every pair gets a price at once; then the usual random subset per step.
    this.step(true);
    this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  connected(): boolean {
    return this.running;
  }

  /** The model's current quote of every pair (including pairs that did not tick in the last step). */
  snapshot(): Quote[] {
    return [...this.latestQuotes];
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined;
        if (!this.running) return;
        try {
          this.step(false);
        } catch (err) {
          // A failure downstream is reported; the market keeps ticking.
          this.options.onError?.(err);
        }
        this.schedule();
      },
      this.rng.between(STEP_MIN_MS, STEP_MAX_MS),
    );
  }

  private step(all: boolean): void {
    const now = this.options.clock.now();
    this.model.step(now - this.lastStepAt, this.rng, this.path.modelLegs);
    this.sampler.beginStep(this.lastStepAt, now);
    this.lastStepAt = now;
    const modelValue = (c: string) => this.model.value(c);
    this.path.legValues(now, this.sampler.sample, modelValue, this.legs);
    const pairs = this.options.pairs;
    for (let p = 0; p < pairs.length; p++) {
      const pair = pairs[p]!;
      const w = this.widen[p]!;
      if (this.rng.next() < WIDEN_CHANCE) {
        w.factor = this.rng.between(1.5, 3.5);
        w.until = now + this.rng.between(1_000, 6_000);
      }
      const factor = now < w.until ? w.factor : 1;
      const quote = quoteAround(pair, this.path.pairMid(p, this.legs, now, this.sampler.sample), pair.spread * factor, now);
      this.latestQuotes[p] = quote;
      const chance = isMajor(pair) ? TICK_CHANCE_MAJOR : TICK_CHANCE_CROSS;
      if ((this.rng.next() < chance || all) && this.emit) this.emit(quote);
    }
  }
}

/**
 * Samples real series for live ticks: the exact key price (open, extremes, close) in the
 * step that passes it, so a replayed minute reproduces its bar, and in between the
 * straight walk with a little noise kept inside the bar's range. One value per series and
 * step, so a pair and a cross leaning on the same series agree.
 */
class LiveSampler {
  private prev = 0;
  private now = 0;
  private readonly memo = new Map<BarSeries, number>();
  constructor(private readonly rng: Rng) {}

  beginStep(prev: number, now: number): void {
    this.prev = prev;
    this.now = now;
    this.memo.clear();
  }

  readonly sample: SeriesSampler = (series, time) => {
    const cached = time === this.now ? this.memo.get(series) : undefined;
    if (cached !== undefined) return cached;
    const minute = bucketStart(time, 1);
    const bar = barAt(series, minute);
    const offset = time - minute;
    const prevOffset = this.prev - minute;
    // The last key at or before this instant; exact when this step is the one that passed it.
    let last = 0;
    for (let i = 1; i < WALK_KEYS_MS.length; i++) if (WALK_KEYS_MS[i]! <= offset) last = i;
    let value: number;
    if (WALK_KEYS_MS[last]! > prevOffset || offset >= WALK_KEYS_MS[3]) value = walkKeys(bar)[last]!;
    else {
      const noise = (bar.high - bar.low) * 0.15 * this.rng.between(-1, 1);
      value = Math.min(bar.high, Math.max(bar.low, walkValue(bar, offset) + noise));
    }
    if (time === this.now) this.memo.set(series, value);
    return value;
  };
}
