import type { OrderDto } from '@pipdesk/contract';
import { type Column, DataTable, Num } from '../../components';
import { OrderStatusBadge, SideBadge } from './badges';
import { formatDateTime, formatLots, formatQuote, ORDER_TYPE_LABELS } from './format';

const REASON_TAGS: Readonly<Record<OrderDto['reason'], string | null>> = {
  client: null,
  close: 'Close',
  stop_out: 'Stop-out',
  stop_loss: 'Stop loss',
  take_profit: 'Take profit',
  trailing_stop: 'Trailing stop',
  pending: null,
  reset: 'Reset',
};

export interface OrdersTableProps {
  orders: readonly OrderDto[];
  digits: (symbol: string) => number;
  /** The Orders page's full set of columns (docs/screens.md#orders-page); otherwise a compact recent-orders table. */
  full?: boolean;
  empty?: string;
  caption: string;
}

/**
 * Orders with their status and, for a rejected one, the reason. Full: Time, Pair, Type,
 * Side, Quantity, Price, Fill Price, Status (docs/screens.md#orders-page); compact drops the requested Price.
 */
export function OrdersTable({ orders, digits, full = false, empty = 'No orders yet', caption }: OrdersTableProps) {
  const columns: Column<OrderDto>[] = [
    {
      key: 'time',
      header: 'Time',
      cell: (o) => <time dateTime={o.created_at}>{formatDateTime(o.created_at)}</time>,
    },
    { key: 'pair', header: 'Pair', cell: (o) => o.fx_pair_symbol },
    {
      key: 'type',
      header: 'Type',
      cell: (o) => (
        <>
          {ORDER_TYPE_LABELS[o.order_type]}
          {REASON_TAGS[o.reason] && <span className="order-tag"> · {REASON_TAGS[o.reason]}</span>}
        </>
      ),
    },
    { key: 'side', header: 'Side', cell: (o) => <SideBadge side={o.side} /> },
    { key: 'quantity', header: 'Quantity', numeric: true, cell: (o) => formatLots(o.quantity) },
    ...(full
      ? [{ key: 'price', header: 'Price', numeric: true, cell: (o: OrderDto) => formatQuote(o.price, digits(o.fx_pair_symbol)) }]
      : []),
    {
      key: 'fill',
      header: 'Fill Price',
      numeric: true,
      cell: (o) => <Num>{formatQuote(o.average_fill_price, digits(o.fx_pair_symbol))}</Num>,
    },
    {
      key: 'status',
      header: 'Status',
      cell: (o) => (
        <div className="order-status">
          <OrderStatusBadge status={o.status} />
          {o.rejection_reason && <span className="order-status__reason">{o.rejection_reason}</span>}
        </div>
      ),
    },
  ];
  return <DataTable columns={columns} rows={orders} rowKey={(o) => o.id} empty={empty} caption={caption} />;
}
