import { errorMessage } from '../../api';
import { Badge, Card, formatDate, Page, Spinner } from '../../components';
import { Link } from '../accounts';
import { ErrorBox, formatLeverage, formatUsd } from '../trading';
import '../trading/trading.css';
import { useAcademyMe, useCohorts } from './api';
import { CohortForm } from './CohortForm';
import './academy.css';

export const COHORTS_LOAD_FAILED = 'Failed to load cohorts';
export const NO_COHORTS_TEXT = 'No cohorts yet';

/** Route `/academy`: the cohorts the instructor teaches (an admin: every cohort, and a form for a new one). */
export function AcademyPage() {
  const me = useAcademyMe();
  const isAdmin = typeof me.data === 'object' && me.data.role === 'admin';
  const cohorts = useCohorts();
  return (
    <Page title="Academy">
      {cohorts.isError && !cohorts.data ? (
        <ErrorBox message={errorMessage(cohorts.error, COHORTS_LOAD_FAILED)} onRetry={() => void cohorts.refetch()} />
      ) : cohorts.isPending ? (
        <div className="academy-loading" role="status">
          <Spinner /> <span>Loading cohorts...</span>
        </div>
      ) : cohorts.data.length === 0 ? (
        <p className="academy-empty">{NO_COHORTS_TEXT}</p>
      ) : (
        <ul className="cohort-list" aria-label="Cohorts">
          {cohorts.data.map((c) => (
            <li key={c.id} className="cohort-list__item">
              <Link to={`/academy/cohorts/${c.id}`} className="cohort-list__name">
                {c.name}
              </Link>
              {c.status === 'archived' && <Badge>Archived</Badge>}
              <span className="cohort-list__meta">
                {c.member_count} {c.member_count === 1 ? 'student' : 'students'} · {formatUsd(c.starting_balance)} at{' '}
                {formatLeverage(c.leverage)}
                {c.starts_at && ` · from ${formatDate(c.starts_at)}`}
                {c.ends_at && ` to ${formatDate(c.ends_at)}`}
              </span>
              {c.instructors.length > 0 && (
                <span className="cohort-list__meta">Instructors: {c.instructors.map((i) => i.full_name).join(', ')}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {isAdmin && (
        <Card title="New cohort" aria-label="New cohort">
          <CohortForm />
        </Card>
      )}
    </Page>
  );
}
