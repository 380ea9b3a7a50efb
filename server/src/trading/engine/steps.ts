import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../core/clock.js';
import type { PairCatalog } from '../../market/index.js';
import type { EngineChange, RestingOrderState, TriggerExecutor, TriggerQuote } from './ports.js';
import type { BookQuote, Trigger, TriggerBook } from './trigger-book.js';

// What a trigger book does with a change and a trigger, whoever feeds it ticks: the live engine
// on the price-source leader (engine.ts), or a replay session's market one tick at a time
// (session-triggers.ts). One implementation, so a session fills exactly as live does
// (docs/order-engine.md, docs/replay.md#the-accounts-market).

/** One thing to execute for one account, in order. */
export type Step = { trigger: Trigger; quote: BookQuote } | { expire: RestingOrderState };

export interface StepDeps {
  executor: TriggerExecutor;
  book: TriggerBook;
  log: FastifyBaseLogger;
  clock: Clock;
  market: { pairs: PairCatalog };
  /** A failed execution is re-armed through this (the live engine: a second later). */
  retryLater(rearm: () => void): void;
}

/** A change heard on the bus (or from a session's own commands), applied to the book. */
export function applyEngineChange(book: TriggerBook, change: EngineChange, log: FastifyBaseLogger): void {
  switch (change?.kind) {
    case 'order':
      book.upsertOrder(change.order);
      break;
    case 'order_gone':
      book.removeOrder(change.orderId);
      break;
    case 'protection':
      book.upsertProtection(change.protection, change.stopLossSet !== false);
      break;
    case 'protection_gone':
      book.removeProtection(change.positionId);
      break;
    default:
      log.warn({ change }, 'order engine: unknown change on the bus');
  }
}

/** One step, never throwing: the outcome settles the book; a failure re-arms it later. */
export async function executeStep(deps: StepDeps, step: Step): Promise<void> {
  const { executor, book, log } = deps;
  if ('expire' in step) {
    const orderId = step.expire.orderId;
    try {
      const outcome = await executor.expireOrder(orderId);
      // Stale: not due any more (its expiry moved) or already gone; the bus has the newer state.
      if (outcome === 'stale') book.dropStaleOrder(orderId);
      else book.settleOrder(orderId);
    } catch (err) {
      log.error({ err, orderId }, 'order engine: expiring an order failed; retrying');
      deps.retryLater(() => book.rearmOrder(orderId));
    }
    return;
  }
  const { trigger, quote } = step;
  switch (trigger.kind) {
    case 'close': {
      const positionId = trigger.protection.positionId;
      try {
        // The version it acted on: a trader's or a fill's change since then makes it stale (decided again on the newer state).
        const version = trigger.protection.protectionVersion ?? 0;
        const outcome = await executor.closeByProtection(positionId, trigger.reason, triggerQuote(deps, quote), version);
        if (outcome === 'filled') book.settleClosed(positionId);
        else if (outcome === 'stale') book.dropStaleProtection(positionId);
        else deps.retryLater(() => book.rearmProtection(positionId)); // refused: the position is still open
      } catch (err) {
        log.error({ err, positionId, reason: trigger.reason }, 'order engine: closing a position failed; retrying');
        deps.retryLater(() => book.rearmProtection(positionId));
      }
      return;
    }
    case 'fill':
      await fill(deps, trigger.order.orderId, quote);
      return;
    case 'stop_limit': {
      const orderId = trigger.order.orderId;
      const at = deps.clock.now();
      let outcome: string;
      try {
        outcome = await executor.markStopLimitTriggered(orderId, at);
      } catch (err) {
        log.error({ err, orderId }, 'order engine: recording a stop-limit trigger failed; retrying');
        deps.retryLater(() => book.rearmOrder(orderId));
        return;
      }
      if (outcome === 'stale') {
        book.dropStaleOrder(orderId);
        return;
      }
      if (outcome === 'expired' || outcome === 'rejected') {
        book.settleOrder(orderId);
        return;
      }
      // Now a LIMIT at its limit price: the tick that triggered the stop may fill it at once.
      const fillAt = book.restStopLimit(orderId, at);
      if (fillAt) await fill(deps, orderId, fillAt);
      return;
    }
  }
}

async function fill(deps: StepDeps, orderId: number, quote: BookQuote): Promise<void> {
  try {
    const outcome = await deps.executor.fillPendingOrder(orderId, triggerQuote(deps, quote));
    // Filled or rejected (margin): no longer PENDING. Stale: gone, or modified so that the tick no longer crosses it.
    if (outcome === 'stale') deps.book.dropStaleOrder(orderId);
    else deps.book.settleOrder(orderId);
  } catch (err) {
    deps.log.error({ err, orderId }, 'order engine: filling an order failed; retrying');
    deps.retryLater(() => deps.book.rearmOrder(orderId));
  }
}

function triggerQuote(deps: Pick<StepDeps, 'market'>, quote: BookQuote): TriggerQuote {
  const digits = deps.market.pairs.get(quote.symbol)?.digits ?? 5;
  return {
    symbol: quote.symbol,
    bid: quote.bid.toFixed(digits),
    ask: quote.ask.toFixed(digits),
    timestamp: quote.timestamp,
    ...(quote.receivedAt === undefined ? {} : { receivedAt: quote.receivedAt }),
  };
}
