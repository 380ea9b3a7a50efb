// The indicators of DESIGN §18, computed in the browser by trading-signals (a maintained library).
// Pure: candles in, values out; no chart and no React, so the values can be checked against
// textbook formulas (engine.test.ts).
import type { Candle, Indicator, IndicatorKind } from '@pipdesk/contract';
import { ATR, BollingerBands, EMA, MACD, RSI, SMA, StochasticOscillator } from 'trading-signals';

/** The lines each indicator draws, in the order its values come (and its legend reads). */
export const INDICATOR_OUTPUTS: Readonly<Record<IndicatorKind, readonly string[]>> = {
  sma: ['sma'],
  ema: ['ema'],
  bb: ['upper', 'middle', 'lower'],
  rsi: ['rsi'],
  macd: ['macd', 'signal', 'histogram'],
  stoch: ['k', 'd'],
  atr: ['atr'],
};

/**
 * One indicator fed candle by candle. `next(candle, true)` replaces the last candle fed (the
 * live candle changed), so a tick costs one step, not a pass over the history. The values are
 * null until the indicator has had enough candles to be meaningful.
 */
export interface IndicatorRun {
  next(candle: Candle, replace: boolean): number[] | null;
}

/** The library's indicator for `indicator`, with the values it answers once it is stable. */
export function createIndicatorRun(indicator: Indicator): IndicatorRun {
  switch (indicator.kind) {
    case 'sma': {
      const sma = new SMA(indicator.period);
      return { next: (c, replace) => single(sma.update(c.close, replace)) };
    }
    case 'ema': {
      const ema = new EMA(indicator.period);
      // The library answers from the first price on (seeded with it); the first `period` values are a warm-up.
      return {
        next: (c, replace) => {
          const value = ema.update(c.close, replace);
          return ema.isStable ? [value] : null;
        },
      };
    }
    case 'bb': {
      const bb = new BollingerBands(indicator.period, indicator.stddev);
      return {
        next: (c, replace) => {
          const bands = bb.update(c.close, replace);
          return bands ? [bands.upper, bands.middle, bands.lower] : null;
        },
      };
    }
    case 'rsi': {
      const rsi = new RSI(indicator.period);
      return { next: (c, replace) => single(rsi.update(c.close, replace)) };
    }
    case 'macd': {
      const macd = new MACD(new EMA(indicator.fast), new EMA(indicator.slow), new EMA(indicator.signal));
      return {
        next: (c, replace) => {
          const result = macd.update(c.close, replace);
          // The signal line is an EMA of the MACD line: shown once it has had its own warm-up.
          return result && macd.signal.isStable ? [result.macd, result.signal, result.histogram] : null;
        },
      };
    }
    case 'stoch': {
      const stoch = new StochasticOscillator({ kPeriod: indicator.k, kSlowingPeriod: indicator.smooth, dPeriod: indicator.d });
      return {
        next: (c, replace) => {
          const result = stoch.update(c, replace);
          return result ? [result.stochK, result.stochD] : null;
        },
      };
    }
    case 'atr': {
      const atr = new ATR(indicator.period);
      return { next: (c, replace) => single(atr.update(c, replace)) };
    }
  }
}

function single(value: number | null): number[] | null {
  return value === null ? null : [value];
}

/** The indicator over `candles` (oldest first): one entry per candle, null during the warm-up. */
export function computeIndicator(indicator: Indicator, candles: readonly Candle[]): Array<number[] | null> {
  const run = createIndicatorRun(indicator);
  return candles.map((c) => run.next(c, false));
}
