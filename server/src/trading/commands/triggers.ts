import { Dec, midOf } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import { accountsByIds, lockAccountById, type TradingAccountRow } from '../../accounts/index.js';
import type { Database } from '../../db/schema.js';
import type { Pair } from '../../market/index.js';
import type { TradingDeps } from '../deps.js';
import type {
  ProtectionReason,
  ProtectionState,
  RestingOrderState,
  TriggerExecutor,
  TriggerOutcome,
  TriggerQuote,
} from '../engine/ports.js';
import { publishEngineChanges, publishExecutionEffects, publishOrderUpdate } from '../events.js';
import { type Execution, execute, StaleOrder, storedProtection } from '../execution.js';
import { type ExactQuote, priceFromE10, priceToE10 } from '../math.js';
import { transition } from '../order-status.js';
import { executionEvent, filledAnswer, orderDto, protectionState, restingOrderState } from '../presenter.js';
import type { OrderRow, PositionRow } from '../repo.js';
import * as repo from '../repo.js';

type Deps = Pick<TradingDeps, 'db' | 'writes' | 'pairs' | 'pricing' | 'clock' | 'bus' | 'log' | 'metrics'>;
type Q = Kysely<Database>;

/**
 * The durable half of the trigger engine (engine/ports.ts, docs/order-engine.md#the-trigger-table): each
 * method is one write transaction through the same serialized path as a market order, guarded
 * by the current state (the order still PENDING, the position still OPEN with the protection
 * that fired), so a cancel or a change racing a trigger has exactly one winner and a crash
 * never fills twice. Each publishes its own bus events after commit.
 *
 * Outcomes: `filled` when the attempt won (for `markStopLimitTriggered`: the trigger was
 * recorded), `rejected` when a fill was stored REJECTED, `expired`, or `stale` when the
 * order or position was no longer in the state the engine saw (nothing written).
 */
