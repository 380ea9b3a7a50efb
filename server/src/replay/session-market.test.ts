import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadReplayData, type Quote, quoteAround } from '../market/index.js';
import { seededPairs } from '../test/factories.js';
import { dataRange, replaySymbols } from './data-range.js';
import { SessionMarket } from './session-market.js';

// Against the real files of server/data/replay, with the seeded catalogue's spreads and digits.
const data = loadReplayData();
const pairs = seededPairs();
const pair = (symbol: string) => pairs.find((p) => p.symbol === symbol)!;
const at = (iso: string) => Date.parse(iso);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** The offsets docs/replay.md promises: open, nearer extreme, other extreme, close. */
const OFFSETS = [0, 20_000, 40_000, 55_000];

function market(symbols: readonly string[], clock: number): SessionMarket {
  return new SessionMarket({ data, pairs: symbols.map(pair), clock });
}

/** Advances to `until`, returning the ticks played. */
function play(m: SessionMarket, until: number): Quote[] {
  const ticks: Quote[] = [];
  m.advanceTo(until, (q) => ticks.push(q));
  return ticks;
}

/** The bar of `symbol` opening at the tick's minute, or −1 when the data has none. */
function barIndex(symbol: string, t: number): number {
  const times = data.get(symbol)!.times;
  const minute = t - (t % MINUTE);
  let lo = 0;
  let hi = times.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] === minute) return mid;
    if (times[mid]! < minute) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The four prices of a bar, written from the rule (not from the code under test). */
function walk(symbol: string, i: number): number[] {
  const s = data.get(symbol)!;
  const [o, h, l, c] = [s.open[i]!, s.high[i]!, s.low[i]!, s.close[i]!];
  return h - o <= o - l ? [o, h, l, c] : [o, l, h, c];
}

/** Every tick after `after` up to `until`, built bar by bar and sorted: the oracle. */
function expectedTicks(symbols: readonly string[], after: number, until: number): Quote[] {
  const end = dataRange(data, symbols)!.to;
  const out: Quote[] = [];
  for (const symbol of symbols) {
    const s = data.get(symbol)!;
    for (let i = 0; i < s.length; i++) {
      if (s.times[i]! + OFFSETS[3]! <= after || s.times[i]! > until) continue;
      walk(symbol, i).forEach((price, k) => {
        const t = s.times[i]! + OFFSETS[k]!;
        if (t > after && t <= until && t < end) out.push(quoteAround(pair(symbol), price, pair(symbol).spread, t));
      });
    }
  }
  return out.sort((a, b) => a.timestamp - b.timestamp || (a.symbol < b.symbol ? -1 : 1));
}

function expectSameTicks(got: readonly Quote[], want: readonly Quote[]): void {
  const first = got.findIndex((q, i) => JSON.stringify(q) !== JSON.stringify(want[i]));
  if (first >= 0 || got.length !== want.length) {
    expect({ index: first, length: got.length, got: got[first] }).toEqual({ index: -1, length: want.length, want: want[first] });
  }
}

