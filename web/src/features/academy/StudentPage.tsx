import { ORDERS_PAGE_SIZE, type PositionDto } from '@pipdesk/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { errorMessage } from '../../api';
import { Alert, Button, Card, type Column, DataTable, Num, Page, Pagination, Spinner } from '../../components';
import { Link } from '../accounts';
import { paginationText } from '../orders/filters';
import { OrderHistoryTable } from '../orders/OrderHistoryTable';
import { PairTable } from '../performance/PairTable';
import { StatCards } from '../performance/StatCards';
import '../performance/performance.css';
import {
  AccountInfoCard,
  digitsLookup,
  ErrorBox,
  formatLots,
  formatPnl,
  formatQuote,
  isListedPosition,
  reloadTradingData,
  SideBadge,
} from '../trading';
import '../trading/trading.css';
import { StudentDrawingsCard } from '../chart/drawings/StudentDrawingsCard';
import { StudentReplays } from '../replay/StudentReplays';
import { academyKeys, fetchStudent, fetchStudentOrders, fetchStudentPerformance, resetStudent } from './api';
import { StudentJournal } from './StudentJournal';
import './academy.css';

export const STUDENT_LOAD_FAILED = 'Failed to load the student';
export const RESET_FAILED = 'Failed to reset the account';
export const RESET_CONFIRM_TEXT =
  "Reset this account? Every open position closes at market, pending orders are cancelled, the balance goes back to the cohort's starting balance and a new period starts.";

/** Route `/academy/students/{id}`: one student's account, read-only, for their instructors and admins. */
export function StudentPage() {
  const studentId = Number(useParams().studentId);
  const student = useQuery({
    queryKey: academyKeys.student(studentId),
    queryFn: ({ signal }) => fetchStudent(studentId, signal),
  });
  const data = student.data;
  const digits = digitsLookup(data?.fx_pairs);
  const name = data?.trader_profile?.user.full_name ?? 'Student';

  return (
    <Page
      title={name}
      documentTitle={`${name} · Academy`}
      eyebrow={<Link to="/academy">Back to Academy</Link>}
      actions={data && <ResetButton studentId={studentId} />}
    >
      {student.isError && !data ? (
        <ErrorBox message={errorMessage(student.error, STUDENT_LOAD_FAILED)} onRetry={() => void student.refetch()} />
      ) : student.isPending ? (
        <div className="academy-loading" role="status">
          <Spinner /> <span>Loading student...</span>
        </div>
      ) : (
        <>
          {data?.trader_profile && <p className="cohort-summary">{data.trader_profile.user.email}</p>}
          {data?.trading_account ? (
            <AccountInfoCard account={data.trading_account} />
          ) : (
            <p className="academy-empty">No trading account</p>
          )}
          <Card title="Open Positions" aria-label="Open Positions" flush className="trading-table">
            <PositionsReadOnly positions={data?.open_positions.filter(isListedPosition) ?? []} digits={digits} />
          </Card>
          <StudentOrders studentId={studentId} digits={digits} />
          <StudentPerformance studentId={studentId} />
          <StudentReplays studentId={studentId} />
          <StudentJournal studentId={studentId} digits={digits} />
          <StudentDrawingsCard studentId={studentId} pairs={data?.fx_pairs ?? []} />
        </>
      )}
    </Page>
  );
}

function PositionsReadOnly({ positions, digits }: { positions: PositionDto[]; digits: (s: string) => number }) {
  const columns: Column<PositionDto>[] = [
    { key: 'pair', header: 'Pair', cell: (p) => p.fx_pair_symbol },
    { key: 'side', header: 'Side', cell: (p) => <SideBadge side={p.side} /> },
    { key: 'lots', header: 'Lots', numeric: true, cell: (p) => formatLots(p.quantity) },
    { key: 'entry', header: 'Entry', numeric: true, cell: (p) => formatQuote(p.average_entry_price, digits(p.fx_pair_symbol)) },
    { key: 'current', header: 'Current', numeric: true, cell: (p) => formatQuote(p.current_price, digits(p.fx_pair_symbol)) },
    { key: 'sl', header: 'Stop Loss', numeric: true, cell: (p) => formatQuote(p.stop_loss, digits(p.fx_pair_symbol)) },
    { key: 'tp', header: 'Take Profit', numeric: true, cell: (p) => formatQuote(p.take_profit, digits(p.fx_pair_symbol)) },
    { key: 'pnl', header: 'P&L', numeric: true, cell: (p) => <Num signOf={p.unrealized_pnl}>{formatPnl(p.unrealized_pnl)}</Num> },
  ];
  return <DataTable columns={columns} rows={positions} rowKey={(p) => p.id} empty="No open positions" caption="Open positions" />;
}

