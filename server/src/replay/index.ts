// The replay module's entry point (docs/replay.md). Only composes: the pure core of a session's
// market, the sessions (stored, bound to their practice accounts, moved by the calls and the
// play loop) and their calls.

import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import { loadReplayData, type MarketModule } from '../market/index.js';
import type { TradingModule } from '../trading/index.js';
import { registerReplayRoutes } from './routes.js';
import { ReplaySessions } from './sessions.js';

export { realMidAt } from './conversion.js';
export { checkReplayClock, checkReplayStart, dataRange, replayProblemMessage, replaySymbols } from './data-range.js';
export { sessionsOfAccounts } from './repo.js';
export { SessionMarket, type SessionMarketOptions } from './session-market.js';
export {
  type CurrencyPair,
  type DataRange,
  MAX_REPLAY_SYMBOLS,
  MIN_REPLAY_SYMBOLS,
  type QuotedPair,
  type ReplayProblem,
} from './types.js';

export interface ReplayModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  /** Pauses the sessions the last run left playing and starts the play loop. */
  start(): Promise<void>;
  /** Stops the play loop; the moves under way finish and write their clocks. */
  stop(): Promise<void>;
  readonly sessions: ReplaySessions;
}

/** Replay sessions (DESIGN §19): practice accounts on real past markets (docs/replay.md). */
export function createReplayModule(
  ctx: AppContext,
  deps: {
    auth: AuthModule;
    market: Pick<MarketModule, 'pairs' | 'setAccountMarkets' | 'accountMarketMoved'>;
    trading: Pick<TradingModule, 'service'>;
  },
): ReplayModule {
  const data = loadReplayData();
  // This node's id for the sessions' leases (docs/replay.md#many-nodes): a new one each start, so a restarted node takes nothing over by name.
  const nodeId = randomUUID();
  const sessions = new ReplaySessions({ ctx, pairs: deps.market.pairs, data, trading: deps.trading.service, nodeId });
  // The price, current prices and chart calls of a practice account answer from its session.
  deps.market.setAccountMarkets((accountId) => sessions.marketView(accountId));
  // Its price socket follows the session: after every advance, the new quotes and candles.
  deps.trading.service.markets.onMoved((bound) => deps.market.accountMarketMoved(bound.accountId));
  return {
    sessions,
    registerRoutes: (api) => registerReplayRoutes(api, { auth: deps.auth, ctx, sessions, data, pairs: deps.market.pairs }),
    start: () => sessions.start(),
    stop: () => sessions.stop(),
  };
}
