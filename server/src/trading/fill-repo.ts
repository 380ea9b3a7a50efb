import { postLedgerEntry, type RealizedPnlValues } from '../accounts/index.js';
import { dbKindOf } from '../db/prepared.js';
import { type NewFillTrade, type WrittenFill, writeFillStatement, writeWholeFill } from './fill-statement.js';
import type { StoredOrderStatus } from './order-status.js';
import { insertOrder, insertTrade, type PendingOrderSettlement, settlePendingOrder } from './orders-repo.js';
import { type FillStatistics, recordFillStatistics, statisticsOfFill } from './performance/record.js';
import { type FillPositionWrite, writePosition } from './positions-repo.js';
import type { OrderRow, Q } from './rows.js';

/** Thrown inside the transaction when a PENDING order was no longer PENDING at its guarded update: nothing of the attempt is kept. */
export class StaleOrder extends Error {
  constructor(readonly orderId: number) {
    super(`Order ${orderId} is no longer PENDING`);
    this.name = 'StaleOrder';
  }
}

/** A whole new MARKET order (every column but its id; its status from the status table, order-status.ts). */
export type NewMarketOrder = Omit<OrderRow, 'id' | 'status'> & { status: StoredOrderStatus };

/**
 * How a fill's order is written: a new FILLED MARKET order (its position's id is the fill's), or
 * a stored PENDING order leaving PENDING through `… WHERE status = 'PENDING'`.
 */
export type FillOrderWrite =
  | { kind: 'market'; row: Omit<NewMarketOrder, 'position_id'> }
  | { kind: 'pending'; pending: OrderRow; settlement: Omit<PendingOrderSettlement, 'position_id'> };

/** Everything one fill writes, as the pure decision computed it (fill-decision.ts). */
export interface FillWrite {
  position: FillPositionWrite;
  order: FillOrderWrite;
  trade: NewFillTrade;
  /** The realized P&L's balance change and `realized_pnl` ledger row; undefined when the fill realizes none (0). */
  realizedPnl: RealizedPnlValues | undefined;
  /** The account's balance before the fill, read under its lock in this transaction. */
  balanceMinor: number;
  /**
   * The fill as the statistics record it (docs/performance.md), at the balance after it and with
   * its position's id (0 while a new one is not written yet). Asked where the writes have these:
   * the position valued under its stored id is the valuation its event reuses (math.ts, `valuePosition`).
   */
  statistics: (balanceAfter: number, positionId: number) => FillStatistics;
}

/** The ids the fill's rows were given, and the balance after it. */
export interface StoredFill extends WrittenFill {
  balanceMinor: number;
}

/**
 * Records a fill in the caller's write transaction, all or nothing: the position, the order and
 * the trade, the realized P&L's balance change and ledger row, and the statistics. This is where
 * the databases differ (docs/order-engine.md#round-trips): on PostgreSQL a MARKET order's fill is
 * one statement when its statistics' rows were read ahead (the account is locked, so the balance
 * after it is the one read plus the P&L), else its position, order and trade are one statement
 * and the rest follows as below; SQLite, and a PENDING order's fill (whose guarded update decides
 * whether it goes on), write step by step. `StaleOrder` when the PENDING order was no longer PENDING.
 */
export async function recordFill(trx: Q, fill: FillWrite): Promise<StoredFill> {
  const { position, order, trade, realizedPnl } = fill;
  let written: WrittenFill;
  if (order.kind === 'market' && dbKindOf(trx) === 'postgres') {
    const balanceAfter = fill.balanceMinor + (realizedPnl?.amount_minor ?? 0);
    const statistics = statisticsOfFill(fill.statistics(balanceAfter, position.kind === 'update' ? position.id : 0));
    if (statistics) {
      const ids = await writeWholeFill(trx, { position, order: order.row, trade, realizedPnl, statistics });
      return { ...ids, balanceMinor: balanceAfter };
    }
    written = await writeFillStatement(trx, position, order.row, trade);
  } else {
    const positionId = await writePosition(trx, position);
    let orderId: number;
    if (order.kind === 'pending') {
      orderId = order.pending.id;
      if (!(await settlePendingOrder(trx, orderId, { ...order.settlement, position_id: positionId })))
        throw new StaleOrder(orderId);
    } else {
      orderId = await insertOrder(trx, { ...order.row, position_id: positionId });
    }
    const tradeId = await insertTrade(trx, { ...trade, order_id: orderId, position_id: positionId });
    written = { positionId, orderId, tradeId };
  }
  const balanceAfter =
    realizedPnl === undefined
      ? fill.balanceMinor
      : await postLedgerEntry(trx, {
          accountId: realizedPnl.account_id,
          kind: 'realized_pnl',
          amountMinor: realizedPnl.amount_minor,
          reference: `trade:${written.tradeId}`,
          now: realizedPnl.created_at,
        });
  await recordFillStatistics(trx, { ...fill.statistics(balanceAfter, written.positionId), tradeId: written.tradeId });
  return { ...written, balanceMinor: balanceAfter };
}

/** How a rejected order is stored: a new REJECTED MARKET order, or a PENDING one leaving PENDING as REJECTED. */
export type RejectionWrite =
  | { kind: 'market'; row: NewMarketOrder }
  | { kind: 'pending'; pending: OrderRow; settlement: PendingOrderSettlement };

/** Stores a rejection (nothing else changes): the order's id; `StaleOrder` when the PENDING order was no longer PENDING. */
export async function recordRejection(trx: Q, order: RejectionWrite): Promise<number> {
  if (order.kind === 'market') return insertOrder(trx, order.row);
  if (!(await settlePendingOrder(trx, order.pending.id, order.settlement))) throw new StaleOrder(order.pending.id);
  return order.pending.id;
}