describe('a session market over the real minutes', () => {
  it('plays each minute as open, the nearer extreme, the other extreme, close, all within the bar', () => {
    const symbols = ['AUDUSD', 'EURUSD', 'GBPUSD', 'USDJPY'];
    // A second before midnight: a tick at the start is the session's present, not played.
    const m = market(symbols, at('2023-04-16T23:59:59Z'));
    const ticks = play(m, at('2023-04-17T23:59:59Z'));
    expect(m.clock).toBe(at('2023-04-17T23:59:59Z'));
    expect(ticks.length).toBeGreaterThan(4 * 4 * 1400);
    const byBar = new Map<string, Quote[]>();
    ticks.forEach((q, n) => {
      const prev = ticks[n - 1];
      if (prev) expect(q.timestamp > prev.timestamp || (q.timestamp === prev.timestamp && q.symbol > prev.symbol)).toBe(true);
      const i = barIndex(q.symbol, q.timestamp);
      expect(i).toBeGreaterThanOrEqual(0);
      const s = data.get(q.symbol)!;
      expect(q.mid).toBeGreaterThanOrEqual(s.low[i]! - 1e-9);
      expect(q.mid).toBeLessThanOrEqual(s.high[i]! + 1e-9);
      const key = `${q.symbol}@${i}`;
      byBar.set(key, [...(byBar.get(key) ?? []), q]);
    });
    for (const [key, bar] of byBar) {
      const [symbol, index] = key.split('@') as [string, string];
      const s = data.get(symbol)!;
      const i = Number(index);
      expect(bar.map((q) => q.timestamp - s.times[i]!)).toEqual(OFFSETS);
      const [open, first, second, close] = bar.map((q) => q.mid) as [number, number, number, number];
      expect(open).toBeCloseTo(s.open[i]!, 10);
      expect(close).toBeCloseTo(s.close[i]!, 10);
      expect([first, second].sort()).toEqual([s.low[i]!, s.high[i]!].sort());
      expect(Math.abs(first - open)).toBeLessThanOrEqual(Math.abs(second - open) + 1e-12);
    }
  });

  it('skips the minutes the data lacks: no tick in a gap, the clock jumps it', () => {
    // EURUSD has no bar from 2023-04-11 03:00 to 2023-04-13 03:22, GBPUSD one minute more (to 03:23).
    const m = market(['EURUSD', 'GBPUSD'], at('2023-04-11T02:30:00Z'));
    const before = play(m, at('2023-04-11T12:00:00Z'));
    expect(before.at(-1)).toMatchObject({ symbol: 'GBPUSD', timestamp: at('2023-04-11T02:59:55Z') });
    // In the gap the quotes are the last ones before it, with their own time.
    expect(m.quote('EURUSD')?.timestamp).toBe(at('2023-04-11T02:59:55Z'));
    expect(m.nextTickTime()).toBe(at('2023-04-13T03:23:00Z'));
    const after = play(m, at('2023-04-13T03:25:00Z'));
    expect(after.slice(0, 5).map((q) => [q.symbol, new Date(q.timestamp).toISOString()])).toEqual([
      ['EURUSD', '2023-04-13T03:23:00.000Z'],
      ['EURUSD', '2023-04-13T03:23:20.000Z'],
      ['EURUSD', '2023-04-13T03:23:40.000Z'],
      ['EURUSD', '2023-04-13T03:23:55.000Z'],
      ['EURUSD', '2023-04-13T03:24:00.000Z'],
    ]);
    expect(after[5]).toMatchObject({ symbol: 'GBPUSD', timestamp: at('2023-04-13T03:24:00Z') });
    expect([...before, ...after].every((q) => barIndex(q.symbol, q.timestamp) >= 0)).toBe(true);
    expectSameTicks([...before, ...after], expectedTicks(['EURUSD', 'GBPUSD'], at('2023-04-11T02:30:00Z'), m.clock));
  });

  it('quotes bid and ask at the pair spread around the price, at its digits', () => {
    // Half of AUDUSD's 1.3 pips is 6.5 points: rounded outward, as live quotes are (market/quotes.ts).
    const points: Record<string, number> = { EURUSD: 10, AUDUSD: 14, USDJPY: 12, EURCHF: 22 };
    const m = market(Object.keys(points), at('2023-04-20T00:00:00Z'));
    for (const q of play(m, at('2023-04-21T00:00:00Z'))) {
      const { digits } = pair(q.symbol);
      const scale = 10 ** digits;
      const i = barIndex(q.symbol, q.timestamp);
      const price = walk(q.symbol, i)[OFFSETS.indexOf(q.timestamp % MINUTE)]!;
      expect(Number.isInteger(Number((q.bid * scale).toFixed(6)))).toBe(true);
      expect(Math.round((q.ask - q.bid) * scale)).toBe(points[q.symbol]);
      expect(q.mid).toBeCloseTo(price, digits + 3);
      if (q.symbol === 'EURUSD') expect(q.bid).toBeCloseTo(price - 0.00005, 10);
      if (q.symbol === 'USDJPY') expect(q.ask).toBeCloseTo(price + 0.006, 10);
    }
  });

  it('stops at the end of the data of its pairs', () => {
    // EURUSD ends 2023-05-10 14:59; USDJPY goes on but the session does not.
    const m = market(['USDJPY', 'EURUSD'], at('2023-05-10T14:58:30Z'));
    expect(m.symbols).toEqual(['EURUSD', 'USDJPY']);
    const ticks = play(m, at('2023-05-11T00:00:00Z'));
    expect(ticks.at(-1)).toMatchObject({ symbol: 'USDJPY', timestamp: at('2023-05-10T14:59:55Z') });
    expect(m.clock).toBe(at('2023-05-10T15:00:00Z'));
    expect(m.finished).toBe(true);
    expect(m.nextTickTime()).toBeUndefined();
    expect(() => m.advanceTo(at('2023-05-10T14:00:00Z'))).toThrow(/forward only/);
    // Resumed at its end, a finished session has its last quotes and nothing to play.
    const resumed = market(['EURUSD', 'USDJPY'], m.clock);
    expect(resumed.quote('USDJPY')).toEqual(m.quote('USDJPY'));
    expect(resumed.nextTickTime()).toBeUndefined();
  });

  it('refuses to build a session market outside its range', () => {
    expect(() => market(['EURUSD'], at('2023-06-01T00:00:00Z'))).toThrow(
      /runs from 2023-04-03T12:01:00Z to 2023-05-10T15:00:00Z/,
    );
  });

  it('resumes from a persisted clock with exactly the ticks after it', () => {
    const symbols = ['EURCHF', 'GBPUSD', 'USDCAD'];
    const t2 = at('2023-04-14T00:00:00Z');
    // A clock inside a minute, on an instant where all pairs ticked, and inside the long gap.
    for (const t1 of ['2023-04-10T09:13:27.5Z', '2023-04-10T09:13:40Z', '2023-04-12T00:00:00Z']) {
      const a = market(symbols, at('2023-04-10T08:00:00Z'));
      play(a, at(t1));
      const b = market(symbols, a.clock);
      for (const s of symbols) expect(b.quote(s)).toEqual(a.quote(s));
      expect(b.nextTickTime()).toBe(a.nextTickTime());
      expectSameTicks(play(b, t2), play(a, t2));
    }
  });

  it('plays the same ticks however the clock is stepped, and however often it is resumed (property)', () => {
    const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31;
    console.log(`replay session market property seed ${seed} (replay with PROPERTY_SEED=${seed})`);
    const step = fc.oneof(
      fc.integer({ min: 0, max: MINUTE }),
      fc.integer({ min: 1, max: 6 * 60 * MINUTE }),
      fc.constantFrom(DAY, 5_000, 20_000),
    );
    fc.assert(
      fc.property(
        fc.subarray(replaySymbols(data), { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.boolean(),
        fc.array(fc.record({ step, resume: fc.boolean() }), { minLength: 1, maxLength: 6 }),
        (symbols, where, snap, steps) => {
          const range = dataRange(data, symbols)!;
          const raw = range.from + Math.floor(where * (range.to - range.from));
          // Snapped, the start falls on a tick's instant (a whole 20 s) more often than by chance.
          const start = snap ? raw - (raw % 20_000) : raw;
          let m = market(symbols, start);
          const stepped: Quote[] = [];
          let target = start;
          for (const s of steps) {
            target += s.step;
            m.advanceTo(target, (q) => stepped.push(q));
            expect(m.clock).toBe(Math.min(target, range.to));
            if (s.resume) m = market(symbols, m.clock);
          }
          const one = market(symbols, start);
          const single: Quote[] = [];
          for (let t = one.nextTickTime(); t !== undefined && t <= m.clock; t = one.nextTickTime()) {
            one.advanceTo(t, (q) => single.push(q));
          }
          expectSameTicks(stepped, single);
          expectSameTicks(stepped, expectedTicks(symbols, start, m.clock));
        },
      ),
      { seed, numRuns: 40 },
    );
  });
});
