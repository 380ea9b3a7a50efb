import type { OrderStatus } from '@pipdesk/contract';

/** What can happen to an order. Market orders go PENDING → FILLED or PENDING → REJECTED in one execution. */
export type OrderEvent = 'FILL' | 'PARTIAL_FILL' | 'REJECT' | 'CANCEL' | 'EXPIRE';

/**
 * The one `(status, event) → status` table: every status change goes through `transition`.
 * Terminal statuses (FILLED, CANCELLED, REJECTED, EXPIRED) have no way out; LIMIT/STOP
 * orders (reserved) would use PARTIAL_FILL, CANCEL and EXPIRE.
 */
const TRANSITIONS: Readonly<Record<OrderStatus, Partial<Record<OrderEvent, OrderStatus>>>> = {
  PENDING: {
    FILL: 'FILLED',
    PARTIAL_FILL: 'PARTIALLY_FILLED',
    REJECT: 'REJECTED',
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
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

/** The status after `event`; throws on any transition the table does not allow. */
export function transition(from: OrderStatus, event: OrderEvent): OrderStatus {
  const to = TRANSITIONS[from][event];
  if (!to) throw new IllegalOrderTransition(from, event);
  return to;
}

/** The status a new order starts in. */
export const INITIAL_ORDER_STATUS: OrderStatus = 'PENDING';

export function isTerminal(status: OrderStatus): boolean {
  return Object.keys(TRANSITIONS[status]).length === 0;
}
