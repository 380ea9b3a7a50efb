import { describe, expect, it } from 'vitest';
import { Dec } from './decimal.js';
import {
  type AccountScenario,
  DEFAULT_MARGIN_CALL_LEVEL,
  DEFAULT_STOP_OUT_LEVEL,
  pipsBetween,
  priceAtMarginLevel,
  priceAtPips,
  type QuoteTerms,
  quoteMovedTo,
  realizedAtPriceUsd,
  scenarioAfterFill,
  scenarioFigures,
} from './ticket-math.js';
import type { PairTerms } from './trading-math.js';

// The order ticket's figures (docs/screens.md#order-ticket): money at a stop or target, the
// account after an order, and where a margin call and a stop-out would hit.

const pair = (symbol: string): PairTerms => ({
  symbol,
  base_currency: symbol.slice(0, 3),
  quote_currency: symbol.slice(3),
  contract_size: 100_000,
  min_lot_size: 0.01,
  max_lot_size: 100,
  pip_size: symbol.endsWith('JPY') ? 0.01 : 0.0001,
});
const CATALOGUE = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'USDCAD', 'EURGBP', 'EURJPY'].map(pair);
const QUOTES: Record<string, QuoteTerms> = {
  EURUSD: { bid: 1.1, ask: 1.1002 },
  GBPUSD: { bid: 1.27, ask: 1.2702 },
  USDJPY: { bid: 150, ask: 150.02 },
  USDCHF: { bid: 0.88, ask: 0.8802 },
  USDCAD: { bid: 1.36, ask: 1.3602 },
  EURGBP: { bid: 0.86, ask: 0.8602 },
  EURJPY: { bid: 165, ask: 165.02 },
};
const quote = (s: string) => QUOTES[s];
const P = (symbol: string) => CATALOGUE.find((p) => p.symbol === symbol)!;

describe('pips and prices', () => {
  it('a distance in pips from a price, rounded to the digits, and back', () => {
    expect(priceAtPips(1.1002, -20, 0.0001, 5).toString()).toBe('1.0982');
    expect(priceAtPips(150.02, 35.5, 0.01, 3).toString()).toBe('150.375');
    expect(pipsBetween(1.1002, 1.0982, 0.0001).toString()).toBe('-20');
    expect(pipsBetween(150.02, 150.375, 0.01).toString()).toBe('35.5');
  });

  it('moving a quote keeps its spread and leaves the other pairs alone', () => {
    const moved = quoteMovedTo(quote, 'USDJPY', 151);
    expect(Dec.from(moved('USDJPY')!.ask).toString()).toBe('151.02');
    expect(moved('EURUSD')).toBe(QUOTES.EURUSD);
  });
});

