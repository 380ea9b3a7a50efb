import type { OrderDto, OrderSide, OrderStatus, PositionSide } from '@pipdesk/contract';
import { Badge, type Tone } from '../../components';
import { ORDER_REASON_LABELS, ORDER_STATUS_LABELS, ORDER_TYPE_LABELS } from './format';

const STATUS_TONES: Readonly<Record<OrderStatus, Tone>> = {
  PENDING: 'warning',
  PARTIALLY_FILLED: 'accent',
  FILLED: 'profit',
  CANCELLED: 'neutral',
  REJECTED: 'loss',
  EXPIRED: 'neutral',
};

/**
 * An order's status (docs/trading-rules.md#orders: the interface only displays them), in the words
 * of the Orders page's Status filter ("Partially Filled"), so one status reads the same everywhere.
 */
export function OrderStatusBadge({ status }: { status: OrderStatus }) {
  return <Badge tone={STATUS_TONES[status]}>{ORDER_STATUS_LABELS[status]}</Badge>;
}

/** BUY in the ask colour, SELL in the bid colour; LONG/SHORT likewise; FLAT neutral. */
export function SideBadge({ side }: { side: OrderSide | PositionSide }) {
  const tone: Tone = side === 'BUY' || side === 'LONG' ? 'profit' : side === 'SELL' || side === 'SHORT' ? 'loss' : 'neutral';
  return <Badge tone={tone}>{side}</Badge>;
}

/** An order's type and, unless it is the trader's own, why it exists: "Market · Stop loss". */
export function OrderTypeLabel({ order }: { order: Pick<OrderDto, 'order_type' | 'reason'> }) {
  const reason = ORDER_REASON_LABELS[order.reason];
  return (
    <>
      {ORDER_TYPE_LABELS[order.order_type]}
      {reason && <span className="order-tag"> · {reason}</span>}
    </>
  );
}
