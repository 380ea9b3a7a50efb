import type { AppContext } from '../../core/context.js';
import type { MarketModule } from '../../market/index.js';
import type { Metrics } from '../../metrics/index.js';
import { defaultEngineOptions, OrderEngine, type OrderEngineOptions } from './engine.js';
import type { TriggerExecutor, TriggerOutcome } from './ports.js';
import { TriggerBook } from './trigger-book.js';

export type { EngineMode, OrderEngine, OrderEngineOptions } from './engine.js';

/**
 * The order engine (docs/order-engine.md): pending orders, stop loss, take profit, trailing
 * stops and GTD expiry, held in memory and triggered on the price-source leader.
 */
export function createOrderEngine(
  ctx: Pick<AppContext, 'bus' | 'clock' | 'log'> & Partial<Pick<AppContext, 'metrics'>>,
  deps: { market: Pick<MarketModule, 'pairs' | 'prices' | 'isLeader'>; executor: TriggerExecutor },
  options: Partial<OrderEngineOptions> = {},
): OrderEngine {
  const book = new TriggerBook(deps.market.pairs.list());
  return new OrderEngine(
    {
      market: deps.market,
      bus: ctx.bus,
      clock: ctx.clock,
      log: ctx.log,
      executor: ctx.metrics?.enabled ? countedExecutor(deps.executor, ctx.metrics) : deps.executor,
      book,
    },
    { ...defaultEngineOptions, ...options },
  );
}

/** Counts every execution the engine asks for by kind and outcome (docs/operations.md#metrics). */
function countedExecutor(executor: TriggerExecutor, metrics: Metrics): TriggerExecutor {
  const counted = async (kind: string, run: () => Promise<TriggerOutcome>): Promise<TriggerOutcome> => {
    try {
      const outcome = await run();
      metrics.triggerExecution(kind, outcome);
      return outcome;
    } catch (err) {
      metrics.triggerExecution(kind, 'error');
      throw err;
    }
  };
  return {
    fillPendingOrder: (orderId, quote) => counted('fill', () => executor.fillPendingOrder(orderId, quote)),
    markStopLimitTriggered: (orderId, at) => counted('stop_limit_trigger', () => executor.markStopLimitTriggered(orderId, at)),
    closeByProtection: (positionId, reason, quote, version) =>
      counted(reason, () => executor.closeByProtection(positionId, reason, quote, version)),
    expireOrder: (orderId) => counted('expire', () => executor.expireOrder(orderId)),
    saveTrailingStops: (moves) => executor.saveTrailingStops(moves),
    loadArmed: () => executor.loadArmed(),
  };
}
