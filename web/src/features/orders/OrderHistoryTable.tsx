import type { OrderDto, OrderReason } from '@pipdesk/contract';
import { type Column, DataTable, Num } from '../../components';
import { formatDateTime, formatLots, formatQuote, ORDER_TYPE_LABELS, OrderStatusBadge, SideBadge } from '../trading';

/**
 * Why an order exists, in the trader's words (docs/orders.md#the-model); the trader's own order
 * (`client`) needs no tag. A pending order keeps `client` when it fills; `pending` is reserved.
 */
export const ORDER_REASON_LABELS: Readonly<Record<OrderReason, string | null>> = {
  client: null,
  close: 'Close',
  stop_out: 'Stop-out',
  stop_loss: 'Stop loss',
  take_profit: 'Take profit',
  trailing_stop: 'Trailing stop',
  pending: 'Pending',
  reset: 'Reset',
};

/** "1.08000 / 1.09500", a dash for a side that has none, and the trailing distance when there is one. */
export function protectionText(
  order: Pick<OrderDto, 'stop_loss' | 'take_profit' | 'trailing_stop_pips'>,
  digits: number,
): string {
  if (order.stop_loss === null && order.take_profit === null && order.trailing_stop_pips === null) return '—';
  const prices = `${formatQuote(order.stop_loss, digits)} / ${formatQuote(order.take_profit, digits)}`;
  return order.trailing_stop_pips === null ? prices : `${prices} · trailing ${order.trailing_stop_pips} pips`;
}

/** GTC orders never expire; a GTD order's expiry in the app's one date style. */
export function expiryText(order: Pick<OrderDto, 'time_in_force' | 'expires_at'>): string {
  if (order.time_in_force === 'GTD' && order.expires_at) return formatDateTime(order.expires_at);
  return 'GTC';
}

export interface OrderHistoryTableProps {
  orders: readonly OrderDto[];
  digits: (symbol: string) => number;
  empty: string;
  caption: string;
}

/**
 * The Order History table: the spec's columns first and unchanged (Time, Pair, Type, Side,
 * Quantity, Price, Fill Price, Status; docs/screens.md#orders-page), then what pending orders and
 * protection add beside them: Limit Price (a STOP_LIMIT's), SL / TP and Expiry.
 */
export function OrderHistoryTable({ orders, digits, empty, caption }: OrderHistoryTableProps) {
  const columns: Column<OrderDto>[] = [
    { key: 'time', header: 'Time', cell: (o) => <time dateTime={o.created_at}>{formatDateTime(o.created_at)}</time> },
    { key: 'pair', header: 'Pair', cell: (o) => o.fx_pair_symbol },
    {
      key: 'type',
      header: 'Type',
      cell: (o) => (
        <>
          {ORDER_TYPE_LABELS[o.order_type]}
          {ORDER_REASON_LABELS[o.reason] && <span className="order-tag"> · {ORDER_REASON_LABELS[o.reason]}</span>}
        </>
      ),
    },
    { key: 'side', header: 'Side', cell: (o) => <SideBadge side={o.side} /> },
    { key: 'quantity', header: 'Quantity', numeric: true, cell: (o) => formatLots(o.quantity) },
    { key: 'price', header: 'Price', numeric: true, cell: (o) => formatQuote(o.price, digits(o.fx_pair_symbol)) },
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
          {o.status === 'PENDING' && o.triggered_at && <span className="order-status__reason">Stop triggered</span>}
          {o.rejection_reason && <span className="order-status__reason">{o.rejection_reason}</span>}
        </div>
      ),
    },
    {
      key: 'limit',
      header: 'Limit Price',
      numeric: true,
      cell: (o) => formatQuote(o.limit_price, digits(o.fx_pair_symbol)),
    },
    { key: 'protection', header: 'SL / TP', numeric: true, cell: (o) => protectionText(o, digits(o.fx_pair_symbol)) },
    {
      key: 'expiry',
      header: 'Expiry',
      cell: (o) =>
        o.time_in_force === 'GTD' && o.expires_at ? <time dateTime={o.expires_at}>{expiryText(o)}</time> : expiryText(o),
    },
  ];
  return <DataTable columns={columns} rows={orders} rowKey={(o) => o.id} empty={empty} caption={caption} />;
}
