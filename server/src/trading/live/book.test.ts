import { conversionRoute, Dec } from '@pipdesk/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pair, PairCatalog, PriceBook, Quote } from '../../market/index.js';
import { Pricing, valueAccount } from '../math.js';
import { type AccountId, accountId, type PositionId, type PositionState, positionId } from '../types.js';
import { type LiveAccount, LiveBook, MAX_WAITING_TICKS } from './book.js';

const SYMBOLS = [
  'EURUSD',
  'GBPUSD',
  'USDJPY',
  'USDCHF',
  'AUDUSD',
  'USDCAD',
  'NZDUSD',
  'EURGBP',
  'EURJPY',
  'GBPJPY',
  'EURCHF',
  'AUDJPY',
];
const MIDS: Record<string, number> = {
  EURUSD: 1.085,
  GBPUSD: 1.265,
  USDJPY: 151.2,
  USDCHF: 0.905,
  AUDUSD: 0.655,
  USDCAD: 1.355,
  NZDUSD: 0.605,
  EURGBP: 0.857,
  EURJPY: 164.1,
  GBPJPY: 191.3,
  EURCHF: 0.982,
  AUDJPY: 99.05,
};

const catalogue: Pair[] = SYMBOLS.map((symbol, i) => {
  const jpy = symbol.endsWith('JPY');
  return {
    id: i + 1,
    symbol,
    name: symbol,
    baseCurrency: symbol.slice(0, 3),
    quoteCurrency: symbol.slice(3),
    minLotSize: 0.01,
    maxLotSize: 100,
    contractSize: 100_000,
    spread: 1.5,
    pipSize: jpy ? 0.01 : 0.0001,
    digits: jpy ? 3 : 5,
    isActive: true,
  };
});
const pairs: PairCatalog = { list: () => catalogue, get: (s) => catalogue.find((p) => p.symbol === s.toUpperCase()) };

class Prices implements PriceBook {
  readonly quotes = new Map<string, Quote>();
  latest(symbol: string) {
    return this.quotes.get(symbol);
  }
  all() {
    return [...this.quotes.values()];
  }
  receivedAt() {
    return undefined; // valuation only: these tests judge no quote's age
  }
  onTick() {
    return () => {};
  }
}

/** A quote at the pair's digits around `mid`, `spreadPoints` wide. */
function quote(symbol: string, mid: number, spreadPoints = 12, timestamp = 0): Quote {
  const scale = 10 ** (symbol.endsWith('JPY') ? 3 : 5);
  const bidPoints = Math.round(mid * scale) - Math.floor(spreadPoints / 2);
  const askPoints = bidPoints + spreadPoints;
  return { symbol, bid: bidPoints / scale, ask: askPoints / scale, mid: (bidPoints + askPoints) / (2 * scale), timestamp };
}

let nextPositionId = 1;
function state(account: number, symbol: string, quantityCentilots: number, entry: string, updatedAt = 1): PositionState {
  return {
    id: positionId(nextPositionId++),
    accountId: accountId(account),
    pairId: SYMBOLS.indexOf(symbol) + 1,
    symbol,
    quantityCentilots,
    averageEntryPrice: entry,
    status: 'OPEN',
    realizedPnlMinor: 0,
    createdAt: 1,
    updatedAt,
    closedAt: null,
  };
}

/** Loads account `id` (user `id`, 1,000.00 USD at 100:1) with `positions` into the book. */
function loadTestAccount(book: LiveBook, id: number, positions: PositionState[]): LiveAccount {
  return book.loadAccount({
    accountId: accountId(id),
    userId: id,
    balanceMinor: 100_000,
    leverage: 100,
    status: 'ACTIVE',
    positions,
  });
}

function setup() {
  const prices = new Prices();
  const changed: LiveAccount[] = [];
  const book = new LiveBook(catalogue, (a) => changed.push(a));
  const tick = (q: Quote) => {
    prices.quotes.set(q.symbol, q);
    book.onTick(q);
  };
  return { prices, book, changed, tick, pricing: new Pricing(pairs, prices) };
}

