import type { PerformanceDto, ReplayDto } from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Badge, Button, type Column, DataTable, Num, type Tone } from '../../components';
import { Link } from '../accounts';
import { formatPercent, NO_FIGURE } from '../performance/format';
import { formatPnl } from '../trading/format';
import { deleteReplay, formatSessionTime, replayKeys, useReplay } from './api';

export const DELETE_FAILED = 'Failed to end the session';

const STATUS_TONE: Record<ReplayDto['status'], Tone> = { playing: 'accent', paused: 'neutral', finished: 'warning' };
const STATUS_TEXT: Record<ReplayDto['status'], string> = { playing: 'Playing', paused: 'Paused', finished: 'Finished' };

export function ReplayStatus({ status }: { status: ReplayDto['status'] }) {
  return <Badge tone={STATUS_TONE[status]}>{STATUS_TEXT[status]}</Badge>;
}

/** A session's pair page on its practice account (docs/screens.md#account-switcher). */
export function sessionPairPath(replay: Pick<ReplayDto, 'account_id' | 'symbols'>): string {
  return `/pair/${replay.symbols[0] ?? ''}?account=${replay.account_id}`;
}

/** The §13 figures of a session's account, the Performance page's format. */
export function statColumns<Row>(performanceOf: (row: Row) => PerformanceDto | undefined): Column<Row>[] {
  return [
    {
      key: 'net-pnl',
      header: 'Net P&L',
      numeric: true,
      cell: (row) => {
        const p = performanceOf(row);
        return p ? <Num signOf={p.net_pnl}>{formatPnl(p.net_pnl)}</Num> : NO_FIGURE;
      },
    },
    { key: 'trades', header: 'Trades', numeric: true, cell: (row) => performanceOf(row)?.closed_trades ?? NO_FIGURE },
    {
      key: 'win-rate',
      header: 'Win rate',
      numeric: true,
      cell: (row) => {
        const rate = performanceOf(row)?.win_rate;
        return rate === undefined || rate === null ? NO_FIGURE : formatPercent(rate);
      },
    },
  ];
}

/** The columns every list of sessions shows: pairs, start, clock and status. */
export function sessionColumns<Row>(replayOf: (row: Row) => ReplayDto): Column<Row>[] {
  return [
    { key: 'pairs', header: 'Pairs', cell: (row) => replayOf(row).symbols.join(', ') },
    { key: 'start', header: 'Start', cell: (row) => formatSessionTime(replayOf(row).start) },
    { key: 'clock', header: 'Clock', cell: (row) => formatSessionTime(replayOf(row).clock) },
    { key: 'status', header: 'Status', cell: (row) => <ReplayStatus status={replayOf(row).status} /> },
  ];
}

/** Each row asks for its own statistics (GET trading/replays/{id}/); the list call carries none. */
function usePerformanceOf(id: number): PerformanceDto | undefined {
  return useReplay(id).data?.performance;
}

function StatCell({ id, column }: { id: number; column: Column<PerformanceDto | undefined> }) {
  return column.cell(usePerformanceOf(id));
}

/** The trader's sessions, newest first, each opening its pair page and ended after a confirmation. */
export function ReplayList({ replays }: { replays: readonly ReplayDto[] }) {
  const stats = statColumns<PerformanceDto | undefined>((p) => p).map(
    (c): Column<ReplayDto> => ({ ...c, cell: (r) => <StatCell id={r.id} column={c} /> }),
  );
  const columns: Column<ReplayDto>[] = [
    ...sessionColumns<ReplayDto>((r) => r),
    ...stats,
    {
      key: 'actions',
      header: 'Actions',
      stickyEnd: true,
      cell: (r) => <SessionActions replay={r} />,
    },
  ];
  return <DataTable columns={columns} rows={replays} rowKey={(r) => r.id} empty="No session yet" caption="Sessions" />;
}

function SessionActions({ replay }: { replay: ReplayDto }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const end = useMutation({
    mutationFn: () => deleteReplay(replay.id),
    onSuccess: () => {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: replayKeys.all });
      void queryClient.invalidateQueries({ queryKey: ['trading', 'accounts'] });
    },
  });
  const name = `${replay.symbols.join(', ')} from ${formatSessionTime(replay.start)}`;
  if (!confirming)
    return (
      <div className="replay-actions">
        <Link to={sessionPairPath(replay)} aria-label={`Open ${name}`}>
          Open
        </Link>
        <Button size="sm" variant="danger" aria-label={`Delete ${name}`} onClick={() => setConfirming(true)}>
          Delete
        </Button>
      </div>
    );
  return (
    <div className="replay-actions" role="alertdialog" aria-label="Confirm delete">
      <span>Delete this session? Its account closes; its history stays.</span>
      {end.isError && <Alert tone="error">{errorMessage(end.error, DELETE_FAILED)}</Alert>}
      <Button size="sm" variant="danger" busy={end.isPending} onClick={() => end.mutate()}>
        Yes, delete
      </Button>
      <Button size="sm" variant="ghost" disabled={end.isPending} onClick={() => setConfirming(false)}>
        Cancel
      </Button>
    </div>
  );
}
