import type { OrderDto } from '@pipdesk/contract';
import { type Column, DataTable, Num } from '../../components';
import { OrderStatusBadge, OrderTypeLabel, SideBadge } from './badges';
import { formatDateTime, formatLots, formatQuote } from './format';

export interface OrdersTableProps {
  orders: readonly OrderDto[];
  digits: (symbol: string) => number;
  empty?: string;
  caption: string;
}

/**
 * The order columns every orders table shows alike, by key: the recent-orders table below and the
 * Order History (docs/screens.md#orders-page) pick theirs from here.
 */
export function orderColumns(
  digits: (symbol: string) => number,
  /** The status also says "Stop triggered" for a pending STOP_LIMIT whose stop has fired (the Order History does). */
  { stopTriggered = false }: { stopTriggered?: boolean } = {},
) {
  return {
    time: {
      key: 'time',
      header: 'Time',
      cell: (o) => <time dateTime={o.created_at}>{formatDateTime(o.created_at)}</time>,
    },
    pair: { key: 'pair', header: 'Pair', cell: (o) => o.fx_pair_symbol },
    type: { key: 'type', header: 'Type', cell: (o) => <OrderTypeLabel order={o} /> },
    side: { key: 'side', header: 'Side', cell: (o) => <SideBadge side={o.side} /> },
    quantity: { key: 'quantity', header: 'Quantity', numeric: true, cell: (o) => formatLots(o.quantity) },
    price: { key: 'price', header: 'Price', numeric: true, cell: (o) => formatQuote(o.price, digits(o.fx_pair_symbol)) },
    fill: {
      key: 'fill',
      header: 'Fill Price',
      numeric: true,
      cell: (o) => <Num>{formatQuote(o.average_fill_price, digits(o.fx_pair_symbol))}</Num>,
    },
    status: {
      key: 'status',
      header: 'Status',
      cell: (o) => (
        <div className="order-status">
          <OrderStatusBadge status={o.status} />
          {stopTriggered && o.status === 'PENDING' && o.triggered_at && (
            <span className="order-status__reason">Stop triggered</span>
          )}
          {o.rejection_reason && <span className="order-status__reason">{o.rejection_reason}</span>}
        </div>
      ),
    },
  } satisfies Record<string, Column<OrderDto>>;
}

/**
 * Recent orders with their status and, for a rejected one, the reason: Time, Pair, Type, Side,
 * Quantity, Fill Price, Status (the Orders page's table, OrderHistoryTable, adds the requested Price and more).
 */
export function OrdersTable({ orders, digits, empty = 'No orders yet', caption }: OrdersTableProps) {
  const c = orderColumns(digits);
  const columns: Column<OrderDto>[] = [c.time, c.pair, c.type, c.side, c.quantity, c.fill, c.status];
  return <DataTable columns={columns} rows={orders} rowKey={(o) => o.id} empty={empty} caption={caption} />;
}
