import { type FxPair, pairName } from '@pipdesk/contract';
import type { Selectable } from 'kysely';
import type { FxPairsTable } from './tables.js';
import type { Pair, PairCatalog } from './types.js';

/** What the seed knows about a pair beyond its symbol. */
export interface PairSeed {
  symbol: string;
  /** Typical spread in pips: about 1 on EURUSD, wider on the less traded crosses. */
  spread: number;
}

/**
 * The seeded catalogue (docs/trading-rules.md#pairs). Spreads are typical retail ECN spreads in pips
 * (majors about 1, crosses 1.5 to 3); JPY-quoted pairs have 3 digits and a 0.01 pip.
 */
export const PAIR_SEEDS: readonly PairSeed[] = [
  { symbol: 'EURUSD', spread: 1.0 },
  { symbol: 'GBPUSD', spread: 1.4 },
  { symbol: 'USDJPY', spread: 1.2 },
  { symbol: 'USDCHF', spread: 1.6 },
  { symbol: 'AUDUSD', spread: 1.3 },
  { symbol: 'USDCAD', spread: 1.8 },
  { symbol: 'NZDUSD', spread: 2.0 },
  { symbol: 'EURGBP', spread: 1.8 },
  { symbol: 'EURJPY', spread: 2.0 },
  { symbol: 'GBPJPY', spread: 3.0 },
  { symbol: 'EURCHF', spread: 2.2 },
  { symbol: 'AUDJPY', spread: 2.4 },
];

/** The row a seed becomes. */
export function seedRow(seed: PairSeed) {
  const base = seed.symbol.slice(0, 3);
  const quote = seed.symbol.slice(3, 6);
  const jpy = quote === 'JPY';
  return {
    symbol: seed.symbol,
    name: pairName(seed.symbol),
    base_currency: base,
    quote_currency: quote,
    min_lot_size: '0.01',
    max_lot_size: '100',
    contract_size: 100_000,
    spread: String(seed.spread),
    pip_size: jpy ? '0.01' : '0.0001',
    digits: jpy ? 3 : 5,
    is_active: 1,
  };
}

/** A pair's row, stored (`fx_pairs`) or seeded (`seedRow`), as the server's Pair. */
export function pairFromRow(id: number, r: Omit<Selectable<FxPairsTable>, 'id'>): Pair {
  return {
    id,
    symbol: r.symbol,
    name: r.name,
    baseCurrency: r.base_currency,
    quoteCurrency: r.quote_currency,
    minLotSize: Number(r.min_lot_size),
    maxLotSize: Number(r.max_lot_size),
    contractSize: Number(r.contract_size),
    spread: Number(r.spread),
    pipSize: Number(r.pip_size),
    digits: Number(r.digits),
    isActive: Number(r.is_active) === 1,
  };
}

/** The seeded catalogue as Pairs with ids 1..12, as a fresh database stores them (tests and in-process benches). */
export function seededPairs(): Pair[] {
  return PAIR_SEEDS.map((seed, i) => pairFromRow(i + 1, seedRow(seed)));
}

/** The FxPair answer of every call that lists or shows a pair. */
export function pairDto(pair: Pair): FxPair {
  return {
    id: pair.id,
    symbol: pair.symbol,
    name: pair.name,
    base_currency: pair.baseCurrency,
    quote_currency: pair.quoteCurrency,
    min_lot_size: pair.minLotSize,
    max_lot_size: pair.maxLotSize,
    contract_size: pair.contractSize,
    spread: pair.spread,
    pip_size: pair.pipSize,
    digits: pair.digits,
    is_active: pair.isActive,
  };
}

/** Market activity of a pair: majors tick more often than crosses. */
export function isMajor(pair: Pick<Pair, 'baseCurrency' | 'quoteCurrency'>): boolean {
  return pair.baseCurrency === 'USD' || pair.quoteCurrency === 'USD';
}

/** The catalogue in memory (loaded at start; pairs change only through migrations or seeds). */
export class Catalog implements PairCatalog {
  private readonly bySymbol: Map<string, Pair>;
  private readonly byId: Map<number, Pair>;
  constructor(private readonly pairs: readonly Pair[]) {
    this.bySymbol = new Map(pairs.map((p) => [p.symbol, p]));
    this.byId = new Map(pairs.map((p) => [p.id, p]));
  }
  list(): Pair[] {
    return [...this.pairs];
  }
  /** Pairs that are quoted and traded. */
  active(): Pair[] {
    return this.pairs.filter((p) => p.isActive);
  }
  get(symbol: string): Pair | undefined {
    return this.bySymbol.get(symbol.toUpperCase());
  }
  getById(id: number): Pair | undefined {
    return this.byId.get(id);
  }
}