export function createTriggerExecutor(
  deps: Deps,
  /**
   * Whose armed orders and protection `loadArmed` reads: left out, every account on the live
   * market (a practice account is on its replay session's market and never armed by the live
   * engine, docs/replay.md#the-accounts-market); `{accountId}`: that one account only (a
   * session's own trigger book).
   */
  armed?: { accountId: number },
): TriggerExecutor {
  /** The order under its account's lock (read again on PostgreSQL, where another writer may have committed meanwhile). */
  async function lockedPendingOrder(trx: Q, orderId: number): Promise<{ order: OrderRow; account: TradingAccountRow } | null> {
    const first = await repo.findOrderById(trx, orderId);
    if (first?.status !== 'PENDING' || first.order_type === 'MARKET') return null;
    const account = await lockAccountById(trx, Number(first.account_id));
    if (!account) return null;
    const order = deps.db.kind === 'postgres' ? await repo.findOrderById(trx, orderId) : first;
    return order && order.status === 'PENDING' ? { order, account } : null;
  }

  function pairOf(symbol: string): Pair {
    const pair = deps.pairs.get(symbol);
    if (!pair) throw new Error(`Currency pair ${symbol} is missing from the catalogue`);
    return pair;
  }

  /** After commit: the execution event and the engine's changes. */
  function announce(account: TradingAccountRow, pair: Pair, execution: Execution): void {
    const leverage = Number(account.leverage);
    const answer = execution.kind === 'filled' ? filledAnswer(deps.pricing, execution, leverage, pair) : null;
    const event = executionEvent(execution, answer, leverage, pair);
    publishExecutionEffects(deps, Number(account.user_id), Number(account.id), execution, event);
  }

  /** Runs one attempt; `StaleOrder` (a guarded update that found the order gone) rolls it back and answers `stale`. */
  async function attempt<T>(work: (trx: Q) => Promise<T | null>): Promise<T | null> {
    try {
      return await deps.writes.run(work);
    } catch (err) {
      if (err instanceof StaleOrder) return null;
      throw err;
    }
  }

  return {
    async fillPendingOrder(orderId: number, tick: TriggerQuote): Promise<TriggerOutcome> {
      const now = deps.clock.now();
      const outcome = await attempt(async (trx) => {
        const locked = await lockedPendingOrder(trx, orderId);
        if (!locked) return null;
        let { order } = locked;
        const { account } = locked;
        const pair = pairOf(order.symbol);
        const quote = exactTick(tick, pair);
        // The order as stored now must still be crossed by the tick: a modification that won keeps it resting.
        if (!reached(order, quote)) return null;
        if (order.order_type === 'STOP_LIMIT' && order.triggered_at === null) {
          // Its stop and its limit were crossed on the same tick: the trigger is recorded with the fill.
          transition(order.status, 'TRIGGER');
          if (!(await repo.markStopLimitTriggered(trx, orderId, now))) return null;
          order = { ...order, triggered_at: now, updated_at: now };
        }
        const positions = await repo.openPositions(trx, Number(account.id));
        const execution = await execute(deps, trx, {
          account,
          pair,
          side: order.side,
          quantityCentilots: Number(order.quantity_centilots),
          reason: order.reason,
          positions,
          pending: order,
          quote,
          ...(tick.receivedAt === undefined ? {} : { quoteReceivedAt: tick.receivedAt }),
          protection: storedProtection(order),
        });
        return { account, pair, execution };
      });
      if (!outcome) return 'stale';
      announce(outcome.account, outcome.pair, outcome.execution);
      return outcome.execution.kind === 'filled' ? 'filled' : 'rejected';
    },

    async markStopLimitTriggered(orderId: number, at: number): Promise<TriggerOutcome> {
      const outcome = await attempt(async (trx) => {
        const locked = await lockedPendingOrder(trx, orderId);
        if (locked?.order.order_type !== 'STOP_LIMIT' || locked.order.triggered_at !== null) return null;
        transition(locked.order.status, 'TRIGGER');
        if (!(await repo.markStopLimitTriggered(trx, orderId, at))) return null;
        return { account: locked.account, order: { ...locked.order, triggered_at: at, updated_at: at } };
      });
      if (!outcome) return 'stale';
      const userId = Number(outcome.account.user_id);
      const order = outcome.order;
      publishOrderUpdate(deps, {
        userId,
        accountId: Number(outcome.account.id),
        order: orderDto(order, deps.pairs.get(order.symbol)),
      });
      publishEngineChanges(deps, [{ kind: 'order', order: restingOrderState(order, userId) }]);
      return 'filled';
    },

    async closeByProtection(
      positionId: number,
      reason: ProtectionReason,
      tick: TriggerQuote,
      protectionVersion?: number,
    ): Promise<TriggerOutcome> {
      const outcome = await attempt(async (trx) => {
        const first = await repo.findPositionById(trx, positionId);
        if (first?.status !== 'OPEN') return null;
        const account = await lockAccountById(trx, Number(first.account_id));
        if (!account) return null;
        const positions = await repo.openPositions(trx, Number(account.id));
        const target = positions.find((p) => Number(p.id) === positionId);
        if (!target || Number(target.quantity_centilots) === 0) return null;
        // A trader or a fill changed the protection since the engine saw it: the engine decides again
        // on the newer state (the bus brings it), so a change that answered 200 is never undone by this tick.
        if (protectionVersion !== undefined && Number(target.protection_version) !== protectionVersion) return null;
        const pair = pairOf(target.symbol);
        const quote = exactTick(tick, pair);
        if (!protectionHolds(target, reason, quote, protectionVersion !== undefined)) return null;
        const quantity = Number(target.quantity_centilots);
        const execution = await execute(deps, trx, {
          account,
          pair,
          side: quantity > 0 ? 'SELL' : 'BUY',
          quantityCentilots: Math.abs(quantity),
          reason,
          positions,
          target,
          quote,
          ...(tick.receivedAt === undefined ? {} : { quoteReceivedAt: tick.receivedAt }),
          // Protection closes like a stop-out: it only ever reduces risk.
          ignoreAccountStatus: true,
        });
        return { account, pair, execution };
      });
      if (!outcome) return 'stale';
      announce(outcome.account, outcome.pair, outcome.execution);
      return outcome.execution.kind === 'filled' ? 'filled' : 'rejected';
    },

    async expireOrder(orderId: number): Promise<TriggerOutcome> {
      const outcome = await attempt(async (trx) => {
        const locked = await lockedPendingOrder(trx, orderId);
        if (!locked) return null;
        const { order, account } = locked;
        const now = deps.clock.now();
        // Not yet due (the trader moved the expiry, or made it GTC): it keeps resting.
        if (order.expires_at === null || Number(order.expires_at) > now) return null;
        const settlement = {
          status: transition(order.status, 'EXPIRE'),
          filled_quantity_centilots: 0,
          average_fill_price_e10: null,
          rejection_reason: null,
          position_id: null,
          updated_at: now,
        };
        if (!(await repo.settlePendingOrder(trx, orderId, settlement))) return null;
        return { account, order: { ...order, ...settlement } };
      });
      if (!outcome) return 'stale';
      const { account, order } = outcome;
      publishOrderUpdate(deps, {
        userId: Number(account.user_id),
        accountId: Number(account.id),
        order: orderDto(order, deps.pairs.get(order.symbol)),
      });
      publishEngineChanges(deps, [{ kind: 'order_gone', orderId, symbol: order.symbol }]);
      return 'expired';
    },

    async saveTrailingStops(moves): Promise<void> {
      // A move without a stop loss is skipped, never sent: one bad move must not roll back the batch.
      const valid = moves.filter((move) => typeof move.stopLoss === 'string' && move.stopLoss !== '');
      if (valid.length < moves.length)
        deps.log.warn({ skipped: moves.length - valid.length }, 'trailing moves without a stop loss skipped');
      if (valid.length === 0) return;
      await deps.writes.run(async (trx) => {
        for (const move of valid) {
          await repo.saveTrailingStop(
            trx,
            move.positionId,
            priceToE10(Dec.from(move.stopLoss)),
            // Absent: 0, as in ProtectionState (the protection the position opened with).
            move.protectionVersion ?? 0,
          );
        }
      });
    },

    async loadArmed(): Promise<{ orders: RestingOrderState[]; protections: ProtectionState[] }> {
      const read = await repo.readSnapshot(deps.db, async (q) => {
        const orders = armed ? await repo.pendingOrders(q, armed.accountId) : await repo.allPendingOrders(q);
        const positions = armed
          ? (await repo.openPositions(q, armed.accountId)).filter(hasProtection)
          : await repo.allProtectedPositions(q);
        const ids = [...orders.map((o) => Number(o.account_id)), ...positions.map((p) => Number(p.account_id))];
        const accounts = await accountsByIds(q, ids);
        return { orders, positions, accounts };
      });
      const onThisMarket = (a: { id: number; kind: string }) =>
        armed ? Number(a.id) === armed.accountId : a.kind !== 'practice';
      const userOf = new Map(read.accounts.filter(onThisMarket).map((a) => [Number(a.id), Number(a.user_id)]));
      const orders: RestingOrderState[] = [];
      for (const o of read.orders) {
        const userId = userOf.get(Number(o.account_id));
        if (userId !== undefined) orders.push(restingOrderState(o, userId));
      }
      const protections: ProtectionState[] = [];
      for (const p of read.positions) {
        const userId = userOf.get(Number(p.account_id));
        const state = userId === undefined ? undefined : protectionState(repo.positionStateFromRow(p), userId);
        if (state) protections.push(state);
      }
      return { orders, protections };
    },
  };
}