describe('USD realized at a stop or a target (as the server books it)', () => {
  const at = (symbol: string, side: 'BUY' | 'SELL', lots: number, entry: number, exit: number) =>
    realizedAtPriceUsd({ pair: P(symbol), pairs: CATALOGUE, quote, side, lots, entry, exit })?.toFixed(2);

  it('USD-quoted: EURUSD 1 lot bought at 1.10020, stopped at 1.09820 → −200.00', () => {
    expect(at('EURUSD', 'BUY', 1, 1.1002, 1.0982)).toBe('-200.00');
  });

  it('USD-based: USDCHF 1 lot bought at 0.88020, closed at the bid 0.88520 → 500 CHF at that moment’s mid 0.88530 → +564.78', () => {
    // 500 ÷ 0.8853 = 564.7803…: the franc converts at the mid of the moment of the close, not today's.
    expect(at('USDCHF', 'BUY', 1, 0.8802, 0.8852)).toBe('564.78');
  });

  it('JPY: USDJPY 0.1 lot sold at 150.000, stopped at the ask 150.500 → −5,000 JPY at mid 150.49 → −33.22', () => {
    expect(at('USDJPY', 'SELL', 0.1, 150, 150.5)).toBe('-33.22');
  });

  it('cross: EURGBP 1 lot bought at 0.86020, stopped at 0.85520 → −500 GBP at GBPUSD 1.2701 → −635.05', () => {
    expect(at('EURGBP', 'BUY', 1, 0.8602, 0.8552)).toBe('-635.05');
  });

  it('equals the balance change of closing the position in the moved market (seeded property)', () => {
    const seed = Number(process.env.TEST_SEED ?? Date.now() % 1_000_000);
    console.log(`realizedAtPriceUsd property seed ${seed}`);
    let state = seed;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    for (let i = 0; i < 200; i++) {
      const symbol = CATALOGUE[Math.floor(random() * CATALOGUE.length)]!.symbol;
      const digits = symbol.endsWith('JPY') ? 3 : 5;
      const base = Dec.from(QUOTES[symbol]!.bid);
      const side = random() < 0.5 ? 'BUY' : 'SELL';
      const lots = Dec.scaled(1 + Math.floor(random() * 500), 2);
      const entry = base.times(0.95 + random() * 0.1).round(digits);
      const exit = base.times(0.95 + random() * 0.1).round(digits);
      const spread = Dec.from(QUOTES[symbol]!.ask).minus(QUOTES[symbol]!.bid);
      const exitQuote = quoteMovedTo(quote, symbol, side === 'BUY' ? exit : exit.minus(spread));
      const open: AccountScenario = {
        balance: 10_000,
        leverage: 100,
        positions: [{ symbol, quantity: side === 'BUY' ? lots : lots.neg(), entry }],
        pairs: CATALOGUE,
        quote: exitQuote,
      };
      const closed = scenarioAfterFill(open, { symbol, side: side === 'BUY' ? 'SELL' : 'BUY', lots, price: exit });
      const expected = Dec.from(closed.balance).minus(10_000);
      const got = realizedAtPriceUsd({ pair: P(symbol), pairs: CATALOGUE, quote, side, lots, entry, exit });
      expect(got?.toString(), `seed ${seed}, case ${i}`).toBe(expected.toString());
      expect(closed.positions).toEqual([]);
    }
  });
});

describe('the account after a fill (netting as the server does)', () => {
  const account = (positions: AccountScenario['positions'], balance = 10_000): AccountScenario => ({
    balance,
    leverage: 100,
    positions,
    pairs: CATALOGUE,
    quote,
  });

  it('values each position at its closing price and margin at the base rate', () => {
    // 1 lot EURUSD long from 1.09000: +1,000.00 at the bid 1.10000; margin 100,000 × 1.1001 ÷ 100 = 1,100.10.
    const figures = scenarioFigures(account([{ symbol: 'EURUSD', quantity: 1, entry: 1.09 }]));
    expect(figures.equity.toFixed(2)).toBe('11000.00');
    expect(figures.marginUsed.toFixed(2)).toBe('1100.10');
    expect(figures.marginLevel!.toFixed(4)).toBe('999.9091');
  });

  it('adds and re-averages the entry', () => {
    const after = scenarioAfterFill(account([{ symbol: 'EURUSD', quantity: 1, entry: 1.09 }]), {
      symbol: 'EURUSD',
      side: 'BUY',
      lots: 1,
      price: 1.1002,
    });
    expect(after.positions).toHaveLength(1);
    expect(Dec.from(after.positions[0]!.quantity).toString()).toBe('2');
    expect(Dec.from(after.positions[0]!.entry).toString()).toBe('1.0951');
    expect(Dec.from(after.balance).toString()).toBe('10000');
  });

  it('reduces with the closed part realized to the balance, then flips at the fill price', () => {
    const start = account([{ symbol: 'USDJPY', quantity: -1, entry: 151 }]);
    // Buy back 0.4 at the ask 150.02: 40,000 × 0.98 = 39,200 JPY ÷ mid 150.01 = 261.3159… → +261.32.
    const reduced = scenarioAfterFill(start, { symbol: 'USDJPY', side: 'BUY', lots: 0.4, price: 150.02 });
    expect(Dec.from(reduced.balance).toFixed(2)).toBe('10261.32');
    expect(Dec.from(reduced.positions[0]!.quantity).toString()).toBe('-0.6');
    expect(Dec.from(reduced.positions[0]!.entry).toString()).toBe('151');
    const flipped = scenarioAfterFill(start, { symbol: 'USDJPY', side: 'BUY', lots: 1.5, price: 150.02 });
    expect(Dec.from(flipped.positions[0]!.quantity).toString()).toBe('0.5');
    expect(Dec.from(flipped.positions[0]!.entry).toString()).toBe('150.02');
    const closed = scenarioAfterFill(start, { symbol: 'USDJPY', side: 'BUY', lots: 1, price: 150.02 });
    expect(closed.positions).toEqual([]);
  });
});

