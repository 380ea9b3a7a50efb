import type { OrderStatus } from '@pipdesk/contract';

/**
 * What can happen to an order. Market orders go PENDING → FILLED or PENDING → REJECTED in one
 * execution; a pending order (docs/orders.md) rests PENDING until it fills, is rejected at
 * fill time, is cancelled or expires. MODIFY and TRIGGER (a STOP_LIMIT's stop firing, after
 * which it rests as a LIMIT) leave it PENDING: they are in the table so that only a PENDING
 * order can be modified or triggered.
 */
export type OrderEvent = 'FILL' | 'PARTIAL_FILL' | 'REJECT' | 'CANCEL' | 'EXPIRE' | 'MODIFY' | 'TRIGGER';

/**
 * The one `(status, event) → status` table: every status change goes through `transition`.
 * Terminal statuses (FILLED, CANCELLED, REJECTED, EXPIRED) have no way out. FX fills are
 * whole, so PARTIAL_FILL is never used (PARTIALLY_FILLED stays for the filters).
 */
const TRANSITIONS: Readonly<Record<OrderStatus, Partial<Record<OrderEvent, OrderStatus>>>> = {
  PENDING: {
    FILL: 'FILLED',
    PARTIAL_FILL: 'PARTIALLY_FILLED',
    REJECT: 'REJECTED',
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
    MODIFY: 'PENDING',
    TRIGGER: 'PENDING',
  },
  PARTIALLY_FILLED: {
    FILL: 'FILLED',
    PARTIAL_FILL: 'PARTIALLY_FILLED',
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
  },
  FILLED: {},
  CANCELLED: {},
  REJECTED: {},
  EXPIRED: {},
};

export class IllegalOrderTransition extends Error {
  constructor(
    readonly from: OrderStatus,
    readonly event: OrderEvent,
  ) {
    super(`Order in status ${from} cannot ${event}`);
    this.name = 'IllegalOrderTransition';
  }
}

/**
 * A status the table gave (or the initial one). An order row is written only with one of
 * these (`repo.insertOrder`), so no status can be stored as a literal that bypasses the table.
 */
export type StoredOrderStatus = OrderStatus & { readonly __brand: 'StoredOrderStatus' };

/** The status after `event`; throws on any transition the table does not allow. */
export function transition(from: OrderStatus, event: OrderEvent): StoredOrderStatus {
  const to = TRANSITIONS[from][event];
  if (!to) throw new IllegalOrderTransition(from, event);
  return to as StoredOrderStatus;
}

/** The status a new order starts in. */
export const INITIAL_ORDER_STATUS = 'PENDING' as StoredOrderStatus;

export function isTerminal(status: OrderStatus): boolean {
  return Object.keys(TRANSITIONS[status]).length === 0;
}

/** Whether `event` may happen to an order in `status` (the table allows it). */
export function allows(status: OrderStatus, event: OrderEvent): boolean {
  return TRANSITIONS[status][event] !== undefined;
}
