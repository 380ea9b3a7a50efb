import type { LeaderboardRowDto } from '@pipdesk/contract';
import { type Column, DataTable, Num } from '../../components';
import { formatPercent, formatRatio, formatSignedPercent, NO_FIGURE } from '../performance/format';
import { formatUsd } from '../trading/format';

const maybe = (v: number | null, format: (v: number) => string) => (v === null ? NO_FIGURE : format(v));

/** The leaderboard as the server ranks it (return %, then lower drawdown, then earlier start); the rank is the server's. */
export function LeaderboardTable({ rows, highlightUserId }: { rows: readonly LeaderboardRowDto[]; highlightUserId?: number }) {
  const columns: Column<LeaderboardRowDto>[] = [
    { key: 'rank', header: 'Rank', numeric: true, cell: (r) => <span data-testid={`rank-${r.user.id}`}>{r.rank}</span> },
    {
      key: 'trader',
      header: 'Trader',
      cell: (r) => (r.user.id === highlightUserId ? <strong>{r.user.display_name} (you)</strong> : r.user.display_name),
    },
    {
      key: 'return',
      header: 'Return',
      numeric: true,
      cell: (r) => <Num signOf={r.return_pct ?? undefined}>{maybe(r.return_pct, formatSignedPercent)}</Num>,
    },
    { key: 'equity', header: 'Equity', numeric: true, cell: (r) => formatUsd(r.equity) },
    { key: 'drawdown', header: 'Max Drawdown', numeric: true, cell: (r) => formatPercent(r.max_drawdown_pct) },
    { key: 'trades', header: 'Closed Trades', numeric: true, cell: (r) => r.closed_trades },
    { key: 'win-rate', header: 'Win Rate', numeric: true, cell: (r) => maybe(r.win_rate, formatPercent) },
    { key: 'profit-factor', header: 'Profit Factor', numeric: true, cell: (r) => maybe(r.profit_factor, formatRatio) },
  ];
  return (
    <DataTable columns={columns} rows={rows} rowKey={(r) => r.user.id} empty="No traders ranked yet" caption="Leaderboard" />
  );
}
