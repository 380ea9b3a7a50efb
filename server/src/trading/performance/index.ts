import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import type { TradingDeps } from '../deps.js';
import { registerEquityCurveRoutes } from '../equity-curve/routes.js';
import { EquitySampler } from '../equity-curve/sampler.js';
import { registerJournalRoutes } from '../journal/routes.js';
import { registerPerformanceRoutes } from './routes.js';

export interface PerformanceModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  /** The equity curve's 15-minute points and thinning, on the price-source leader only. */
  sampler: EquitySampler;
  start(): void;
  stop(): Promise<void>;
}

/** The statistics, the equity curve and the journal (docs/performance.md). */
export function createPerformanceModule(
  trading: Pick<TradingDeps, 'db' | 'clock' | 'pricing' | 'log'>,
  deps: {
    auth: AuthModule;
    isLeader: () => boolean;
    /** A named account's dependencies (its own market's pricing, docs/replay.md). */
    depsFor?: (account: number) => Promise<TradingDeps>;
  },
): PerformanceModule {
  const sampler = new EquitySampler(trading, deps.isLeader);
  return {
    sampler,
    registerRoutes: async (api) => {
      await registerPerformanceRoutes(api, {
        auth: deps.auth,
        trading,
        ...(deps.depsFor ? { depsFor: deps.depsFor } : {}),
      });
      await registerEquityCurveRoutes(api, { auth: deps.auth, trading });
      await registerJournalRoutes(api, { auth: deps.auth, trading });
    },
    start: () => sampler.start(),
    stop: () => sampler.stop(),
  };
}