/** Whether a position has anything the trigger book arms (as `allProtectedPositions` selects). */
function hasProtection(p: PositionRow): boolean {
  return p.stop_loss_e10 !== null || p.take_profit_e10 !== null || p.trailing_stop_pips !== null;
}

/** The tick as exact prices at the pair's digits. */
function exactTick(tick: TriggerQuote, pair: Pair): ExactQuote {
  if (tick.symbol.toUpperCase() !== pair.symbol) throw new Error(`A ${tick.symbol} tick cannot fill a ${pair.symbol} order`);
  const bid = Dec.from(tick.bid).round(pair.digits);
  const ask = Dec.from(tick.ask).round(pair.digits);
  return { bid, ask, mid: midOf(bid, ask) };
}

/**
 * Whether the tick crosses the stored order (docs/order-engine.md#the-trigger-table): a BUY LIMIT when ask ≤
 * price, a SELL LIMIT when bid ≥ price, a BUY STOP when ask ≥ price, a SELL STOP when bid ≤
 * price; a STOP_LIMIT once its stop has triggered (now or before) when its limit is crossed.
 */
export function reached(order: OrderRow, quote: ExactQuote): boolean {
  const buy = order.side === 'BUY';
  const limitCrossed = (limit: Dec) => (buy ? quote.ask.lte(limit) : quote.bid.gte(limit));
  const stopCrossed = (stop: Dec) => (buy ? quote.ask.gte(stop) : quote.bid.lte(stop));
  if (order.price_e10 === null) return false;
  const price = priceFromE10(Number(order.price_e10));
  switch (order.order_type) {
    case 'LIMIT':
      return limitCrossed(price);
    case 'STOP':
      return stopCrossed(price);
    case 'STOP_LIMIT':
      return (
        order.limit_price_e10 !== null &&
        (order.triggered_at !== null || stopCrossed(price)) &&
        limitCrossed(priceFromE10(Number(order.limit_price_e10)))
      );
    default:
      return false;
  }
}

/**
 * Whether the position as stored still has the protection that fired: a take profit crossed
 * by the tick (a LONG's when bid ≥ TP, a SHORT's when ask ≤ TP); a stop loss crossed (a LONG's
 * when bid ≤ SL, a SHORT's when ask ≥ SL), except with trailing, whose stop the engine moves in
 * memory ahead of what is stored; a trailing stop still set. `sameVersion`: the engine acted on
 * the stored protection version, so its stop loss (the stored one, or one it moved or kept ahead
 * of it, up to a second unwritten) is trusted.
 */
export function protectionHolds(
  position: PositionRow,
  reason: ProtectionReason,
  quote: ExactQuote,
  sameVersion = false,
): boolean {
  const long = Number(position.quantity_centilots) > 0;
  const at = long ? quote.bid : quote.ask;
  const trailing = position.trailing_stop_pips !== null;
  switch (reason) {
    case 'take_profit': {
      if (position.take_profit_e10 === null) return false;
      const tp = priceFromE10(Number(position.take_profit_e10));
      return long ? at.gte(tp) : at.lte(tp);
    }
    case 'stop_loss': {
      if (trailing || sameVersion) return true;
      if (position.stop_loss_e10 === null) return false;
      const sl = priceFromE10(Number(position.stop_loss_e10));
      return long ? at.lte(sl) : at.gte(sl);
    }
    case 'trailing_stop':
      return trailing;
  }
}
