import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { seededPairs } from '../test/factories.js';
import { LegModel, legCurrencies } from './legs.js';
import { createRng } from './random.js';
import { ModelPriceSource } from './sources/model-source.js';
import { ManualTimers } from './sources/timers.js';
import type { Pair, Quote } from './types.js';

const pairs = seededPairs();
const bySymbol = new Map(pairs.map((p) => [p.symbol, p]));

/** A random seed per run, printed so a failure can be replayed with TEST_SEED. */
function runSeed(label: string): number {
  const seed = process.env.TEST_SEED ? Number(process.env.TEST_SEED) : Math.floor(Math.random() * 2 ** 31);
  console.log(`${label}: seed ${seed} (rerun with TEST_SEED=${seed})`);
  return seed;
}

interface Run {
  ticks: Quote[];
  /** The model's quotes of every pair after each step. */
  snapshots: Quote[][];
  seconds: number;
}

async function runSimulator(seed: number, steps: number, resume?: Map<string, number>): Promise<Run> {
  const clock = new ManualClock(Date.UTC(2026, 2, 2, 9, 0, 0));
  const start = clock.now();
  const timers = new ManualTimers(
    () => clock.now(),
    (ms) => clock.set(ms),
  );
  const source = new ModelPriceSource({ pairs, seed, clock, timers });
  if (resume) source.resume(resume);
  const ticks: Quote[] = [];
  const snapshots: Quote[][] = [];
  await source.start((q) => ticks.push(q));
  snapshots.push(source.snapshot());
  for (let i = 0; i < steps; i++) {
    timers.runNext();
    snapshots.push(source.snapshot());
  }
  await source.stop();
  return { ticks, snapshots, seconds: (clock.now() - start) / 1000 };
}

/** A cross's mid from the USD pairs of its legs (an independent derivation). */
function crossFromLegs(cross: Pair, quotes: Map<string, Quote>): number {
  const usdValue = (c: string): number => {
    const direct = quotes.get(`${c}USD`);
    if (direct) return direct.mid;
    return 1 / quotes.get(`USD${c}`)!.mid;
  };
  return usdValue(cross.baseCurrency) / usdValue(cross.quoteCurrency);
}

const crosses = pairs.filter((p) => p.baseCurrency !== 'USD' && p.quoteCurrency !== 'USD');

describe('price simulator', () => {
  it('quotes bid below ask with at least the configured spread, on every tick', async () => {
    const seed = runSeed('spread');
    const run = await runSimulator(seed, 3000);
    expect(run.ticks.length).toBeGreaterThan(5000);
    for (const q of run.ticks) {
      const pair = bySymbol.get(q.symbol)!;
      expect(q.bid).toBeLessThan(q.ask);
      expect(q.ask - q.bid).toBeGreaterThanOrEqual(pair.spread * pair.pipSize - 1e-9);
      // Quotes carry the pair's digits and a mid exactly between bid and ask.
      expect(Math.abs(q.bid * 10 ** pair.digits - Math.round(q.bid * 10 ** pair.digits))).toBeLessThan(1e-6);
      expect(q.mid).toBeCloseTo((q.bid + q.ask) / 2, 10);
    }
  });

  it('widens the spread now and then, and never for long', async () => {
    const seed = runSeed('widening');
    const run = await runSimulator(seed, 16_000);
    const eurusd = run.ticks.filter((q) => q.symbol === 'EURUSD');
    const wide = eurusd.filter((q) => q.ask - q.bid > 1.45 * 0.0001 + 1e-9);
    expect(wide.length).toBeGreaterThan(0);
    expect(wide.length / eurusd.length).toBeLessThan(0.2);
  });

  it('keeps every cross consistent with its legs (EURGBP = EURUSD / GBPUSD within a spread)', async () => {
    const seed = runSeed('crosses');
    const run = await runSimulator(seed, 2000);
    for (const snapshot of run.snapshots) {
      const quotes = new Map(snapshot.map((q) => [q.symbol, q]));
      for (const cross of crosses) {
        const derived = crossFromLegs(cross, quotes);
        expect(Math.abs(quotes.get(cross.symbol)!.mid - derived)).toBeLessThanOrEqual(cross.spread * cross.pipSize);
      }
    }
    // Emitted cross ticks agree with the latest emitted ticks of their legs, too.
    const latest = new Map<string, Quote>();
    let checked = 0;
    for (const q of run.ticks) {
      latest.set(q.symbol, q);
      const eurusd = latest.get('EURUSD');
      const gbpusd = latest.get('GBPUSD');
      if (q.symbol !== 'EURGBP' || !eurusd || !gbpusd) continue;
      expect(Math.abs(q.mid - eurusd.mid / gbpusd.mid)).toBeLessThanOrEqual(0.00018);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('produces the same ticks for the same seed, and different ones for another', async () => {
    const seed = runSeed('determinism');
    const a = await runSimulator(seed, 1500);
    const b = await runSimulator(seed, 1500);
    const c = await runSimulator(seed + 1, 1500);
    expect(b.ticks).toEqual(a.ticks);
    expect(c.ticks).not.toEqual(a.ticks);
  });

  it('ticks several times a second on majors, less on crosses', async () => {
    const seed = runSeed('rate');
    const run = await runSimulator(seed, 4000);
    const rate = (symbol: string) => run.ticks.filter((q) => q.symbol === symbol).length / run.seconds;
    expect(rate('EURUSD')).toBeGreaterThan(2.5);
    expect(rate('EURUSD')).toBeLessThan(6);
    expect(rate('EURGBP')).toBeLessThan(rate('EURUSD'));
    expect(rate('EURGBP')).toBeGreaterThan(1);
  });

  it('continues from the last stored mids (no jump at start)', async () => {
    const seed = runSeed('resume');
    const last = new Map([
      ['EURUSD', 1.09731],
      ['GBPUSD', 1.24102],
      ['USDJPY', 136.174],
      ['USDCHF', 0.89123],
      ['AUDUSD', 0.66605],
      ['USDCAD', 1.3479],
      ['NZDUSD', 0.61802],
    ]);
    const run = await runSimulator(seed, 1, last);
    const first = new Map(run.snapshots[0]!.map((q) => [q.symbol, q]));
    for (const [symbol, mid] of last) {
      const pair = bySymbol.get(symbol)!;
      expect(Math.abs(first.get(symbol)!.mid - mid)).toBeLessThanOrEqual(pair.spread * pair.pipSize);
    }
  });

  it('stays in a plausible band over a simulated hour of ticks', async () => {
    const seed = runSeed('hour');
    const run = await runSimulator(seed, 48_000);
    expect(run.seconds).toBeGreaterThan(3000);
    const first = new Map(run.snapshots[0]!.map((q) => [q.symbol, q.mid]));
    for (const q of run.snapshots.at(-1)!) {
      const move = Math.abs(q.mid / first.get(q.symbol)! - 1);
      expect(move).toBeLessThan(0.03);
    }
  });

  it('keeps every leg within a plausible band over months (mean reversion)', () => {
    const seed = runSeed('months');
    const currencies = legCurrencies(pairs);
    for (let run = 0; run < 5; run++) {
      const model = new LegModel(currencies);
      const rng = createRng(seed + run, 'band');
      const start = new Map(currencies.map((c) => [c, model.value(c)]));
      // 180 days of one-minute steps.
      for (let i = 0; i < 180 * 1440; i++) {
        model.step(60_000, rng);
        if (i % 1440 === 0) {
          for (const c of currencies) expect(Math.abs(Math.log(model.value(c) / start.get(c)!))).toBeLessThan(0.15);
        }
      }
    }
  });
});
