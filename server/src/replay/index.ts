// The replay module's entry point (docs/replay.md). Only composes: so far the pure core of a
// session's market, which the trading engine drives.

export { realMidAt } from './conversion.js';
export { checkReplayClock, checkReplayStart, dataRange, replayProblemMessage, replaySymbols } from './data-range.js';
export { SessionMarket, type SessionMarketOptions } from './session-market.js';
export {
  type CurrencyPair,
  type DataRange,
  MAX_REPLAY_SYMBOLS,
  MIN_REPLAY_SYMBOLS,
  type QuotedPair,
  type ReplayProblem,
} from './types.js';
