import type { FxPair, OrderDto } from '@pipdesk/contract';
import { useEffect, useRef, useState } from 'react';
import { Button, Card, type Column, DataTable, Num } from '../../../components';
import { SideBadge } from '../badges';
import { defaultDigits, formatDateTime, formatLots, formatQuote, ORDER_TYPE_LABELS } from '../format';
import { useLivePrices } from '../LiveTradingProvider';
import { ModifyOrderForm } from './ModifyOrderForm';
import { pipDistance } from './pendingRules';
import { usePendingOrderActions } from './usePendingOrderActions';

export interface PendingOrdersPanelProps {
  /** The trader's PENDING orders (platform-data's or the pair page's `pending_orders`). */
  orders: readonly OrderDto[];
  /** The catalogue: each pair's digits and pip size. */
  pairs: readonly FxPair[];
  /** On the pair page: the title names the pair and the Pair column goes. */
  symbol?: string;
}

/** "BUY LIMIT 0.10 EURUSD at 1.08000": names an order in its buttons' labels. */
function describe(order: OrderDto, digits: number): string {
  return `${order.side} ${order.order_type.replace('_', ' ')} ${formatLots(order.quantity)} ${order.fx_pair_symbol} at ${formatQuote(order.price, digits)}`;
}

/**
 * The "Pending Orders" panel (docs/screens.md#pending-orders): type, side, lots, price, limit,
 * SL/TP, expiry and the live distance from the market in pips, with Modify and Cancel. The list
 * follows the socket's `order_update` (the cache is patched in `applyTradingMessage`).
 */
export function PendingOrdersPanel({ orders, pairs, symbol }: PendingOrdersPanelProps) {
  const prices = useLivePrices();
  const bySymbol = new Map(pairs.map((p) => [p.symbol, p]));
  const digits = (s: string) => bySymbol.get(s)?.digits ?? defaultDigits(s);
  const actions = usePendingOrderActions(digits);
  const [editingId, setEditingId] = useState<number | null>(null);
  const modifyButtons = useRef(new Map<number, HTMLButtonElement>());
  const returnFocusTo = useRef<number | null>(null);
  const editing = editingId === null ? undefined : orders.find((o) => o.id === editingId);

  // The form closed (saved, discarded, or the order left the list): the focus goes back to its row.
  useEffect(() => {
    if (editing || returnFocusTo.current === null) return;
    modifyButtons.current.get(returnFocusTo.current)?.focus();
    returnFocusTo.current = null;
  }, [editing]);

  const columns: Column<OrderDto>[] = [
    ...(symbol ? [] : [{ key: 'pair', header: 'Pair', cell: (o: OrderDto) => o.fx_pair_symbol }]),
    {
      key: 'type',
      header: 'Type',
      cell: (o) => (
        <>
          {ORDER_TYPE_LABELS[o.order_type]}
          {o.triggered_at && <span className="order-tag"> · Triggered</span>}
        </>
      ),
    },
    { key: 'side', header: 'Side', cell: (o) => <SideBadge side={o.side} /> },
    { key: 'lots', header: 'Lots', numeric: true, cell: (o) => formatLots(o.quantity) },
    { key: 'price', header: 'Price', numeric: true, cell: (o) => formatQuote(o.price, digits(o.fx_pair_symbol)) },
    { key: 'limit', header: 'Limit', numeric: true, cell: (o) => formatQuote(o.limit_price, digits(o.fx_pair_symbol)) },
    {
      key: 'protection',
      header: 'SL / TP',
      numeric: true,
      cell: (o) => (
        <span className="pending-protection">
          {formatQuote(o.stop_loss, digits(o.fx_pair_symbol))} / {formatQuote(o.take_profit, digits(o.fx_pair_symbol))}
          {o.trailing_stop_pips !== null && <span className="order-tag"> · trailing {o.trailing_stop_pips} pips</span>}
        </span>
      ),
    },
    {
      key: 'expiry',
      header: 'Expiry',
      cell: (o) => (o.expires_at ? <time dateTime={o.expires_at}>{formatDateTime(o.expires_at)}</time> : 'GTC'),
    },
    {
      key: 'distance',
      header: 'Distance (pips)',
      numeric: true,
      cell: (o) => {
        const pair = bySymbol.get(o.fx_pair_symbol);
        const distance = pair ? pipDistance(o, prices[o.fx_pair_symbol], pair.pip_size) : null;
        return <Num data-testid={`distance-${o.id}`}>{distance === null ? '—' : distance.toFixed(1)}</Num>;
      },
    },
    {
      key: 'action',
      header: <span className="sr-only">Action</span>,
      cell: (o) => {
        const what = describe(o, digits(o.fx_pair_symbol));
        return (
          <div className="row-actions">
            <Button
              size="sm"
              variant="secondary"
              ref={(el) => {
                if (el) modifyButtons.current.set(o.id, el);
                else modifyButtons.current.delete(o.id);
              }}
              aria-label={`Modify ${what}`}
              aria-expanded={editingId === o.id}
              onClick={() => setEditingId((id) => (id === o.id ? null : o.id))}
            >
              Modify
            </Button>
            <Button
              size="sm"
              variant="danger"
              aria-label={actions.cancellingId === o.id ? `Cancelling ${what}` : `Cancel ${what}`}
              disabled={actions.cancellingId !== null}
              busy={actions.cancellingId === o.id}
              onClick={() => void actions.cancel(o)}
            >
              {actions.cancellingId === o.id ? 'Cancelling...' : 'Cancel'}
            </Button>
          </div>
        );
      },
    },
  ];

  const pair = editing ? bySymbol.get(editing.fx_pair_symbol) : undefined;
  return (
    <Card
      title={symbol ? `Pending Orders · ${symbol}` : 'Pending Orders'}
      flush
      className="trading-table pending-orders"
      aria-label="Pending Orders"
    >
      <DataTable
        columns={columns}
        rows={orders}
        rowKey={(o) => o.id}
        empty="No pending orders"
        caption={symbol ? `Pending orders in ${symbol}` : 'Pending orders'}
      />
      {editing && (
        <ModifyOrderForm
          key={editing.id}
          order={editing}
          pair={pair ?? { symbol: editing.fx_pair_symbol, digits: digits(editing.fx_pair_symbol) }}
          quote={prices[editing.fx_pair_symbol]}
          onSave={(change) => actions.modify(editing, change)}
          onDone={() => {
            returnFocusTo.current = editing.id;
            setEditingId(null);
          }}
        />
      )}
    </Card>
  );
}
