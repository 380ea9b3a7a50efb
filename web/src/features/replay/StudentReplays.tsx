import type { ReplayDetailDto } from '@pipdesk/contract';
import { errorMessage } from '../../api';
import { Card, type Column, DataTable, Spinner } from '../../components';
import { ErrorBox } from '../trading';
import { useStudentReplays } from './api';
import { sessionColumns, statColumns } from './ReplayList';
import './replay.css';

export const STUDENT_REPLAYS_FAILED = 'Failed to load the sessions';

/** A student's replay sessions with their statistics, read-only (docs/screens.md#replay), on the academy's student page. */
export function StudentReplays({ studentId }: { studentId: number }) {
  const replays = useStudentReplays(studentId);
  const columns: Column<ReplayDetailDto>[] = [
    ...sessionColumns<ReplayDetailDto>((d) => d.replay),
    ...statColumns<ReplayDetailDto>((d) => d.performance),
  ];
  return (
    <Card title="Replay sessions" aria-label="Replay sessions" flush className="trading-table">
      {replays.isError && !replays.data ? (
        <ErrorBox message={errorMessage(replays.error, STUDENT_REPLAYS_FAILED)} onRetry={() => void replays.refetch()} />
      ) : !replays.data ? (
        <Spinner />
      ) : (
        <DataTable
          columns={columns}
          rows={replays.data}
          rowKey={(d) => d.replay.id}
          empty="No session yet"
          caption="Replay sessions"
        />
      )}
    </Card>
  );
}
