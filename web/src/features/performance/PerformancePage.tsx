import { errorMessage } from '../../api';
import { buttonClass, Card, formatDate, Page, Spinner } from '../../components';
import { Link } from '../accounts';
import { ErrorBox } from '../trading';
import { formatUsd } from '../trading/format';
import '../trading/trading.css';
import { usePerformance } from './api';
import { EquityCurveCard } from './EquityCurveCard';
import { JournalCard } from './JournalCard';
import { PairTable } from './PairTable';
import { StatCards } from './StatCards';
import './performance.css';

/** docs/screens.md#performance: the statistics' load failure. */
export const PERFORMANCE_LOAD_FAILED = 'Failed to load performance';
/** docs/screens.md#performance: what a trader with no closed trade sees instead of the statistics. */
export const NO_CLOSED_TRADES_TEXT = 'No closed trades yet: your statistics appear after your first closed trade';

/**
 * Route `/performance` (docs/screens.md#performance): what the trader learns from their own
 * trades in the current period: the statistics, the equity curve, each pair, and the journal.
 */
export function PerformancePage() {
  const performance = usePerformance();
  const data = performance.data;

  return (
    <Page title="Performance">
      {data && (
        <p className="perf-period">
          Since <time dateTime={data.period_start}>{formatDate(data.period_start)}</time>, from a starting balance of{' '}
          {formatUsd(data.start_balance)}
        </p>
      )}
      {performance.isError && (
        <ErrorBox
          message={errorMessage(performance.error, PERFORMANCE_LOAD_FAILED)}
          onRetry={() => void performance.refetch()}
          retrying={performance.isFetching}
        />
      )}
      {performance.isPending && (
        <div className="perf-loading" role="status">
          <Spinner /> <span>Loading performance...</span>
        </div>
      )}
      {data &&
        (data.closed_trades === 0 ? (
          <Card className="perf-empty-state" aria-label="Statistics">
            <p className="perf-empty-state__title">{NO_CLOSED_TRADES_TEXT}</p>
            <p className="perf-empty-state__hint">
              A trade closes when an order reduces, closes or reverses a position. Each one then counts here, and waits in your
              journal for a note, tags and a rating.
            </p>
            <Link to="/" className={buttonClass('primary', 'sm')}>
              Go to the Dashboard
            </Link>
          </Card>
        ) : (
          <StatCards performance={data} />
        ))}
      <EquityCurveCard />
      {data && data.by_pair.length > 0 && (
        <Card title="By Pair" aria-label="By Pair" flush className="trading-table">
          <PairTable pairs={data.by_pair} />
        </Card>
      )}
      <JournalCard symbols={data?.by_pair.map((p) => p.symbol) ?? []} />
    </Page>
  );
}
