import { legCurrencies } from './legs.js';
import type { BarSeries } from './replay-data.js';
import type { Pair } from './types.js';

/**
 * Where each leg's value comes from: a real series (directly, inverted, or through a cross
 * and another leg), or the stochastic model when no file reaches it (NZD here).
 */
export type LegDriver =
  | { kind: 'series'; series: BarSeries; invert: boolean }
  | { kind: 'cross'; series: BarSeries; via: number; legIsBase: boolean }
  | { kind: 'model' };

/** Samples a series at an instant (exact walk for history, walk with noise for live ticks). */
export type SeriesSampler = (series: BarSeries, time: number) => number;

/**
 * Evaluates leg values and pair mids at an instant, mixing real series and model legs.
 * Pairs are indexed like `pairs`, legs like `currencies`; arrays keep the history
 * backfill (millions of samples) fast.
 */
export class MarketPath {
  readonly currencies: string[];
  readonly drivers: LegDriver[];
  /** Leg indices in an order where a cross comes after the leg it leans on. */
  private readonly order: number[];
  /** Currencies driven by the stochastic model. */
  readonly modelLegs: Set<string>;
  private readonly pairBase: number[];
  private readonly pairQuote: number[];
  private readonly pairSeries: (BarSeries | undefined)[];

  constructor(
    readonly pairs: readonly Pair[],
    replay: ReadonlyMap<string, BarSeries>,
    /** Replay mode plays a pair's own file when it has one; the simulator derives every pair from legs. */
    usePairSeries: boolean,
  ) {
    this.currencies = legCurrencies(pairs);
    const plan = planLegs(this.currencies, replay);
    this.drivers = plan.drivers;
    this.order = plan.order;
    this.modelLegs = new Set(this.currencies.filter((_, i) => this.drivers[i]!.kind === 'model'));
    const index = (c: string) => (c === 'USD' ? -1 : this.currencies.indexOf(c));
    this.pairBase = pairs.map((p) => index(p.baseCurrency));
    this.pairQuote = pairs.map((p) => index(p.quoteCurrency));
    this.pairSeries = pairs.map((p) => (usePairSeries ? replay.get(p.symbol) : undefined));
  }

  /** Fills `out` with every leg's USD value at `time`; model legs come from `modelValue`. */
  legValues(time: number, sample: SeriesSampler, modelValue: (currency: string) => number, out: Float64Array): void {
    for (const i of this.order) {
      const d = this.drivers[i]!;
      if (d.kind === 'series') {
        const v = sample(d.series, time);
        out[i] = d.invert ? 1 / v : v;
      } else if (d.kind === 'model') out[i] = modelValue(this.currencies[i]!);
      else {
        const v = sample(d.series, time);
        const other = d.via === -1 ? 1 : out[d.via]!;
        out[i] = d.legIsBase ? v * other : other / v;
      }
    }
  }

  /** Mid of pair `p` (index into `pairs`) given the legs at the same instant. */
  pairMid(p: number, legs: Float64Array, time: number, sample: SeriesSampler): number {
    const own = this.pairSeries[p];
    if (own) return sample(own, time);
    const b = this.pairBase[p]!;
    const q = this.pairQuote[p]!;
    return (b === -1 ? 1 : legs[b]!) / (q === -1 ? 1 : legs[q]!);
  }
}

/** Resolves each currency to a driver: XUSD / USDX files first, then crosses through a resolved leg. */
export function planLegs(
  currencies: readonly string[],
  replay: ReadonlyMap<string, BarSeries>,
): { drivers: LegDriver[]; order: number[] } {
  const drivers: (LegDriver | undefined)[] = currencies.map(() => undefined);
  const order: number[] = [];
  const idx = (c: string) => currencies.indexOf(c);
  const resolved = (c: string) => c === 'USD' || (idx(c) >= 0 && drivers[idx(c)] !== undefined);
  const files = [...replay.values()].sort((a, b) => a.symbol.localeCompare(b.symbol));
  for (const s of files) {
    const base = s.symbol.slice(0, 3);
    const quote = s.symbol.slice(3, 6);
    if (quote === 'USD' && idx(base) >= 0 && !resolved(base)) {
      drivers[idx(base)] = { kind: 'series', series: s, invert: false };
      order.push(idx(base));
    }
    if (base === 'USD' && idx(quote) >= 0 && !resolved(quote)) {
      drivers[idx(quote)] = { kind: 'series', series: s, invert: true };
      order.push(idx(quote));
    }
  }
  let progress = true;
  while (progress) {
    progress = false;
    for (const s of files) {
      const base = s.symbol.slice(0, 3);
      const quote = s.symbol.slice(3, 6);
      if (resolved(base) && idx(quote) >= 0 && !resolved(quote)) {
        drivers[idx(quote)] = { kind: 'cross', series: s, via: idx(base), legIsBase: false };
        order.push(idx(quote));
        progress = true;
      } else if (resolved(quote) && idx(base) >= 0 && !resolved(base)) {
        drivers[idx(base)] = { kind: 'cross', series: s, via: idx(quote), legIsBase: true };
        order.push(idx(base));
        progress = true;
      }
    }
  }
  currencies.forEach((_, i) => {
    if (!drivers[i]) order.unshift(i);
  });
  return { drivers: drivers.map((d) => d ?? { kind: 'model' as const }), order };
}
