import { describe, expect, it } from 'vitest';
import { loadReplayData } from '../market/index.js';
import { seededPairs } from '../test/factories.js';
import { realMidAt } from './conversion.js';
import { SessionMarket } from './session-market.js';

// The real files of server/data/replay, on a Thursday when all seven trade.
const data = loadReplayData();
const at = (iso: string) => Date.parse(iso);
const pair = (symbol: string) => seededPairs().find((p) => p.symbol === symbol)!;

describe('conversion rates from the real data', () => {
  const t = at('2023-04-20T10:30:45Z');
  const mid = (symbol: string, when = t) => realMidAt(data, pair(symbol), when);

  it('takes a pair with a file from it, as the session quotes it', () => {
    const market = new SessionMarket({ data, pairs: [pair('EURUSD')], clock: t });
    expect(mid('EURUSD')).toBe(market.quote('EURUSD')!.mid);
  });

  it('derives a pair without a file from the nearest pairs with one, else signals the model', () => {
    expect(mid('EURGBP')).toBeCloseTo(mid('EURUSD')! / mid('GBPUSD')!, 12);
    // CHF only through EURCHF, with EUR from EURUSD.
    expect(mid('USDCHF')).toBeCloseTo(mid('EURCHF')! / mid('EURUSD')!, 12);
    expect(mid('GBPJPY')).toBeCloseTo(mid('GBPUSD')! * mid('USDJPY')!, 9);
    expect(mid('AUDJPY')).toBeCloseTo(mid('AUDUSD')! * mid('USDJPY')!, 9);
    // No file reaches NZD.
    expect(mid('NZDUSD')).toBeUndefined();
    // Before any data, nothing is derivable.
    expect(mid('EURGBP', at('2023-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('goes through a cross when a USD pair has run out', () => {
    // EURUSD ends 2023-05-10 15:00; on the 12th EUR comes from EURJPY and USDJPY.
    const later = at('2023-05-12T08:00:10Z');
    // EURUSD itself, past its file, is derived like any pair without one.
    expect(mid('EURUSD', later)).toBeCloseTo(mid('EURJPY', later)! / mid('USDJPY', later)!, 12);
    expect(mid('EURGBP', later)).toBeCloseTo(mid('EURJPY', later)! / mid('USDJPY', later)! / mid('GBPUSD', later)!, 12);
  });
});
