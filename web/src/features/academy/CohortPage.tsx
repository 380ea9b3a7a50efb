import type { CohortDto } from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useParams } from 'react-router';
import { errorMessage } from '../../api';
import { Alert, Badge, Button, Card, Field, formatDate, Input, Page, Spinner } from '../../components';
import { Link } from '../accounts';
import { ErrorBox, formatLeverage, formatUsd } from '../trading';
import '../trading/trading.css';
import { ProgramsCard } from '../evaluations/ProgramsCard';
import { academyKeys, changeInstructor, useAcademyMe, useCohorts, useLeaderboard, useRoster } from './api';
import { CohortForm } from './CohortForm';
import { ImportStudents } from './ImportStudents';
import { LeaderboardTable } from './LeaderboardTable';
import { RosterTable } from './RosterTable';
import './academy.css';

export const ROSTER_LOAD_FAILED = 'Failed to load the roster';
export const COHORT_NOT_FOUND_TEXT = 'Cohort not found';

/** Route `/academy/cohorts/{id}`: the live roster, the leaderboard, the import; for an admin the cohort's settings and instructors. */
export function CohortPage() {
  const cohortId = Number(useParams().cohortId);
  const me = useAcademyMe();
  const isAdmin = typeof me.data === 'object' && me.data.role === 'admin';
  const cohorts = useCohorts();
  const cohort = cohorts.data?.find((c) => c.id === cohortId);
  const roster = useRoster(cohortId, cohort !== undefined);
  const board = useLeaderboard(cohort ? cohortId : null);
  const [editing, setEditing] = useState(false);

  if (cohorts.isPending)
    return (
      <Page title="Cohort">
        <div className="academy-loading" role="status">
          <Spinner /> <span>Loading cohort...</span>
        </div>
      </Page>
    );
  if (!cohort)
    return (
      <Page title={COHORT_NOT_FOUND_TEXT} eyebrow={<Link to="/academy">Back to Academy</Link>}>
        {cohorts.isError && (
          <ErrorBox message={errorMessage(cohorts.error, 'Failed to load cohorts')} onRetry={() => void cohorts.refetch()} />
        )}
      </Page>
    );

  return (
    <Page
      title={cohort.name}
      eyebrow={<Link to="/academy">Back to Academy</Link>}
      actions={
        <>
          {cohort.status === 'archived' && <Badge>Archived</Badge>}
          {isAdmin && !editing && (
            <Button variant="secondary" onClick={() => setEditing(true)}>
              Edit cohort
            </Button>
          )}
        </>
      }
    >
      <p className="cohort-summary">
        {cohort.description && <span>{cohort.description} · </span>}
        {formatUsd(cohort.starting_balance)} at {formatLeverage(cohort.leverage)}
        {cohort.starts_at && ` · from ${formatDate(cohort.starts_at)}`}
        {cohort.ends_at && ` to ${formatDate(cohort.ends_at)}`}
        {cohort.allow_self_reset && ' · students may reset their own account'}
      </p>
      {editing && (
        <Card title="Edit cohort" aria-label="Edit cohort">
          <CohortForm cohort={cohort} onSaved={() => setEditing(false)} onCancel={() => setEditing(false)} />
        </Card>
      )}

      <Card
        title="Roster"
        aria-label="Roster"
        flush
        className="trading-table"
        actions={
          roster.dataUpdatedAt > 0 && (
            <span className="academy-updated">Live · updated {new Date(roster.dataUpdatedAt).toLocaleTimeString('en-US')}</span>
          )
        }
      >
        {roster.isError && !roster.data ? (
          <ErrorBox message={errorMessage(roster.error, ROSTER_LOAD_FAILED)} onRetry={() => void roster.refetch()} />
        ) : roster.isPending ? (
          <div className="academy-loading" role="status">
            <Spinner /> <span>Loading roster...</span>
          </div>
        ) : (
          <RosterTable rows={roster.data} />
        )}
      </Card>

      <Card title="Leaderboard" aria-label="Leaderboard" flush className="trading-table">
        {board.data ? (
          <LeaderboardTable rows={board.data} />
        ) : board.isError ? (
          <ErrorBox message={errorMessage(board.error, 'Failed to load the leaderboard')} onRetry={() => void board.refetch()} />
        ) : (
          <Spinner />
        )}
      </Card>

      <ProgramsCard cohortId={cohort.id} canTeach />

      <Card title="Import students" aria-label="Import students">
        <ImportStudents cohortId={cohort.id} />
      </Card>

      {isAdmin && <InstructorsCard cohort={cohort} />}
    </Page>
  );
}

/** The cohort's instructors; an admin adds one by e-mail and removes any. */
function InstructorsCard({ cohort }: { cohort: CohortDto }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const change = useMutation({
    mutationFn: ({ address, method }: { address: string; method: 'POST' | 'DELETE' }) =>
      changeInstructor(cohort.id, address, method),
    onSuccess: (_answer, { method }) => {
      if (method === 'POST') setEmail('');
      void queryClient.invalidateQueries({ queryKey: academyKeys.cohorts });
    },
  });
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (email.trim()) change.mutate({ address: email.trim(), method: 'POST' });
  };
  return (
    <Card title="Instructors" aria-label="Instructors">
      {cohort.instructors.length === 0 ? (
        <p className="academy-empty">No instructors yet</p>
      ) : (
        <ul className="instructor-list">
          {cohort.instructors.map((i) => (
            <li key={i.id}>{i.full_name}</li>
          ))}
        </ul>
      )}
      <form className="instructor-form" onSubmit={add} aria-label="Instructor by e-mail">
        <Field label="Instructor e-mail" hint="Add: the user becomes an instructor of this cohort. Remove: they no longer are.">
          <Input type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Button type="submit" variant="primary" busy={change.isPending && change.variables?.method === 'POST'}>
          Add instructor
        </Button>
        <Button
          variant="danger"
          disabled={email.trim() === ''}
          busy={change.isPending && change.variables?.method === 'DELETE'}
          onClick={() => change.mutate({ address: email.trim(), method: 'DELETE' })}
        >
          Remove instructor
        </Button>
      </form>
      {change.isError && <Alert tone="error">{errorMessage(change.error, 'Failed to change the instructors')}</Alert>}
    </Card>
  );
}
