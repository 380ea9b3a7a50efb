import type { Rng } from './random.js';
import type { Pair } from './types.js';

/**
 * The market model works per currency "leg": the USD value of one unit of each currency.
 * Every pair's mid is base leg ÷ quote leg, so crosses are consistent with their legs by
 * construction (EURGBP = EURUSD ÷ GBPUSD).
 */

/** Annualised volatility of each currency against the dollar (typical realised figures). */
export const LEG_VOLATILITY: Readonly<Record<string, number>> = {
  EUR: 0.075,
  GBP: 0.085,
  JPY: 0.095,
  CHF: 0.075,
  AUD: 0.1,
  CAD: 0.065,
  NZD: 0.105,
};
const DEFAULT_VOLATILITY = 0.09;

/** Starting USD values when nothing better is known (recent typical levels). */
export const REFERENCE_USD_VALUE: Readonly<Record<string, number>> = {
  EUR: 1.085,
  GBP: 1.27,
  JPY: 1 / 150,
  CHF: 1 / 0.88,
  AUD: 0.66,
  CAD: 1 / 1.36,
  NZD: 0.61,
};

const YEAR_MS = 365.25 * 86_400_000;

export interface LegModelOptions {
  /** Share of each leg's move that is a common dollar move (makes EURUSD and GBPUSD correlate; crosses calmer). */
  usdCorrelation?: number;
  /** Half-life of the pull back towards the anchor level: keeps months-long runs in a plausible band. */
  reversionHalfLifeDays?: number;
}

/** Currencies of a set of pairs, without USD. */
export function legCurrencies(pairs: readonly Pick<Pair, 'baseCurrency' | 'quoteCurrency'>[]): string[] {
  const set = new Set<string>();
  for (const p of pairs) {
    set.add(p.baseCurrency);
    set.add(p.quoteCurrency);
  }
  set.delete('USD');
  return [...set].sort();
}

/**
 * Solves leg values from pair mids (e.g. the last stored closes): direct USD pairs first,
 * then crosses through a known leg. Legs no pair reaches keep their reference value.
 */
export function legsFromMids(mids: ReadonlyMap<string, number>, currencies: readonly string[]): Map<string, number> {
  const legs = new Map<string, number>([['USD', 1]]);
  let progress = true;
  while (progress) {
    progress = false;
    for (const [symbol, mid] of mids) {
      if (!(mid > 0)) continue;
      const base = symbol.slice(0, 3);
      const quote = symbol.slice(3, 6);
      const b = legs.get(base);
      const q = legs.get(quote);
      if (b !== undefined && q === undefined) {
        legs.set(quote, b / mid);
        progress = true;
      } else if (q !== undefined && b === undefined) {
        legs.set(base, mid * q);
        progress = true;
      }
    }
  }
  for (const c of currencies) if (!legs.has(c)) legs.set(c, REFERENCE_USD_VALUE[c] ?? 1);
  legs.delete('USD');
  return legs;
}

/**
 * A stochastic model of the legs: log-normal moves with a common dollar factor and a weak
 * mean reversion to the anchor (the level the run started from).
 */
export class LegModel {
  private readonly log = new Map<string, number>();
  private readonly anchor = new Map<string, number>();
  private readonly rho: number;
  private readonly theta: number;

  constructor(
    readonly currencies: readonly string[],
    options: LegModelOptions = {},
  ) {
    this.rho = options.usdCorrelation ?? 0.5;
    const halfLifeYears = (options.reversionHalfLifeDays ?? 20) / 365.25;
    this.theta = Math.LN2 / halfLifeYears;
    for (const c of currencies) this.set(c, REFERENCE_USD_VALUE[c] ?? 1);
  }

  /** Sets a leg's USD value and makes it the level the leg reverts to. */
  set(currency: string, usdValue: number): void {
    const l = Math.log(usdValue);
    this.log.set(currency, l);
    this.anchor.set(currency, l);
  }

  value(currency: string): number {
    if (currency === 'USD') return 1;
    const l = this.log.get(currency);
    return l === undefined ? Number.NaN : Math.exp(l);
  }

  /** Moves the legs in `only` (all by default) forward by `dtMs`. */
  step(dtMs: number, rng: Rng, only?: ReadonlySet<string>): void {
    if (dtMs <= 0) return;
    const dt = dtMs / YEAR_MS;
    const sqrtDt = Math.sqrt(dt);
    const common = rng.normal();
    const own = Math.sqrt(1 - this.rho * this.rho);
    for (const c of this.currencies) {
      if (only && !only.has(c)) continue;
      const z = rng.normal();
      const sigma = LEG_VOLATILITY[c] ?? DEFAULT_VOLATILITY;
      const l = this.log.get(c)!;
      const pull = -this.theta * (l - this.anchor.get(c)!) * dt;
      this.log.set(c, l + pull + sigma * sqrtDt * (this.rho * common + own * z));
    }
  }

  /** Mid of a pair from its legs. */
  mid(pair: Pick<Pair, 'baseCurrency' | 'quoteCurrency'>): number {
    return this.value(pair.baseCurrency) / this.value(pair.quoteCurrency);
  }
}
