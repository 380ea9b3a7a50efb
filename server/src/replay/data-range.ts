import { commonDataRange } from '@pipdesk/contract';
import { type BarSeries, MINUTE_MS } from '../market/index.js';
import { type DataRange, MAX_REPLAY_SYMBOLS, MIN_REPLAY_SYMBOLS, type ReplayProblem } from './types.js';

/** The pairs a session can play: those whose file ships in server/data/replay, sorted. */
export function replaySymbols(data: ReadonlyMap<string, BarSeries>): string[] {
  return [...data.keys()].sort();
}

/**
 * The pairs a session can play that the catalogue trades, each with its own data's range
 * (`GET trading/replays/data/`, docs/replay.md#which-pairs-and-when), by symbol.
 */
export function replayDataPairs(
  data: ReadonlyMap<string, BarSeries>,
  tradable: (symbol: string) => boolean,
): Array<{ symbol: string } & DataRange> {
  return replaySymbols(data).flatMap((symbol) => {
    const range = tradable(symbol) ? dataRange(data, [symbol]) : undefined;
    return range ? [{ symbol, ...range }] : [];
  });
}

/**
 * Where a session over `symbols` can run: from the latest first bar to the end of the
 * earliest last bar, so no pair of the session runs out of data before the others
 * (docs/decisions.md). Undefined when a symbol has no data or the pairs' data do not overlap.
 */
export function dataRange(data: ReadonlyMap<string, BarSeries>, symbols: readonly string[]): DataRange | undefined {
  const ranges: DataRange[] = [];
  for (const symbol of symbols) {
    const series = data.get(symbol);
    if (!series || series.length === 0) return undefined;
    ranges.push({ from: series.times[0]!, to: series.times[series.length - 1]! + MINUTE_MS });
  }
  // The contract's rule, so the Replay form's hint is the range this check applies.
  return commonDataRange(ranges);
}

/**
 * The problem with a new session over `symbols` starting at `start`, or undefined when it can
 * start. A start must lie in [from, to): at `to` the session would be over before it began.
 */
export function checkReplayStart(
  data: ReadonlyMap<string, BarSeries>,
  symbols: readonly string[],
  start: number,
): ReplayProblem | undefined {
  return checkSymbols(data, symbols) ?? checkTime(data, symbols, start, false);
}

/**
 * The problem with resuming a session over `symbols` at a persisted `clock`: as a start, but a
 * finished session's clock (`to`) is allowed.
 */
export function checkReplayClock(
  data: ReadonlyMap<string, BarSeries>,
  symbols: readonly string[],
  clock: number,
): ReplayProblem | undefined {
  return checkSymbols(data, symbols) ?? checkTime(data, symbols, clock, true);
}

function checkSymbols(data: ReadonlyMap<string, BarSeries>, symbols: readonly string[]): ReplayProblem | undefined {
  if (symbols.length < MIN_REPLAY_SYMBOLS || symbols.length > MAX_REPLAY_SYMBOLS) {
    return { code: 'SYMBOL_COUNT', min: MIN_REPLAY_SYMBOLS, max: MAX_REPLAY_SYMBOLS };
  }
  const seen = new Set<string>();
  for (const symbol of symbols) {
    if (seen.has(symbol)) return { code: 'DUPLICATE_SYMBOL', symbol };
    seen.add(symbol);
    if (!data.has(symbol)) return { code: 'NO_DATA', symbol, available: replaySymbols(data) };
  }
  return undefined;
}

function checkTime(
  data: ReadonlyMap<string, BarSeries>,
  symbols: readonly string[],
  t: number,
  endAllowed: boolean,
): ReplayProblem | undefined {
  const range = dataRange(data, symbols);
  if (!range) return { code: 'NO_COMMON_RANGE' };
  const inside = Number.isFinite(t) && t >= range.from && (t < range.to || (endAllowed && t === range.to));
  return inside ? undefined : { code: 'OUTSIDE_DATA', range };
}

/** A problem in words, for the 400's message (the one table both the route and the logs use). */
export function replayProblemMessage(problem: ReplayProblem): string {
  switch (problem.code) {
    case 'SYMBOL_COUNT':
      return `symbols: choose ${problem.min} to ${problem.max} pairs`;
    case 'DUPLICATE_SYMBOL':
      return `symbols: ${problem.symbol} is listed twice`;
    case 'NO_DATA':
      return `symbols: ${problem.symbol} has no replay data (pairs with data: ${problem.available.join(', ')})`;
    case 'NO_COMMON_RANGE':
      return 'symbols: these pairs have no period of data in common';
    case 'OUTSIDE_DATA':
      return `start: the data of these pairs runs from ${iso(problem.range.from)} to ${iso(problem.range.to)}`;
  }
}

/** ISO time without milliseconds: every bound is a whole minute. */
const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
