import type { PairPerformanceDto } from '@pipdesk/contract';
import { type Column, DataTable, Num } from '../../components';
import { formatPnl } from '../trading/format';
import { formatPercent, NO_FIGURE } from './format';

const COLUMNS: Column<PairPerformanceDto>[] = [
  { key: 'pair', header: 'Pair', cell: (p) => p.symbol },
  { key: 'trades', header: 'Closed Trades', numeric: true, cell: (p) => p.trades },
  { key: 'pnl', header: 'Net P&L', numeric: true, cell: (p) => <Num signOf={p.net_pnl}>{formatPnl(p.net_pnl)}</Num> },
  {
    key: 'win-rate',
    header: 'Win Rate',
    numeric: true,
    // Only breakevens on the pair: no win rate (docs/performance.md#definitions).
    cell: (p) => (p.win_rate === null ? <span title="Only breakeven trades">{NO_FIGURE}</span> : formatPercent(p.win_rate)),
  },
];

/** The per-pair table: each pair the trader closed a trade on. */
export function PairTable({ pairs }: { pairs: readonly PairPerformanceDto[] }) {
  return <DataTable columns={COLUMNS} rows={pairs} rowKey={(p) => p.symbol} caption="Performance by pair" empty="No pairs yet" />;
}
