import { Dec } from '@pipdesk/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeMarket, seededPairs } from '../test/factories.js';
import { applyFill, MAX_VALUATIONS, Pricing, toMinor, VALUATIONS_DROPPED_AT_ONCE, valueAccount, valuePosition } from './math.js';
import { accountId, type PositionState, positionId } from './types.js';

const d = (v: number | string) => Dec.from(v);
const flat = { quantity: Dec.ZERO, averageEntryPrice: Dec.ZERO };

describe('applyFill (netting)', () => {
  it('docs/trading-rules.md#numbers-that-must-hold flip: BUY 100 at 50, SELL 150 at 55 → −50 at 55, +500; BUY 50 at 52 → FLAT, +150', () => {
    const opened = applyFill(flat, d(100), d(50));
    expect(opened).toMatchObject({ kind: 'open' });
    expect(opened.quantity.toString()).toBe('100');
    const flipped = applyFill(opened, d(-150), d(55));
    expect(flipped.kind).toBe('flip');
    expect(flipped.quantity.toString()).toBe('-50');
    expect(flipped.averageEntryPrice.toString()).toBe('55');
    expect(flipped.realized.toString()).toBe('500');
    const closed = applyFill(flipped, d(50), d(52));
    expect(closed.kind).toBe('close');
    expect(closed.quantity.isZero()).toBe(true);
    expect(closed.realized.toString()).toBe('150');
  });

  it('adds in the same direction and re-averages the entry price', () => {
    const a = applyFill(applyFill(flat, d(1), d('1.1000')), d(3), d('1.1040'));
    expect(a.kind).toBe('add');
    expect(a.quantity.toString()).toBe('4');
    expect(a.averageEntryPrice.toString()).toBe('1.103');
    expect(a.realized.isZero()).toBe(true);
  });

  it('rounds a re-averaged entry price to 10 decimals (the stored precision)', () => {
    const a = applyFill(applyFill(flat, d('0.01'), d('1.00001')), d('0.02'), d('1.00002'));
    expect(a.averageEntryPrice.toString()).toBe('1.0000166667');
  });

  it('reduces without changing the entry price and realizes the closed part', () => {
    const short = applyFill(flat, d(-2), d('150.000'));
    const reduced = applyFill(short, d('0.5'), d('149.000'));
    expect(reduced.kind).toBe('reduce');
    expect(reduced.quantity.toString()).toBe('-1.5');
    expect(reduced.averageEntryPrice.toString()).toBe('150');
    expect(reduced.closedQuantity.toString()).toBe('0.5');
    expect(reduced.realized.toString()).toBe('0.5'); // 0.5 × (150 − 149): a short gains when the price falls
  });

  it('refuses an empty fill', () => {
    expect(() => applyFill(flat, Dec.ZERO, d(1))).toThrow();
  });
});

describe('booking to the ledger', () => {
  it('rounds once, half away from zero, to the cent', () => {
    expect(toMinor(d('-52.4246'))).toBe(-5242);
    expect(toMinor(d('0.005'))).toBe(1);
    expect(toMinor(d('-0.005'))).toBe(-1);
    expect(toMinor(d('16'))).toBe(1600);
  });
});

