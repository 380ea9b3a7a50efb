import { describe, expect, it } from 'vitest';
import { loadReplayData } from '../market/index.js';
import { checkReplayClock, checkReplayStart, dataRange, replayProblemMessage, replaySymbols } from './data-range.js';

// The real files of server/data/replay (their README lists each file's first and last bar).
const data = loadReplayData();
const at = (iso: string) => Date.parse(iso);

describe('the range a session can run in', () => {
  it('offers the pairs whose file ships', () => {
    expect(replaySymbols(data)).toEqual(['AUDUSD', 'EURCHF', 'EURJPY', 'EURUSD', 'GBPUSD', 'USDCAD', 'USDJPY']);
  });

  it('runs from the latest first bar to the end of the earliest last bar', () => {
    expect(dataRange(data, ['EURUSD'])).toEqual({ from: at('2023-04-03T12:01:00Z'), to: at('2023-05-10T15:00:00Z') });
    // USDJPY runs to 2023-05-16 02:59 and GBPUSD to 2023-05-13 10:59: the session stops with GBPUSD.
    expect(dataRange(data, ['USDJPY', 'GBPUSD'])).toEqual({ from: at('2023-04-03T12:01:00Z'), to: at('2023-05-13T11:00:00Z') });
    expect(dataRange(data, ['USDJPY', 'EURJPY'])?.to).toBe(at('2023-05-16T03:00:00Z'));
    expect(dataRange(data, ['USDJPY', 'NZDUSD'])).toBeUndefined();
  });

  it('answers a start outside the data with the range, in words', () => {
    const symbols = ['EURUSD', 'USDJPY'];
    const range = { from: at('2023-04-03T12:01:00Z'), to: at('2023-05-10T15:00:00Z') };
    for (const start of ['2023-04-03T12:00:59Z', '2023-05-10T15:00:00Z', '2023-05-12T00:00:00Z', '2024-01-01T00:00:00Z']) {
      const problem = checkReplayStart(data, symbols, at(start));
      expect(problem).toEqual({ code: 'OUTSIDE_DATA', range });
      expect(replayProblemMessage(problem!)).toBe(
        'start: the data of these pairs runs from 2023-04-03T12:01:00Z to 2023-05-10T15:00:00Z',
      );
    }
    expect(checkReplayStart(data, symbols, Number.NaN)).toEqual({ code: 'OUTSIDE_DATA', range });
    expect(checkReplayStart(data, symbols, range.from)).toBeUndefined();
    expect(checkReplayStart(data, symbols, range.to - 1)).toBeUndefined();
    // A start inside a gap is fine: the first tick is the first minute after it.
    expect(checkReplayStart(data, symbols, at('2023-04-12T00:00:00Z'))).toBeUndefined();
    // A finished session's clock is the end of the range; it resumes (finished), a start there does not.
    expect(checkReplayClock(data, symbols, range.to)).toBeUndefined();
    expect(checkReplayClock(data, symbols, range.to + 1)).toEqual({ code: 'OUTSIDE_DATA', range });
  });

  it('names what is wrong with the pairs', () => {
    const start = at('2023-04-10T00:00:00Z');
    expect(checkReplayStart(data, [], start)).toEqual({ code: 'SYMBOL_COUNT', min: 1, max: 4 });
    expect(checkReplayStart(data, ['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD', 'USDCAD'], start)).toMatchObject({
      code: 'SYMBOL_COUNT',
    });
    expect(checkReplayStart(data, ['EURUSD', 'EURUSD'], start)).toEqual({ code: 'DUPLICATE_SYMBOL', symbol: 'EURUSD' });
    const noData = checkReplayStart(data, ['EURUSD', 'NZDUSD'], start)!;
    expect(replayProblemMessage(noData)).toBe(
      'symbols: NZDUSD has no replay data (pairs with data: AUDUSD, EURCHF, EURJPY, EURUSD, GBPUSD, USDCAD, USDJPY)',
    );
  });
});
