import type { Dec, OrderRejectionCode } from '@pipdesk/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { TradingDeps } from './deps.js';
import { decideFill, type ExecutionRequest, positionWithId } from './fill-decision.js';
import { recordFill, recordRejection } from './fill-repo.js';
import type { OrderRow } from './rows.js';
import { type OrderId, type PositionState, type TradeId, orderId as toOrderId, tradeId as toTradeId } from './types.js';

// The decision's inputs and the protection helpers, and the repository's stale order, are the
// execution's vocabulary for its callers (the commands, the order rules).
export { type ExecutionRequest, type StoredProtection, storedProtection } from './fill-decision.js';
export { StaleOrder } from './fill-repo.js';

export interface FilledExecution {
  kind: 'filled';
  order: OrderRow & { id: OrderId };
  position: PositionState;
  /** The position before the fill (undefined when the fill opened it). */
  before: PositionState | undefined;
  tradeId: TradeId;
  realizedMinor: number;
  price: Dec;
  marginRequired: Dec;
  units: Dec;
  balanceMinor: number;
  executedAt: number;
}

/** A business rejection: the order is stored REJECTED and nothing else changes. */
export interface RejectedExecution {
  kind: 'rejected';
  order: OrderRow & { id: OrderId };
  code: OrderRejectionCode;
  message: string;
  balanceMinor: number;
}

export type Execution = FilledExecution | RejectedExecution;

/**
 * One execution inside the caller's write transaction: the order (FILLED or REJECTED), the
 * trade, the position and the ledger entry, all or nothing. The decision is pure
 * (fill-decision.ts, `decideFill`); the repository records it (fill-repo.ts), where the two
 * databases write it differently (docs/order-engine.md#round-trips).
 */
export async function execute(
  deps: Pick<TradingDeps, 'clock' | 'pricing'>,
  trx: Kysely<Database>,
  req: ExecutionRequest,
): Promise<Execution> {
  const plan = decideFill(req, deps.clock.now(), deps.pricing);
  if (plan.kind === 'rejected') {
    const { write } = plan;
    const id = toOrderId(await recordRejection(trx, write));
    const order = write.kind === 'pending' ? { ...write.pending, ...write.settlement, id } : { id, ...write.row };
    return { kind: 'rejected', order, code: plan.code, message: plan.message, balanceMinor: req.account.balance_minor };
  }
  const stored = await recordFill(trx, plan.write);
  const { order: written } = plan.write;
  const order =
    written.kind === 'pending'
      ? { ...written.pending, ...written.settlement, position_id: stored.positionId, id: toOrderId(written.pending.id) }
      : { id: toOrderId(stored.orderId), ...written.row, position_id: stored.positionId };
  return {
    kind: 'filled',
    order,
    position: positionWithId(plan.position, stored.positionId),
    before: plan.before,
    tradeId: toTradeId(stored.tradeId),
    realizedMinor: plan.realizedMinor,
    price: plan.price,
    marginRequired: plan.marginRequired,
    units: plan.units,
    balanceMinor: stored.balanceMinor,
    executedAt: plan.executedAt,
  };
}
