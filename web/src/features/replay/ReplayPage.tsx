import { errorMessage } from '../../api';
import { Card, Page, Spinner } from '../../components';
import { ErrorBox } from '../trading';
import { useReplays } from './api';
import { ReplayForm } from './ReplayForm';
import { ReplayList } from './ReplayList';
import '../trading/trading.css';
import './replay.css';

export const LIST_FAILED = 'Failed to load your sessions';

/** Route `/replay` (docs/screens.md#replay): start a session on real past prices, and the trader's sessions. */
export function ReplayPage() {
  const replays = useReplays();
  return (
    <Page title="Replay">
      <ReplayForm />
      <Card title="Your sessions" aria-label="Your sessions" flush className="trading-table">
        {replays.isError && !replays.data ? (
          <ErrorBox message={errorMessage(replays.error, LIST_FAILED)} onRetry={() => void replays.refetch()} />
        ) : !replays.data ? (
          <Spinner />
        ) : (
          <ReplayList replays={replays.data} />
        )}
      </Card>
    </Page>
  );
}
