import type { PositionDto } from '@pipdesk/contract';
import { Link } from 'react-router';
import { Button, type Column, DataTable, Num } from '../../components';
import { SideBadge } from './badges';
import { formatLots, formatPnl, formatQuote, formatUsd } from './format';

export interface PositionsTableProps {
  positions: readonly PositionDto[];
  digits: (symbol: string) => number;
  /** Shows a Close button on each row that is not FLAT. */
  onClose?: (position: PositionDto) => void;
  closingId?: number | null;
  /** Links each pair to its page (the dashboard). */
  linkPairs?: boolean;
  caption: string;
}

/** Open positions: pair, side, lots, entry and current price, unrealized P&L (coloured) and margin. */
export function PositionsTable({
  positions,
  digits,
  onClose,
  closingId = null,
  linkPairs = false,
  caption,
}: PositionsTableProps) {
  const columns: Column<PositionDto>[] = [
    {
      key: 'pair',
      header: 'Pair',
      cell: (p) => (linkPairs ? <Link to={`/pair/${p.fx_pair_symbol}`}>{p.fx_pair_symbol}</Link> : p.fx_pair_symbol),
    },
    { key: 'side', header: 'Side', cell: (p) => <SideBadge side={p.side} /> },
    { key: 'lots', header: 'Lots', numeric: true, cell: (p) => formatLots(p.quantity) },
    {
      key: 'entry',
      header: 'Entry Price',
      numeric: true,
      cell: (p) => formatQuote(p.average_entry_price, digits(p.fx_pair_symbol)),
    },
    {
      key: 'current',
      header: 'Current Price',
      numeric: true,
      cell: (p) => formatQuote(p.current_price, digits(p.fx_pair_symbol)),
    },
    {
      key: 'pnl',
      header: 'Unrealized P&L',
      numeric: true,
      cell: (p) => (
        <Num signOf={p.unrealized_pnl} data-testid={`pnl-${p.id}`}>
          {formatPnl(p.unrealized_pnl)}
        </Num>
      ),
    },
    { key: 'margin', header: 'Margin', numeric: true, cell: (p) => formatUsd(p.margin_used) },
  ];
  if (onClose) {
    columns.push({
      key: 'action',
      header: <span className="sr-only">Action</span>,
      cell: (p) =>
        p.side === 'FLAT' ? null : (
          <Button
            size="sm"
            variant="secondary"
            onClick={() => onClose(p)}
            disabled={closingId !== null}
            busy={closingId === p.id}
            aria-label={closingId === p.id ? `Closing ${p.fx_pair_symbol} position` : `Close ${p.fx_pair_symbol} position`}
          >
            {closingId === p.id ? 'Closing...' : 'Close'}
          </Button>
        ),
    });
  }
  return <DataTable columns={columns} rows={positions} rowKey={(p) => p.id} empty="No open positions" caption={caption} />;
}
