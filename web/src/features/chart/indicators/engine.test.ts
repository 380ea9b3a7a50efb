// The library's values against textbook formulas written here independently, on real candles:
// 400 hourly EURUSD candles aggregated from server/data/replay/EURUSD.m1.csv.gz (the first
// 400 hours; open first, close last, high max, low min, ticks summed).
import type { Candle, Indicator } from '@pipdesk/contract';
import { describe, expect, it } from 'vitest';
import { computeIndicator, createIndicatorRun } from './engine';
import rows from './eurusd-h1.fixture.json';

const candles: Candle[] = (rows as number[][]).map(([time, open, high, low, close, volume]) => ({
  time: time!,
  open: open!,
  high: high!,
  low: low!,
  close: close!,
  volume: volume!,
}));
const closes = candles.map((c) => c.close);

// ---- Textbook references (Wilder for RSI and ATR, population deviation for Bollinger) ----

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function refSma(xs: readonly number[], n: number): Array<number | null> {
  return xs.map((_, i) => (i + 1 < n ? null : mean(xs.slice(i + 1 - n, i + 1))));
}

/** EMA seeded with the SMA of the first n values, α = 2 / (n + 1). */
function refEma(xs: readonly (number | null)[], n: number): Array<number | null> {
  const out: Array<number | null> = xs.map(() => null);
  const start = xs.findIndex((x) => x !== null);
  if (start < 0 || start + n > xs.length) return out;
  let ema = mean(xs.slice(start, start + n) as number[]);
  out[start + n - 1] = ema;
  const k = 2 / (n + 1);
  for (let i = start + n; i < xs.length; i++) {
    ema = (xs[i] as number) * k + ema * (1 - k);
    out[i] = ema;
  }
  return out;
}

/** Wilder's smoothing: the first value is the mean of the first n, then (prev × (n − 1) + x) / n. */
function wilder(xs: readonly number[], n: number): Array<number | null> {
  const out: Array<number | null> = xs.map(() => null);
  let avg = mean(xs.slice(0, n));
  out[n - 1] = avg;
  for (let i = n; i < xs.length; i++) {
    avg = (avg * (n - 1) + xs[i]!) / n;
    out[i] = avg;
  }
  return out;
}

function refRsi(xs: readonly number[], n: number): Array<number | null> {
  const gains = xs.slice(1).map((x, i) => Math.max(x - xs[i]!, 0));
  const losses = xs.slice(1).map((x, i) => Math.max(xs[i]! - x, 0));
  const g = wilder(gains, n);
  const l = wilder(losses, n);
  return [null, ...g.map((gain, i) => (gain === null ? null : l[i] === 0 ? 100 : 100 - 100 / (1 + gain / l[i]!)))];
}

function refAtr(cs: readonly Candle[], n: number): Array<number | null> {
  const tr = cs.map((c, i) =>
    i === 0 ? c.high - c.low : Math.max(c.high - c.low, Math.abs(c.high - cs[i - 1]!.close), Math.abs(c.low - cs[i - 1]!.close)),
  );
  return wilder(tr, n);
}

function refBollinger(xs: readonly number[], n: number, k: number): Array<number[] | null> {
  return xs.map((_, i) => {
    if (i + 1 < n) return null;
    const window = xs.slice(i + 1 - n, i + 1);
    const m = mean(window);
    const sd = Math.sqrt(mean(window.map((x) => (x - m) ** 2)));
    return [m + k * sd, m, m - k * sd];
  });
}

function refMacd(xs: readonly number[], fast: number, slow: number, signal: number): Array<number[] | null> {
  const f = refEma(xs, fast);
  const s = refEma(xs, slow);
  const line = xs.map((_, i) => (s[i] === null ? null : f[i]! - s[i]!));
  const sig = refEma(line, signal);
  return xs.map((_, i) => (sig[i] === null ? null : [line[i]!, sig[i]!, line[i]! - sig[i]!]));
}

/** Full stochastic: %K = SMA(smooth) of 100 × (close − lowest low) ÷ (highest high − lowest low) over k; %D = SMA(d) of %K. */
function refStoch(cs: readonly Candle[], k: number, d: number, smooth: number): Array<number[] | null> {
  const fast = cs.map((c, i) => {
    if (i + 1 < k) return null;
    const w = cs.slice(i + 1 - k, i + 1);
    const hh = Math.max(...w.map((x) => x.high));
    const ll = Math.min(...w.map((x) => x.low));
    return hh === ll ? 0 : (100 * (c.close - ll)) / (hh - ll);
  });
  const smaOf = (xs: Array<number | null>, n: number) =>
    xs.map((_, i) => {
      const w = xs.slice(Math.max(0, i + 1 - n), i + 1);
      return w.length < n || w.some((x) => x === null) ? null : mean(w as number[]);
    });
  const slowK = smaOf(fast, smooth);
  const slowD = smaOf(slowK, d);
  return cs.map((_, i) => (slowD[i] === null ? null : [slowK[i]!, slowD[i]!]));
}

