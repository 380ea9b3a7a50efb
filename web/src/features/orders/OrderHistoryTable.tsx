import type { OrderDto } from '@pipdesk/contract';
import { type Column, DataTable } from '../../components';
import { formatDateTime, formatQuote, orderColumns } from '../trading';

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
 * The Order History table: the eight base columns first and unchanged (Time, Pair, Type, Side,
 * Quantity, Price, Fill Price, Status; docs/screens.md#orders-page), then what pending orders and
 * protection add beside them: Limit Price (a STOP_LIMIT's), SL / TP and Expiry
 * (docs/screens.md#orders-page-additions).
 */
export function OrderHistoryTable({ orders, digits, empty, caption }: OrderHistoryTableProps) {
  const c = orderColumns(digits, { stopTriggered: true });
  const columns: Column<OrderDto>[] = [
    c.time,
    c.pair,
    c.type,
    c.side,
    c.quantity,
    c.price,
    c.fill,
    c.status,
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