describe('LiveBook', () => {
  it('values docs/trading-rules.md#numbers-that-must-hold positions: EURUSD margin 1,200.00 at 1.2000 / 100:1; USDJPY −52.42 USD at 114.45', () => {
    const { book, tick } = setup();
    tick(quote('EURUSD', 1.2, 0));
    tick(quote('USDJPY', 114.45, 0));
    const a = book.loadAccount({
      accountId: accountId(1),
      userId: 10,
      balanceMinor: 1_000_000,
      leverage: 100,
      status: 'ACTIVE',
      positions: [state(1, 'EURUSD', 100, '1.2')],
    });
    expect(book.figures(a).marginUsed.toFixed(2)).toBe('1200.00');
    const b = book.loadAccount({
      accountId: accountId(2),
      userId: 20,
      balanceMinor: 1_000_000,
      leverage: 100,
      status: 'ACTIVE',
      // 10,000 USDJPY bought at 115.05.
      positions: [state(2, 'USDJPY', 10, '115.05')],
    });
    const [position] = b.positions.values();
    expect(position!.unrealized.toFixed(2)).toBe('-52.42');
    expect(book.figures(b).equity.toFixed(2)).toBe('9947.58');
  });

  it('notifies exactly the accounts whose positions a tick revalues (own pair and conversion pairs)', () => {
    const { book, changed, tick } = setup();
    for (const s of SYMBOLS) tick(quote(s, MIDS[s]!));
    const eurgbp = loadTestAccount(book, 1, [state(1, 'EURGBP', 50, '0.85')]);
    const audjpy = loadTestAccount(book, 2, [state(2, 'AUDJPY', -30, '99.5')]);
    const marginBefore = book.figures(eurgbp).marginUsed;
    const touched = (symbol: string, mid: number) => {
      changed.length = 0;
      tick(quote(symbol, mid));
      return changed.map((a) => a.accountId).sort();
    };
    // EURGBP: its own pair, EURUSD (margin: EUR → USD), GBPUSD (P&L: GBP → USD).
    expect(touched('EURUSD', 1.09)).toEqual([1]);
    expect(book.figures(eurgbp).marginUsed.gt(marginBefore)).toBe(true);
    expect(touched('GBPUSD', 1.27)).toEqual([1]);
    // AUDJPY: its own pair, AUDUSD (margin), USDJPY (P&L).
    expect(touched('USDJPY', 151.5)).toEqual([2]);
    expect(touched('AUDUSD', 0.66)).toEqual([2]);
    expect(touched('USDCAD', 1.36)).toEqual([]);
    expect(touched('EURJPY', 164.2)).toEqual([]);
    expect(audjpy.positions.size).toBe(1);
  });

  it('tells its listener whether a tick moved the account’s own prices or only a conversion rate', () => {
    const seen: Array<[number, boolean]> = [];
    const book = new LiveBook(catalogue, (a) => seen.push([a.accountId, a.ownPriceMoved]));
    for (const s of SYMBOLS) book.seedPrice(quote(s, MIDS[s]!));
    const accounts: Array<[number, PositionState[]]> = [
      [1, [state(1, 'EURGBP', 50, '0.85')]],
      [2, [state(2, 'EURGBP', 10, '0.85'), state(2, 'EURUSD', 10, '1.08')]],
    ];
    for (const [id, positions] of accounts) loadTestAccount(book, id, positions);
    const notified = (symbol: string, mid: number) => {
      seen.length = 0;
      book.onTick(quote(symbol, mid));
      return [...seen].sort(([a], [b]) => a - b);
    };
    // GBPUSD converts both accounts' EURGBP P&L; EURUSD is account 2's own pair and account 1's margin rate.
    expect(notified('GBPUSD', 1.27)).toEqual([
      [1, false],
      [2, false],
    ]);
    expect(notified('EURUSD', 1.09)).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(notified('EURGBP', 0.858)).toEqual([
      [1, true],
      [2, true],
    ]);
    // Each tick tells afresh: a rate again after the own pair's tick is a rate.
    expect(notified('GBPUSD', 1.26)).toEqual([
      [1, false],
      [2, false],
    ]);
  });

  it('tells its listener that a rate’s tick moved what the trader sees when it values a position for the first time', () => {
    const seen: boolean[] = [];
    const book = new LiveBook(catalogue, (a) => seen.push(a.ownPriceMoved));
    // EURGBP's own price, no GBPUSD yet: the position is held unvalued.
    book.seedPrice(quote('EURGBP', MIDS.EURGBP!));
    book.seedPrice(quote('EURUSD', MIDS.EURUSD!));
    const account = loadTestAccount(book, 1, [state(1, 'EURGBP', 50, '0.85')]);
    expect(account.unvalued).toBe(1);
    book.onTick(quote('GBPUSD', 1.27));
    expect(account.unvalued).toBe(0);
    book.onTick(quote('GBPUSD', 1.271));
    expect(seen).toEqual([true, false]);
  });

  it('holds a position without a price as unvalued, and values it when the price arrives', () => {
    const { book, tick } = setup();
    const a = book.loadAccount({
      accountId: accountId(1),
      userId: 1,
      balanceMinor: 100_000,
      leverage: 100,
      status: 'ACTIVE',
      positions: [state(1, 'GBPJPY', 10, '190')],
    });
    expect(a.unvalued).toBe(1);
    tick(quote('GBPJPY', 191));
    tick(quote('GBPUSD', 1.26));
    expect(a.unvalued).toBe(1); // JPY → USD still unknown
    tick(quote('USDJPY', 150));
    expect(a.unvalued).toBe(0);
    expect(book.figures(a).marginUsed.toFixed(2)).toBe('126.00');
  });

  it('applies executions: replaces, adds and removes positions; an older state never overwrites a newer one', () => {
    const { book, tick } = setup();
    for (const s of SYMBOLS) tick(quote(s, MIDS[s]!, 0));
    const first = state(1, 'EURUSD', 100, '1.085', 5);
    book.applyExecution(1, 7, { balance_minor: 500_000, leverage: 100 }, first);
    const account = book.account(1)!;
    expect(book.figures(account).marginUsed.toFixed(2)).toBe('1085.00');
    // A late, older state of the same position is ignored.
    book.applyExecution(1, 7, { balance_minor: 500_000, leverage: 100 }, { ...first, quantityCentilots: 300, updatedAt: 4 });
    expect(book.figures(account).marginUsed.toFixed(2)).toBe('1085.00');
    book.applyExecution(
      1,
      7,
      { balance_minor: 512_345, leverage: 100 },
      { ...first, status: 'CLOSED', quantityCentilots: 0, updatedAt: 6 },
    );
    expect(account.positions.size).toBe(0);
    const f = book.figures(account);
    expect([f.equity.toFixed(2), f.marginUsed.toFixed(2), f.marginLevel]).toEqual(['5123.45', '0.00', null]);
  });

  it('equals the order path’s valuation (trading/math.ts) after every tick and execution: property', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`LiveBook vs valueAccount property seed ${seed}`);
    const positionArb = fc.record({
      symbol: fc.constantFrom(...SYMBOLS),
      centilots: fc.integer({ min: 1, max: 5_000 }).chain((n) => fc.constantFrom(n, -n)),
      entryOffset: fc.integer({ min: -300, max: 300 }),
    });
    const stepArb = fc.oneof(
      fc.record({
        kind: fc.constant('tick' as const),
        symbol: fc.constantFrom(...SYMBOLS),
        move: fc.integer({ min: -400, max: 400 }),
        spread: fc.integer({ min: 0, max: 40 }),
      }),
      fc.record({ kind: fc.constant('replace' as const), account: fc.nat(2), position: positionArb }),
      fc.record({ kind: fc.constant('close' as const), account: fc.nat(2), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ balance: fc.integer({ min: -50_000, max: 5_000_000 }), leverage: fc.constantFrom(30, 50, 100, 200, 400) }),
          {
            minLength: 3,
            maxLength: 3,
          },
        ),
        fc.array(fc.array(positionArb, { maxLength: 5 }), { minLength: 3, maxLength: 3 }),
        fc.array(stepArb, { maxLength: 40 }),
        (accountsIn, positionsIn, steps) => {
          const { book, tick, pricing } = setup();
          const mids = { ...MIDS };
          for (const s of SYMBOLS) tick(quote(s, mids[s]!));
          const entryOf = (symbol: string, offset: number) => {
            const digits = symbol.endsWith('JPY') ? 3 : 5;
            return Dec.from(mids[symbol]!).plus(Dec.scaled(offset, digits)).toString();
          };
          const held: Array<Map<string, PositionState>> = accountsIn.map(() => new Map());
          let clock = 10;
          const accounts = accountsIn.map((a, i) => {
            for (const p of positionsIn[i]!)
              held[i]!.set(p.symbol, state(i + 1, p.symbol, p.centilots, entryOf(p.symbol, p.entryOffset)));
            return book.loadAccount({
              accountId: accountId(i + 1) as AccountId,
              userId: 100 + i,
              balanceMinor: a.balance,
              leverage: a.leverage,
              status: 'ACTIVE',
              positions: [...held[i]!.values()],
            });
          });
          const check = () => {
            accounts.forEach((account, i) => {
              const expected = valueAccount(account.balanceMinor, account.leverage, held[i]!.values(), pricing);
              const actual = book.figures(account);
              expect(actual.equity.eq(expected.equity)).toBe(true);
              expect(actual.marginUsed.eq(expected.marginUsed)).toBe(true);
              expect(actual.freeMargin.eq(expected.freeMargin)).toBe(true);
              expect(actual.marginLevel === null ? null : actual.marginLevel.toString()).toBe(
                expected.marginLevel?.toString() ?? null,
              );
              for (const [id, value] of expected.positions) {
                expect(account.positions.get(id)!.unrealized.eq(value.unrealizedPnl)).toBe(true);
              }
            });
          };
          check();
          for (const step of steps) {
            clock++;
            if (step.kind === 'tick') {
              const digits = step.symbol.endsWith('JPY') ? 3 : 5;
              mids[step.symbol] = Dec.from(mids[step.symbol]!).plus(Dec.scaled(step.move, digits)).toNumber(digits);
              tick(quote(step.symbol, mids[step.symbol]!, step.spread + 1, clock));
            } else if (step.kind === 'replace') {
              const current = held[step.account]!.get(step.position.symbol);
              const next = current
                ? {
                    ...current,
                    quantityCentilots: step.position.centilots,
                    averageEntryPrice: entryOf(step.position.symbol, step.position.entryOffset),
                    updatedAt: clock,
                  }
                : state(
                    step.account + 1,
                    step.position.symbol,
                    step.position.centilots,
                    entryOf(step.position.symbol, step.position.entryOffset),
                    clock,
                  );
              held[step.account]!.set(next.symbol, next);
              const account = accounts[step.account]!;
              book.applyExecution(
                account.accountId,
                account.userId,
                { balance_minor: account.balanceMinor + 1_234, leverage: account.leverage },
                next,
              );
            } else {
              const list = [...held[step.account]!.values()];
              if (list.length === 0) continue;
              const victim = list[step.pick % list.length]!;
              held[step.account]!.delete(victim.symbol);
              const account = accounts[step.account]!;
              book.applyExecution(
                account.accountId,
                account.userId,
                { balance_minor: account.balanceMinor - 777, leverage: account.leverage },
                { ...victim, status: 'CLOSED', quantityCentilots: 0, updatedAt: clock, closedAt: clock },
              );
            }
            check();
          }
        },
      ),
      { seed, numRuns: 150 },
    );
  });

  it('tells exactly whether the margin level is at or below a level, boundaries included', () => {
    const { book, tick } = setup();
    tick(quote('EURUSD', 1.2, 0));
    const at = (balanceMinor: number) =>
      book.loadAccount({
        accountId: accountId(balanceMinor),
        userId: balanceMinor,
        balanceMinor,
        leverage: 100,
        status: 'ACTIVE',
        positions: [state(balanceMinor, 'EURUSD', 100, '1.2')],
      });
    const raw = (level: number | string) => Dec.from(level).raw;
    const hundred = at(120_000); // equity 1,200.00 = margin 1,200.00: exactly 100 %
    expect(book.figures(hundred).marginLevel!.toString()).toBe('100');
    expect(book.levelAtOrBelow(hundred, raw(100))).toBe(true);
    expect(book.levelAtOrBelow(hundred, raw('99.99999'))).toBe(false);
    const half = at(60_000); // exactly 50 %
    expect(book.levelAtOrBelow(half, raw(50))).toBe(true);
    expect(book.levelAtOrBelow(half, raw('49.99999'))).toBe(false);
    const flat = book.ensureAccount(999, 999, 100, 100); // no margin used: never at or below
    expect(book.levelAtOrBelow(flat, raw(100))).toBe(false);
  });

  it('picks the largest loser', () => {
    const { book, tick } = setup();
    tick(quote('EURUSD', 1.1, 0));
    tick(quote('GBPUSD', 1.3, 0));
    const a = book.loadAccount({
      accountId: accountId(1),
      userId: 1,
      balanceMinor: 100_000,
      leverage: 100,
      status: 'ACTIVE',
      positions: [state(1, 'EURUSD', 100, '1.105'), state(1, 'GBPUSD', 100, '1.31')],
    });
    // EURUSD −500.00, GBPUSD −1,000.00.
    expect(Number(book.largestLoser(a)!.state.id as PositionId)).toBe(Number([...a.positions.values()][1]!.state.id));
  });

  it('has a conversion route for every currency of the catalogue', () => {
    const terms = catalogue.map((p) => ({ symbol: p.symbol, base_currency: p.baseCurrency, quote_currency: p.quoteCurrency }));
    for (const p of catalogue) {
      expect(conversionRoute(p.baseCurrency, terms)).toBeDefined();
      expect(conversionRoute(p.quoteCurrency, terms)).toBeDefined();
    }
  });
});

