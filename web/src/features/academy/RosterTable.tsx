import type { RosterRowDto } from '@pipdesk/contract';
import { useState } from 'react';
import { Badge, formatDateTime, Num, Table } from '../../components';
import { Link } from '../accounts';
import { formatPercent, formatSignedPercent, NO_FIGURE } from '../performance/format';
import { formatPnl, formatUsd } from '../trading/format';
import { DEFAULT_ROSTER_SORT, FLAG_BADGES, nextSort, type RosterSort, type RosterSortKey, sortRoster } from './roster';

interface RosterColumn {
  key: string;
  header: string;
  sortKey?: RosterSortKey;
  numeric?: boolean;
  cell: (row: RosterRowDto) => React.ReactNode;
}

const pct = (v: number | null, format: (v: number) => string) => (v === null ? NO_FIGURE : format(v));

const COLUMNS: RosterColumn[] = [
  {
    key: 'student',
    header: 'Student',
    sortKey: 'name',
    cell: (r) => (
      <span className="roster__student">
        <Link to={`/academy/students/${r.user.id}`}>{r.user.full_name}</Link>
        <span className="roster__email">{r.user.email}</span>
      </span>
    ),
  },
  {
    key: 'equity',
    header: 'Equity',
    sortKey: 'equity',
    numeric: true,
    cell: (r) => (r.account ? formatUsd(r.account.equity) : NO_FIGURE),
  },
  { key: 'balance', header: 'Balance', numeric: true, cell: (r) => (r.account ? formatUsd(r.account.balance) : NO_FIGURE) },
  {
    key: 'margin-level',
    header: 'Margin Level',
    numeric: true,
    cell: (r) => (r.account?.margin_level == null ? NO_FIGURE : formatPercent(r.account.margin_level)),
  },
  {
    key: 'positions',
    header: 'Open / Pending',
    sortKey: 'open_positions',
    numeric: true,
    cell: (r) => `${r.open_positions} / ${r.pending_orders}`,
  },
  {
    key: 'today',
    header: "Today's P&L",
    sortKey: 'today_pnl',
    numeric: true,
    cell: (r) => <Num signOf={r.today_pnl}>{formatPnl(r.today_pnl)}</Num>,
  },
  {
    key: 'return',
    header: 'Return',
    sortKey: 'return_pct',
    numeric: true,
    cell: (r) => <Num signOf={r.return_pct ?? undefined}>{pct(r.return_pct, formatSignedPercent)}</Num>,
  },
  {
    key: 'drawdown',
    header: 'Max Drawdown',
    sortKey: 'max_drawdown_pct',
    numeric: true,
    cell: (r) => formatPercent(r.max_drawdown_pct),
  },
  { key: 'trades', header: 'Closed Trades', sortKey: 'closed_trades', numeric: true, cell: (r) => r.closed_trades },
  { key: 'win-rate', header: 'Win Rate', sortKey: 'win_rate', numeric: true, cell: (r) => pct(r.win_rate, formatPercent) },
  {
    key: 'last-trade',
    header: 'Last Trade',
    sortKey: 'last_trade_at',
    cell: (r) => (r.last_trade_at ? <time dateTime={r.last_trade_at}>{formatDateTime(r.last_trade_at)}</time> : NO_FIGURE),
  },
  {
    // The student's evaluation in one of the cohort's programs (docs/screens.md#academy).
    key: 'evaluation',
    header: 'Evaluation',
    cell: (r) =>
      r.attempt ? (
        <span>
          {`${r.attempt.program_name} · Phase ${r.attempt.phase_index + 1} `}
          <Badge tone={r.attempt.status === 'passed' ? 'profit' : r.attempt.status === 'failed' ? 'loss' : 'accent'}>
            {r.attempt.status === 'active' ? 'Active' : r.attempt.status === 'passed' ? 'Passed' : 'Failed'}
          </Badge>
        </span>
      ) : (
        NO_FIGURE
      ),
  },
  {
    key: 'flags',
    header: 'Flags',
    sortKey: 'flags',
    cell: (r) =>
      r.flags.length === 0 ? null : (
        <span className="roster__flags">
          {r.flags.map((f) => (
            <Badge key={f} tone={FLAG_BADGES[f].tone} title={FLAG_BADGES[f].title}>
              {FLAG_BADGES[f].label}
            </Badge>
          ))}
        </span>
      ),
  },
];

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

/**
 * The live roster (docs/screens.md#academy): one row per student, sortable by each figure (the
 * column's button; again flips the order), flags as badges, the name opening the student.
 */
export function RosterTable({ rows }: { rows: readonly RosterRowDto[] }) {
  const [sort, setSort] = useState<RosterSort>(DEFAULT_ROSTER_SORT);
  const sorted = sortRoster(rows, sort);
  return (
    <Table label="Roster" className="roster">
      <caption className="sr-only">Roster</caption>
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th
              key={c.key}
              scope="col"
              className={c.numeric ? 'num' : undefined}
              aria-sort={c.sortKey && c.sortKey === sort.key ? ARIA_SORT[sort.direction] : undefined}
            >
              {c.sortKey ? (
                <button type="button" className="roster__sort" onClick={() => setSort((s) => nextSort(s, c.sortKey!))}>
                  {c.header}
                  <span aria-hidden="true">{c.sortKey === sort.key ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                </button>
              ) : (
                c.header
              )}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {sorted.length === 0 ? (
          <tr>
            <td colSpan={COLUMNS.length} className="table__empty">
              No students in this cohort yet
            </td>
          </tr>
        ) : (
          sorted.map((row) => (
            <tr key={row.user.id} data-testid={`roster-row-${row.user.id}`}>
              {COLUMNS.map((c) => (
                <td key={c.key} className={c.numeric ? 'num' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </Table>
  );
}