describe('where a margin call and a stop-out would hit', () => {
  it('a long: the first bid of the grid at which equity ÷ margin falls to the level', () => {
    // 1 lot EURUSD from 1.10020, balance 10,000: equity(b) = 10,000 + 100,000 (b − 1.1002), margin(b) = 1,000 (b + 0.0001).
    // 100 %: 99,000 b ≤ 100,020.1 → b ≤ 1.0103040…; 50 %: 99,500 b ≤ 100,020.05 → b ≤ 1.0052266…
    const scenario: AccountScenario = {
      balance: 10_000,
      leverage: 100,
      positions: [{ symbol: 'EURUSD', quantity: 1, entry: 1.1002 }],
      pairs: CATALOGUE,
      quote,
    };
    const call = priceAtMarginLevel(scenario, 'EURUSD', 5, DEFAULT_MARGIN_CALL_LEVEL)!;
    expect(call).toEqual({ price: Dec.from('1.0103'), now: false });
    expect(priceAtMarginLevel(scenario, 'EURUSD', 5, DEFAULT_STOP_OUT_LEVEL)!.price.toString()).toBe('1.00522');
    // One tick above the answer the level is not reached yet.
    const levelAt = (bid: string) =>
      scenarioFigures({ ...scenario, quote: quoteMovedTo(quote, 'EURUSD', bid) }).marginLevel!.toNumber(6);
    expect(levelAt('1.01030')).toBeLessThanOrEqual(100);
    expect(levelAt('1.01031')).toBeGreaterThan(100);
  });

  it('a short on a JPY pair: the first ask at or above which the level is reached', () => {
    // 1 lot USDJPY short from 150.000, balance 2,000: margin 1,000 USD; equity(a) = 2,000 + 100,000 (150 − a) ÷ (a − 0.01).
    // 100 %: 99,000 a ≥ 14,999,990 → a ≥ 151.5150505… → 151.516.
    const scenario: AccountScenario = {
      balance: 2_000,
      leverage: 100,
      positions: [{ symbol: 'USDJPY', quantity: -1, entry: 150 }],
      pairs: CATALOGUE,
      quote,
    };
    expect(priceAtMarginLevel(scenario, 'USDJPY', 3, 100)).toEqual({ price: Dec.from('151.516'), now: false });
  });

  it('says now when the level is already reached, and null with nothing held in the pair', () => {
    const scenario: AccountScenario = {
      balance: 1_000,
      leverage: 100,
      positions: [{ symbol: 'EURUSD', quantity: 1, entry: 1.1002 }],
      pairs: CATALOGUE,
      quote,
    };
    // Equity 980 against a margin of 1,100.10: 89 %.
    expect(priceAtMarginLevel(scenario, 'EURUSD', 5, 100)).toEqual({ price: Dec.from('1.1'), now: true });
    expect(priceAtMarginLevel(scenario, 'USDJPY', 3, 100)).toBeNull();
  });
});
