import type { OrderSide, OrderStatus, PositionSide } from '@pipdesk/contract';
import { Badge, type Tone } from '../../components';

const STATUS_TONES: Readonly<Record<OrderStatus, Tone>> = {
  PENDING: 'warning',
  PARTIALLY_FILLED: 'accent',
  FILLED: 'profit',
  CANCELLED: 'neutral',
  REJECTED: 'loss',
  EXPIRED: 'neutral',
};

/** An order's status as the server names it (spec §4: the interface only displays them). */
export function OrderStatusBadge({ status }: { status: OrderStatus }) {
  return <Badge tone={STATUS_TONES[status]}>{status.replace('_', ' ')}</Badge>;
}

/** BUY in the ask colour, SELL in the bid colour; LONG/SHORT likewise; FLAT neutral. */
export function SideBadge({ side }: { side: OrderSide | PositionSide }) {
  const tone: Tone = side === 'BUY' || side === 'LONG' ? 'profit' : side === 'SELL' || side === 'SHORT' ? 'loss' : 'neutral';
  return <Badge tone={tone}>{side}</Badge>;
}