describe('LiveBook: a large tick in slices (docs/operations.md#ticks-in-slices)', () => {
  /** Two books with the same accounts: one applies every tick at once, the other 4 positions a turn. */
  function twoBooks() {
    const changed: Array<{ account: number; unrealized: string; tick: string | undefined }> = [];
    const whole = new LiveBook(catalogue, () => {});
    const sliced = new LiveBook(
      catalogue,
      (a) =>
        changed.push({ account: a.accountId, unrealized: a.unrealizedSum.toFixed(10), tick: sliced.currentTick?.mid.toString() }),
      undefined,
      4,
    );
    for (const s of SYMBOLS) {
      whole.seedPrice(quote(s, MIDS[s]!));
      sliced.seedPrice(quote(s, MIDS[s]!));
    }
    // Ten accounts, each with a EURUSD position and a EURGBP one (both move on a EURUSD tick: the
    // pair itself, and EURGBP's margin through EUR's rate), so a EURUSD tick moves 20 positions.
    for (let id = 1; id <= 10; id++) {
      const positions = () => [state(id, 'EURUSD', 10 * id, '1.08'), state(id, 'EURGBP', -5 * id, '0.86')];
      loadTestAccount(whole, id, positions());
      loadTestAccount(sliced, id, positions());
    }
    return { whole, sliced, changed };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const unrealized = (book: LiveBook) => book.accountIds().map((id) => book.account(id)!.unrealizedSum.toFixed(10));

  it('revalues whole accounts per turn, lets the event loop run between, and ends where the whole tick does', async () => {
    const { whole, sliced, changed } = twoBooks();
    const before = unrealized(sliced);
    whole.onTick(quote('EURUSD', 1.09));
    sliced.onTick(quote('EURUSD', 1.09));
    // The first turn took two accounts (4 positions): notified with that tick, each whole.
    expect(changed.map((c) => c.account)).toEqual([1, 2]);
    expect(changed.every((c) => c.tick === quote('EURUSD', 1.09).mid.toString())).toBe(true);
    expect(unrealized(sliced).slice(2)).toEqual(before.slice(2));
    expect(sliced.ticksPending()).toBe(1);
    await turn();
    expect(changed).toHaveLength(4);
    let turns = 1;
    for (; sliced.ticksPending() > 0; turns++) await turn();
    // Five turns of two accounts, and one that finds the walk at its end.
    expect(turns).toBeLessThanOrEqual(6);
    expect(changed.map((c) => c.account)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(unrealized(sliced)).toEqual(unrealized(whole));
  });

  it('applies ticks that arrive meanwhile after it, in order, none skipped', async () => {
    const { whole, sliced, changed } = twoBooks();
    const ticks = [quote('EURUSD', 1.09), quote('GBPUSD', 1.27), quote('EURUSD', 1.0905), quote('EURGBP', 0.861)];
    for (const q of ticks) {
      whole.onTick(q);
      sliced.onTick(q);
    }
    expect(sliced.ticksPending()).toBe(4);
    while (sliced.ticksPending() > 0) await turn();
    expect(unrealized(sliced)).toEqual(unrealized(whole));
    // Every account heard of each of the four ticks, in the order they came.
    const mids = ticks.map((q) => q.mid.toString());
    for (let id = 1; id <= 10; id++) expect(changed.filter((c) => c.account === id).map((c) => c.tick)).toEqual(mids);
  });

  it('once MAX_WAITING_TICKS wait, a pair’s newer tick takes the place of its waiting one: the queue stays bounded and ends at the newest prices', async () => {
    const { whole, sliced } = twoBooks();
    const ticks: Quote[] = [];
    for (let i = 0; i < 300; i++) {
      const symbol = ['EURUSD', 'GBPUSD', 'EURGBP'][i % 3]!;
      ticks.push(quote(symbol, MIDS[symbol]! + (i % 7) * 0.0001));
    }
    for (const q of ticks) sliced.onTick(q);
    // The first tick is under way; MAX_WAITING_TICKS wait, and those after them each replaced one of its pair.
    expect(sliced.ticksPending()).toBe(1 + MAX_WAITING_TICKS);
    while (sliced.ticksPending() > 0) await turn();
    for (const q of ticks.slice(-3)) whole.onTick(q);
    expect(unrealized(sliced)).toEqual(unrealized(whole));
  });

  it('goes on with the tick and those behind it after a listener throws', async () => {
    const seen: number[] = [];
    let thrown = false;
    const book = new LiveBook(
      catalogue,
      (a) => {
        seen.push(a.accountId);
        if (a.accountId === 1 && !thrown) {
          thrown = true;
          throw new Error('listener failed');
        }
      },
      undefined,
      1,
    );
    for (const s of SYMBOLS) book.seedPrice(quote(s, MIDS[s]!));
    for (let id = 1; id <= 3; id++) loadTestAccount(book, id, [state(id, 'EURUSD', 10, '1.08')]);
    expect(() => book.onTick(quote('EURUSD', 1.09))).toThrow('listener failed');
    book.onTick(quote('EURUSD', 1.091));
    while (book.ticksPending() > 0) await turn();
    expect(seen).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it('stops: the tick under way and those waiting are dropped', async () => {
    const { sliced, changed } = twoBooks();
    sliced.onTick(quote('EURUSD', 1.09));
    sliced.onTick(quote('EURUSD', 1.091));
    sliced.stop();
    expect(sliced.ticksPending()).toBe(0);
    await turn();
    expect(changed.map((c) => c.account)).toEqual([1, 2]);
  });
});