function StudentOrders({ studentId, digits }: { studentId: number; digits: (s: string) => number }) {
  const [page, setPage] = useState(1);
  const query = { page, page_size: ORDERS_PAGE_SIZE };
  const orders = useQuery({
    queryKey: academyKeys.studentPart(studentId, 'orders', query),
    queryFn: ({ signal }) => fetchStudentOrders(studentId, query, signal),
    placeholderData: keepPreviousData,
  });
  const count = orders.data?.count ?? 0;
  return (
    <Card title="Orders" aria-label="Orders" flush className="trading-table">
      {orders.isError && !orders.data ? (
        <ErrorBox message={errorMessage(orders.error, 'Failed to load orders')} onRetry={() => void orders.refetch()} />
      ) : !orders.data ? (
        <Spinner />
      ) : (
        <>
          <OrderHistoryTable orders={orders.data.results} digits={digits} empty="No orders found" caption="Orders" />
          {count > 0 && (
            <Pagination
              label="Orders pages"
              page={page}
              totalPages={Math.max(1, Math.ceil(count / ORDERS_PAGE_SIZE))}
              texts={paginationText(page, count)}
              busy={orders.isPlaceholderData}
              onPage={setPage}
            />
          )}
        </>
      )}
    </Card>
  );
}

function StudentPerformance({ studentId }: { studentId: number }) {
  const performance = useQuery({
    queryKey: academyKeys.studentPart(studentId, 'performance'),
    queryFn: ({ signal }) => fetchStudentPerformance(studentId, signal),
  });
  const data = performance.data;
  return (
    <Card title="Performance" aria-label="Performance">
      {performance.isError && !data ? (
        <ErrorBox
          message={errorMessage(performance.error, 'Failed to load performance')}
          onRetry={() => void performance.refetch()}
        />
      ) : !data ? (
        <Spinner />
      ) : data.closed_trades === 0 ? (
        <p className="perf-empty">No closed trades yet in this period.</p>
      ) : (
        <>
          <StatCards performance={data} />
          {data.by_pair.length > 0 && <PairTable pairs={data.by_pair} />}
        </>
      )}
    </Card>
  );
}

/** Reset, after a confirmation that says what it does; the page then shows the restored account. */
export function ResetButton({ studentId, label = 'Reset account' }: { studentId: number; label?: string }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const reset = useMutation({
    mutationFn: () => resetStudent(studentId),
    onSuccess: () => {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: academyKeys.all });
      // A student resetting their own account: their dashboard and statistics start again too.
      void reloadTradingData(queryClient);
    },
  });
  if (!confirming)
    return (
      <>
        {reset.isSuccess && <span role="status">Account reset</span>}
        <Button
          variant="danger"
          onClick={() => {
            reset.reset();
            setConfirming(true);
          }}
        >
          {label}
        </Button>
      </>
    );
  return (
    <div className="reset-confirm" role="alertdialog" aria-label="Confirm reset" aria-describedby={`reset-text-${studentId}`}>
      <p id={`reset-text-${studentId}`}>{RESET_CONFIRM_TEXT}</p>
      {reset.isError && <Alert tone="error">{errorMessage(reset.error, RESET_FAILED)}</Alert>}
      <div className="reset-confirm__actions">
        <Button variant="danger" busy={reset.isPending} onClick={() => reset.mutate()}>
          {reset.isPending ? 'Resetting...' : 'Yes, reset'}
        </Button>
        <Button variant="ghost" disabled={reset.isPending} onClick={() => setConfirming(false)}>
          Cancel
        </Button>
      </div>
    </div>
  );
}
