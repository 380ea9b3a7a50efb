import type { AppContext } from '../../core/context.js';
import type { MarketModule } from '../../market/index.js';
import { defaultEngineOptions, OrderEngine, type OrderEngineOptions } from './engine.js';
import type { TriggerExecutor } from './ports.js';
import { TriggerBook } from './trigger-book.js';

export type { EngineMode, OrderEngine, OrderEngineOptions } from './engine.js';

/**
 * The order engine (docs/order-engine.md): pending orders, stop loss, take profit, trailing
 * stops and GTD expiry, held in memory and triggered on the price-source leader.
 */
export function createOrderEngine(
  ctx: Pick<AppContext, 'bus' | 'clock' | 'log'>,
  deps: { market: Pick<MarketModule, 'pairs' | 'prices' | 'isLeader'>; executor: TriggerExecutor },
  options: Partial<OrderEngineOptions> = {},
): OrderEngine {
  const book = new TriggerBook(deps.market.pairs.list());
  return new OrderEngine(
    { market: deps.market, bus: ctx.bus, clock: ctx.clock, log: ctx.log, executor: deps.executor, book },
    { ...defaultEngineOptions, ...options },
  );
}