// ---- Comparison ----

/** Agree within `tolerance` wherever both have a value, from `from` on; and both have one from `from` on. */
function expectAgree(actual: Array<number[] | null>, expected: Array<number[] | number | null>, from: number, tolerance: number) {
  expect(actual).toHaveLength(expected.length);
  let compared = 0;
  for (let i = from; i < expected.length; i++) {
    const want = expected[i];
    const got = actual[i];
    expect(want, `reference at ${i}`).not.toBeNull();
    expect(got, `value at ${i}`).not.toBeNull();
    const wants = Array.isArray(want) ? want : [want as number];
    wants.forEach((w, j) => {
      expect(Math.abs(got![j]! - w), `candle ${i} line ${j}: ${got![j]} vs ${w}`).toBeLessThanOrEqual(tolerance);
    });
    compared++;
  }
  expect(compared).toBeGreaterThan(100);
}

const PRICE_TOLERANCE = 1e-9; // a ten-thousandth of a point
const PERCENT_TOLERANCE = 1e-6;

describe('indicator values against textbook formulas on 400 EURUSD hourly candles', () => {
  it('SMA 20 agrees from its first value', () => {
    const ind: Indicator = { kind: 'sma', period: 20 };
    expectAgree(computeIndicator(ind, candles), refSma(closes, 20), 19, PRICE_TOLERANCE);
    expect(computeIndicator(ind, candles)[18]).toBeNull();
  });

  it('EMA 20 agrees once the seed has worn off (the library seeds with the first price, the textbook with an SMA)', () => {
    expectAgree(computeIndicator({ kind: 'ema', period: 20 }, candles), refEma(closes, 20), 250, PRICE_TOLERANCE);
  });

  it('Bollinger Bands 20 2 (population deviation) agree from their first value', () => {
    expectAgree(
      computeIndicator({ kind: 'bb', period: 20, stddev: 2 }, candles),
      refBollinger(closes, 20, 2),
      19,
      PRICE_TOLERANCE,
    );
    expectAgree(
      computeIndicator({ kind: 'bb', period: 10, stddev: 1.5 }, candles),
      refBollinger(closes, 10, 1.5),
      9,
      PRICE_TOLERANCE,
    );
  });

  it("RSI 14 (Wilder's smoothing) agrees from its first value", () => {
    const values = computeIndicator({ kind: 'rsi', period: 14 }, candles);
    expectAgree(values, refRsi(closes, 14), 14, PERCENT_TOLERANCE);
    expect(values[13]).toBeNull();
  });

  it('MACD 12 26 9 agrees once the seeds have worn off', () => {
    expectAgree(
      computeIndicator({ kind: 'macd', fast: 12, slow: 26, signal: 9 }, candles),
      refMacd(closes, 12, 26, 9),
      280,
      PRICE_TOLERANCE,
    );
  });

  it('Stochastic 14 3 3 agrees from its first value', () => {
    const values = computeIndicator({ kind: 'stoch', k: 14, d: 3, smooth: 3 }, candles);
    const reference = refStoch(candles, 14, 3, 3);
    const first = reference.findIndex((v) => v !== null);
    expect(values.findIndex((v) => v !== null)).toBe(first);
    expectAgree(values, reference, first, PERCENT_TOLERANCE);
  });

  it("ATR 14 (Wilder's smoothing of the true range) agrees from its first value", () => {
    expectAgree(computeIndicator({ kind: 'atr', period: 14 }, candles), refAtr(candles, 14), 13, PRICE_TOLERANCE);
  });
});

describe('the live candle: replacing the last candle is one step and ends where a full pass ends', () => {
  const indicators: Indicator[] = [
    { kind: 'sma', period: 20 },
    { kind: 'ema', period: 20 },
    { kind: 'bb', period: 20, stddev: 2 },
    { kind: 'rsi', period: 14 },
    { kind: 'macd', fast: 12, slow: 26, signal: 9 },
    { kind: 'stoch', k: 14, d: 3, smooth: 3 },
    { kind: 'atr', period: 14 },
  ];

  it.each(indicators)('$kind', (indicator) => {
    const run = createIndicatorRun(indicator);
    const history = candles.slice(0, 350);
    for (const c of history) run.next(c, false);
    // Each later candle forms tick by tick: opened at its open, moved twice, then closed as recorded.
    const live: Array<number[] | null> = [];
    for (const c of candles.slice(350)) {
      run.next({ ...c, high: c.open, low: c.open, close: c.open }, false);
      run.next({ ...c, high: Math.max(c.open, c.high - 0.0002), low: c.low, close: c.low }, true);
      run.next({ ...c, close: (c.high + c.low) / 2 }, true);
      live.push(run.next(c, true));
    }
    const whole = computeIndicator(indicator, candles).slice(350);
    live.forEach((values, i) => {
      for (const [j, v] of values!.entries()) expect(v).toBeCloseTo(whole[i]![j]!, 12);
    });
  });
});
