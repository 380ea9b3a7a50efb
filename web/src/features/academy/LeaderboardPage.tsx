import { errorMessage } from '../../api';
import { Card, Page, Spinner } from '../../components';
import { ErrorBox } from '../trading';
import '../trading/trading.css';
import { useAcademyMe, useCohorts, useLeaderboard } from './api';
import { LeaderboardTable } from './LeaderboardTable';
import { ResetButton } from './StudentPage';
import './academy.css';
import { ProgramsCard } from '../evaluations/ProgramsCard';

export const LEADERBOARD_LOAD_FAILED = 'Failed to load the leaderboard';
export const NO_COHORT_TEXT = 'You are not in a cohort: the leaderboard ranks the traders of your cohort.';

/** Route `/leaderboard`: the trader's own cohort ranked by return (docs/screens.md#academy). */
export function LeaderboardPage() {
  const me = useAcademyMe();
  const meData = typeof me.data === 'object' ? me.data : undefined;
  const cohortId = meData?.cohort_id ?? null;
  const board = useLeaderboard(cohortId);
  // A trader's cohorts/ answer is their own cohort: it says whether they may reset themselves.
  const cohorts = useCohorts(meData?.role === 'trader' && cohortId !== null);
  const selfReset = cohorts.data?.find((c) => c.id === cohortId)?.allow_self_reset === true;
  return (
    <Page title="Leaderboard" actions={selfReset && meData && <ResetButton studentId={meData.id} label="Reset my account" />}>
      {me.isPending ? (
        <div className="academy-loading" role="status">
          <Spinner /> <span>Loading leaderboard...</span>
        </div>
      ) : cohortId === null ? (
        <p className="academy-empty">{NO_COHORT_TEXT}</p>
      ) : board.isError && !board.data ? (
        <ErrorBox message={errorMessage(board.error, LEADERBOARD_LOAD_FAILED)} onRetry={() => void board.refetch()} />
      ) : board.isPending ? (
        <div className="academy-loading" role="status">
          <Spinner /> <span>Loading leaderboard...</span>
        </div>
      ) : (
        <Card title="Ranked by return" aria-label="Leaderboard" flush className="trading-table">
          <LeaderboardTable rows={board.data} highlightUserId={meData?.id} />
        </Card>
      )}
      {/* A member starts an attempt of a program that allows it (docs/screens.md#programs). */}
      {cohortId !== null && meData?.role === 'trader' && <ProgramsCard cohortId={cohortId} canTeach={false} />}
    </Page>
  );
}
