import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';

export interface NewsModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  /** Per-source state for /api/health/. */
  health(): Record<string, { ok: boolean; last_error: string | null; last_success_at: string | null }>;
  stop(): Promise<void>;
}

// Placeholder until the news module lands (issue 6).
export async function createNewsModule(_ctx: AppContext, _deps: { auth: AuthModule; market: MarketModule }): Promise<NewsModule> {
  return { registerRoutes: async () => {}, health: () => ({}), stop: async () => {} };
}