describe('valuing positions and accounts at current prices', () => {
  const state = (symbol: string, centilots: number, entry: string, pairId = 1): PositionState => ({
    id: positionId(pairId),
    accountId: accountId(1),
    pairId,
    symbol,
    quantityCentilots: centilots,
    averageEntryPrice: entry,
    status: 'OPEN',
    realizedPnlMinor: 0,
    createdAt: 0,
    updatedAt: 0,
    closedAt: null,
  });

  /** EURJPY at 160, with its EUR (EURUSD 1.1) and JPY (USDJPY 145) rates. */
  const eurJpyAt160 = () => {
    const market = new FakeMarket();
    market.set('EURJPY', 160, 160);
    market.set('EURUSD', 1.1, 1.1);
    market.set('USDJPY', 145, 145);
    return { market, pricing: new Pricing(market.pairs, market.prices) };
  };

  it('values a long at bid and a short at ask, converting the quote currency to USD', () => {
    const market = new FakeMarket();
    market.set('USDJPY', 114.44, 114.46); // mid 114.45
    const pricing = new Pricing(market.pairs, market.prices);
    // buy 0.1 lot (10,000 USD) at 115.05; the bid is 114.44 → −6,100 JPY at 114.45
    const long = valuePosition(state('USDJPY', 10, '115.05'), 100, pricing, true);
    expect(long.currentPrice!.toString()).toBe('114.44');
    expect(long.unrealizedPnl.toFixed(2)).toBe('-53.30');
    expect(long.margin.toFixed(2)).toBe('100.00');
    const short = valuePosition(state('USDJPY', -10, '115.05'), 100, pricing, true);
    expect(short.currentPrice!.toString()).toBe('114.46');
    expect(short.unrealizedPnl.toFixed(2)).toBe('51.55'); // 5,900 JPY ÷ 114.45
  });

  it('values a cross through the catalogue (EURJPY margin in EURUSD, P&L in USDJPY)', () => {
    const { pricing } = eurJpyAt160();
    const v = valuePosition(state('EURJPY', 100, '159', 9), 100, pricing, true);
    expect(v.margin.toFixed(2)).toBe('1100.00'); // 100,000 EUR × 1.1 ÷ 100
    expect(v.unrealizedPnl.toFixed(2)).toBe('689.66'); // 100,000 × 1 JPY ÷ 145
  });

  it('converts at the latest tick of the route of each currency: a new tick of its pair, or none, changes the rate; a tick of another pair does not', () => {
    const market = new FakeMarket();
    market.set('EURUSD', 1.1, 1.1);
    market.set('USDJPY', 145, 145);
    const pricing = new Pricing(market.pairs, market.prices);
    const jpy = () => pricing.usdRate('JPY')?.toDec().toFixed(10);
    const eur = () => pricing.usdRate('EUR')?.toDec().toFixed(10);
    expect([eur(), jpy()]).toEqual(['1.1000000000', '0.0068965517']);
    // Until a tick replaces a quote of its route, the rate is the one computed last.
    expect(pricing.usdRate('JPY')).toBe(pricing.usdRate('JPY'));
    const jpyBefore = pricing.usdRate('JPY');
    market.set('EURUSD', 1.1, 1.1);
    expect(pricing.usdRate('JPY')).toBe(jpyBefore);
    market.set('USDJPY', 150, 150);
    expect(pricing.usdRate('JPY')).not.toBe(jpyBefore);
    expect([eur(), jpy()]).toEqual(['1.1000000000', '0.0066666667']);
    market.set('EURUSD', 1.2, 1.2);
    expect([eur(), jpy()]).toEqual(['1.2000000000', '0.0066666667']);
    // NZD goes through NZDUSD only; without its price it has no rate, then it has one.
    expect(pricing.usdRate('NZD')).toBeUndefined();
    market.set('NZDUSD', 0.6, 0.6);
    expect(pricing.usdRate('NZD')?.toDec().toString()).toBe('0.6');
    market.clear('NZDUSD');
    expect(pricing.usdRate('NZD')).toBeUndefined();
  });

  it('converts through a cross at the latest tick of each of its two pairs', () => {
    const eurusd = seededPairs().find((p) => p.symbol === 'EURUSD')!;
    // SEK has no USD pair here: SEK → EUR (÷ EURSEK) → USD (× EURUSD).
    const market = new FakeMarket([
      ...seededPairs(),
      { ...eurusd, id: 99, symbol: 'EURSEK', name: 'EUR/SEK', quoteCurrency: 'SEK' },
    ]);
    const pricing = new Pricing(market.pairs, market.prices);
    const sek = () => pricing.usdRate('SEK')?.toDec().toFixed(10);
    expect(sek()).toBeUndefined();
    market.set('EURSEK', 11, 11);
    expect(sek()).toBeUndefined();
    market.set('EURUSD', 1.1, 1.1);
    expect(sek()).toBe('0.1000000000');
    market.set('EURUSD', 1.2, 1.2);
    expect(sek()).toBe('0.1090909091');
    market.set('EURSEK', 12, 12);
    expect(sek()).toBe('0.1000000000');
  });

  it('values a position again when any input of its last valuation changes: its tick, either rate, its quantity, its entry or the leverage', () => {
    const { market, pricing } = eurJpyAt160();
    const figures = (p: PositionState, leverage = 100) => {
      const v = valuePosition(p, leverage, pricing, true);
      return [v.currentPrice?.toString(), v.unrealizedPnl.toFixed(2), v.margin.toFixed(2)];
    };
    const eurjpy = state('EURJPY', 100, '159', 9);
    expect(figures(eurjpy)).toEqual(['160', '689.66', '1100.00']);
    expect(figures(eurjpy)).toEqual(['160', '689.66', '1100.00']);
    // Between ticks the last valuation is handed out again (its figures are the same objects).
    const again = [valuePosition(eurjpy, 100, pricing, true), valuePosition(eurjpy, 100, pricing, true)];
    expect(again[1]!.unrealizedPnl).toBe(again[0]!.unrealizedPnl);
    expect(again[1]!.margin).toBe(again[0]!.margin);
    // A position not stored yet (id 0, a fill's new one on PostgreSQL) is valued afresh each time.
    const unsaved = { ...eurjpy, id: positionId(0) };
    expect(valuePosition(unsaved, 100, pricing, true).margin).not.toBe(valuePosition(unsaved, 100, pricing, true).margin);
    market.set('EURJPY', 161, 161); // its own tick
    expect(figures(eurjpy)).toEqual(['161', '1379.31', '1100.00']);
    market.set('USDJPY', 150, 150); // the quote currency's rate
    expect(figures(eurjpy)).toEqual(['161', '1333.33', '1100.00']);
    market.set('EURUSD', 1.2, 1.2); // the base currency's rate
    expect(figures(eurjpy)).toEqual(['161', '1333.33', '1200.00']);
    // Each step changes one input of the valuation before it.
    const smaller = { ...eurjpy, quantityCentilots: 50 };
    expect(figures(smaller)).toEqual(['161', '666.67', '600.00']);
    const later = { ...smaller, averageEntryPrice: '160' };
    expect(figures(later)).toEqual(['161', '333.33', '600.00']);
    expect(figures(later, 50)).toEqual(['161', '333.33', '1200.00']);
    market.clear('EURJPY');
    expect(figures(eurjpy)).toEqual([undefined, '0.00', '1200.00']);
  });

  it('hands out a valuation of its own: changing one answer does not change the next', () => {
    const market = new FakeMarket();
    market.set('EURUSD', 1.2, 1.2);
    const pricing = new Pricing(market.pairs, market.prices);
    for (let i = 0; i < 3; i++) {
      const answer = valuePosition(state('EURUSD', 100, '1.19'), 100, pricing, true);
      expect([answer.currentPrice?.toString(), answer.unrealizedPnl.toFixed(2)]).toEqual(['1.2', '1000.00']);
      answer.unrealizedPnl = Dec.from(-1);
      answer.currentPrice = null;
    }
  });

  it('forgets a closed position: its valuation leaves the cache and the count falls back; a read keeps nothing (docs/operations.md#memory)', () => {
    const market = new FakeMarket();
    market.set('EURUSD', 1.2, 1.2);
    const pricing = new Pricing(market.pairs, market.prices);
    const at = (id: number) => valuePosition({ ...state('EURUSD', 100, '1.19'), id: positionId(id) }, 100, pricing, true).margin;
    const kept = [at(1), at(2), at(3)];
    expect(pricing.valuationCount()).toBe(3);
    pricing.forgetValuation(positionId(2));
    expect(pricing.valuationCount()).toBe(2);
    expect(pricing.lastValuation(2)).toBeUndefined();
    // The others are still handed out again; position 2, were it valued again, afresh.
    expect(at(1)).toBe(kept[0]);
    expect(at(2)).not.toBe(kept[1]);
    pricing.forgetValuations();
    expect(pricing.valuationCount()).toBe(0);
    expect(at(3)).not.toBe(kept[2]);
    // A read (keep left out) reuses what the order path kept but keeps nothing itself.
    const read = valuePosition({ ...state('EURUSD', 100, '1.19'), id: positionId(4) }, 100, pricing);
    expect(read.margin.toFixed(2)).toBe(kept[0]!.toFixed(2));
    expect(pricing.valuationCount()).toBe(1);
    expect(valuePosition({ ...state('EURUSD', 100, '1.19'), id: positionId(3) }, 100, pricing).margin).toBe(at(3));
  });

  it(`keeps at most ${MAX_VALUATIONS.toLocaleString('en-US')} valuations: past that the ${VALUATIONS_DROPPED_AT_ONCE.toLocaleString('en-US')} first kept make room`, () => {
    const market = new FakeMarket();
    market.set('EURUSD', 1.2, 1.2);
    market.set('GBPUSD', 1.3, 1.3);
    const pricing = new Pricing(market.pairs, market.prices);
    const at = (id: number, symbol = 'GBPUSD') =>
      valuePosition({ ...state(symbol, 100, '1.19'), id: positionId(id) }, 100, pricing, true).margin;
    const first = at(1, 'EURUSD');
    const kept = new Map<number, Dec>();
    for (let id = 2; id <= MAX_VALUATIONS; id++) kept.set(id, at(id));
    // Full: a position valued again at a new tick takes its own place back, the others stay.
    market.set('EURUSD', 1.25, 1.25);
    const firstNow = at(1, 'EURUSD');
    expect(firstNow).not.toBe(first);
    expect(at(2)).toBe(kept.get(2));
    // One more position: the first kept go (1 to VALUATIONS_DROPPED_AT_ONCE), each valued afresh; the rest stay.
    at(MAX_VALUATIONS + 1);
    const again = at(1, 'EURUSD');
    expect(again).not.toBe(firstNow);
    expect(again.toFixed(2)).toBe(firstNow.toFixed(2));
    for (const id of [2, VALUATIONS_DROPPED_AT_ONCE]) {
      const afresh = at(id);
      expect(afresh, `position ${id}`).not.toBe(kept.get(id));
      expect(afresh.toFixed(2)).toBe(kept.get(id)!.toFixed(2));
    }
    expect(at(VALUATIONS_DROPPED_AT_ONCE + 1)).toBe(kept.get(VALUATIONS_DROPPED_AT_ONCE + 1));
    expect(at(MAX_VALUATIONS)).toBe(kept.get(MAX_VALUATIONS));
  });

  it('values a position by its own pair: the same id under another pair of another contract size, both without a price', () => {
    const eurusd = seededPairs().find((p) => p.symbol === 'EURUSD')!;
    const market = new FakeMarket([
      ...seededPairs(),
      { ...eurusd, id: 98, symbol: 'EURMINI', quoteCurrency: 'JPY', contractSize: 1000 },
    ]);
    market.set('EURUSD', 1.1, 1.1);
    const pricing = new Pricing(market.pairs, market.prices);
    // No tick for either pair: no price and no P&L, the margin from the EUR rate alone.
    expect(valuePosition(state('EURJPY', 100, '159', 9), 100, pricing, true).margin.toFixed(2)).toBe('1100.00');
    expect(valuePosition(state('EURMINI', 100, '159', 9), 100, pricing, true).margin.toFixed(2)).toBe('11.00');
  });

  it('values as a fresh Pricing does, whatever the order of ticks and position changes (property)', () => {
    const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31;
    console.log(`valuePosition reuse property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
    const symbols = ['EURUSD', 'USDJPY', 'EURJPY', 'GBPUSD'] as const;
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('tick' as const),
        symbol: fc.constantFrom(...symbols),
        bump: fc.integer({ min: -50, max: 50 }),
      }),
      fc.record({ kind: fc.constant('clear' as const), symbol: fc.constantFrom(...symbols) }),
      fc.record({
        kind: fc.constant('value' as const),
        id: fc.integer({ min: 1, max: 3 }),
        symbol: fc.constantFrom(...symbols),
        centilots: fc.integer({ min: -500, max: 500 }),
        entry: fc.constantFrom('1.1', '1.25', '145.5', '160.125'),
        leverage: fc.constantFrom(30, 100),
      }),
    );
    const base: Record<(typeof symbols)[number], number> = { EURUSD: 1.1, USDJPY: 145, EURJPY: 160, GBPUSD: 1.3 };
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const market = new FakeMarket();
        const pricing = new Pricing(market.pairs, market.prices);
        for (const s of steps) {
          if (s.kind === 'tick') market.set(s.symbol, base[s.symbol] * (1 + s.bump / 1000));
          else if (s.kind === 'clear') market.clear(s.symbol);
          else {
            const p = { ...state(s.symbol, s.centilots, s.entry), id: positionId(s.id) };
            const text = (v: ReturnType<typeof valuePosition>) => [
              v.currentPrice?.toString(),
              v.unrealizedPnl.toString(),
              v.margin.toString(),
            ];
            expect(text(valuePosition(p, s.leverage, pricing, true))).toEqual(
              text(valuePosition(p, s.leverage, new Pricing(market.pairs, market.prices))),
            );
          }
        }
      }),
      { seed, numRuns: 300 },
    );
  });

  it('computes the account figures of docs/trading-rules.md#account-figures', () => {
    const market = new FakeMarket();
    market.set('EURUSD', 1.2, 1.2);
    const pricing = new Pricing(market.pairs, market.prices);
    const a = valueAccount(1_000_000, 100, [state('EURUSD', 100, '1.19')], pricing);
    expect(a.balance.toFixed(2)).toBe('10000.00');
    expect(a.equity.toFixed(2)).toBe('11000.00');
    expect(a.marginUsed.toFixed(2)).toBe('1200.00');
    expect(a.freeMargin.toFixed(2)).toBe('9800.00');
    expect(a.marginLevel!.toFixed(2)).toBe('916.67');
  });

  it('values nothing without a price (and an account without positions has no margin level)', () => {
    const market = new FakeMarket();
    const pricing = new Pricing(market.pairs, market.prices);
    const v = valuePosition(state('EURUSD', 100, '1.1'), 100, pricing, true);
    expect(v.currentPrice).toBeNull();
    expect(v.unrealizedPnl.isZero()).toBe(true);
    expect(valueAccount(100, 100, [], pricing).marginLevel).toBeNull();
  });
});
