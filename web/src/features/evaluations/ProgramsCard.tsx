import type { MeterDto, ProgramDto } from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Badge, Button, Card, Num, Spinner } from '../../components';
import { accountsKey, Link } from '../accounts';
import { ErrorBox, formatLeverage, formatUsd } from '../trading';
import { FAILURE_RULE_LABELS } from './objectives';
import { ProgramForm } from './ProgramForm';
import { programKeys, selfStart, startAttempts, useAttemptBoard, usePrograms } from './programsApi';
import './objectives.css';

// The cohort page's Programs (docs/screens.md#programs): an instructor creates a program and starts
// attempts, and watches the live board of attempts; a member starts an attempt of a program that
// allows it.

const STATUS_TONES = { active: 'accent', passed: 'profit', failed: 'loss' } as const;

/** The live board of one program's attempts (docs/screens.md#programs). */
export function AttemptBoard({ meters }: { meters: readonly MeterDto[] }) {
  if (meters.length === 0) return <p className="academy-empty">No attempt yet.</p>;
  return (
    <table className="objectives__table" aria-label="Attempts">
      <thead>
        <tr>
          <th scope="col">Student</th>
          <th scope="col">Phase</th>
          <th scope="col">Status</th>
          <th scope="col">Equity</th>
          <th scope="col">Daily loss left</th>
          <th scope="col">Max loss left</th>
          <th scope="col">Target</th>
        </tr>
      </thead>
      <tbody>
        {meters.map((m) => (
          <tr key={m.attempt.id}>
            <th scope="row">{m.attempt.user.full_name || m.attempt.user.email}</th>
            <td>{`${m.phase.index + 1}: ${m.phase.name}`}</td>
            <td>
              <Badge tone={STATUS_TONES[m.status]}>
                {m.status === 'active' ? 'Active' : m.status === 'passed' ? 'Passed' : 'Failed'}
              </Badge>
              {m.failure && ` ${FAILURE_RULE_LABELS[m.failure.rule]}`}
            </td>
            <td>
              <Num>{formatUsd(m.equity)}</Num>
            </td>
            <td>
              <Num>{m.daily_loss_left === null ? '—' : formatUsd(m.daily_loss_left)}</Num>
            </td>
            <td>
              <Num>{formatUsd(m.max_loss_left)}</Num>
            </td>
            <td>
              <Num>{`${m.profit_progress_pct.toFixed(0)}%`}</Num>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function phasesText(p: ProgramDto): string {
  return p.phases
    .map(
      (ph) =>
        `${ph.name}: +${ph.profit_target_pct}%${ph.max_daily_loss_pct === null ? '' : `, daily −${ph.max_daily_loss_pct}%`}, max −${ph.max_loss_pct}%`,
    )
    .join(' · ');
}

/** One program: its terms, and for a teacher its start button and live board; for a member, self-start. */
function ProgramRow({ program, canTeach }: { program: ProgramDto; canTeach: boolean }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const board = useAttemptBoard(program.id, canTeach && open);
  const start = useMutation({
    mutationFn: () => startAttempts(program.id, { all_members: true }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: programKeys.attempts(program.id) }),
  });
  // The new account must be in the accounts list before its dashboard opens (the selection checks it).
  const mine = useMutation({
    mutationFn: () => selfStart(program.id),
    onSuccess: () => queryClient.refetchQueries({ queryKey: accountsKey }),
  });
  const active = program.status === 'active';
  return (
    <li className="program">
      <div className="program__head">
        <strong>{program.name}</strong> {!active && <Badge>Archived</Badge>}
        <span className="program__terms">
          {` ${formatUsd(program.initial_balance)} at ${formatLeverage(program.leverage)} · ${phasesText(program)}`}
        </span>
      </div>
      {canTeach ? (
        <div className="cohort-form__actions">
          {active && (
            <Button size="sm" variant="primary" busy={start.isPending} onClick={() => start.mutate()}>
              Start for all members
            </Button>
          )}
          <Button size="sm" variant="secondary" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
            {open ? 'Hide attempts' : 'Show attempts'}
          </Button>
        </div>
      ) : (
        active &&
        program.allow_self_start && (
          <div className="cohort-form__actions">
            <Button size="sm" variant="primary" busy={mine.isPending} onClick={() => mine.mutate()}>
              Start my attempt
            </Button>
          </div>
        )
      )}
      {start.data && (
        <Alert tone={start.data.errors.length ? 'warning' : 'success'}>
          {`Started ${start.data.started.length}`}
          {start.data.errors.length > 0 &&
            `; not started for ${start.data.errors.length} (${[...new Set(start.data.errors.map((x) => x.error))].join(', ')})`}
        </Alert>
      )}
      {start.isError && <Alert tone="error">{errorMessage(start.error, 'Failed to start the attempts')}</Alert>}
      {mine.data && (
        <Alert tone="success">
          {'Your attempt has started on its own account: '}
          <Link to={`/?account=${mine.data.account_id}`}>open its dashboard</Link>.
        </Alert>
      )}
      {mine.isError && <Alert tone="error">{errorMessage(mine.error, 'Failed to start your attempt')}</Alert>}
      {canTeach &&
        open &&
        (board.data ? (
          <AttemptBoard meters={board.data} />
        ) : board.isError ? (
          <ErrorBox message={errorMessage(board.error, 'Failed to load the attempts')} onRetry={() => void board.refetch()} />
        ) : (
          <Spinner />
        ))}
    </li>
  );
}

/** The cohort's evaluation programs (docs/screens.md#programs). */
export function ProgramsCard({ cohortId, canTeach }: { cohortId: number; canTeach: boolean }) {
  const programs = usePrograms(cohortId);
  const [creating, setCreating] = useState(false);
  return (
    <Card
      title="Programs"
      aria-label="Programs"
      actions={
        canTeach &&
        !creating && (
          <Button size="sm" variant="secondary" onClick={() => setCreating(true)}>
            New program
          </Button>
        )
      }
    >
      {creating && <ProgramForm cohortId={cohortId} onDone={() => setCreating(false)} />}
      {programs.isPending ? (
        <Spinner />
      ) : programs.isError ? (
        <ErrorBox message={errorMessage(programs.error, 'Failed to load the programs')} onRetry={() => void programs.refetch()} />
      ) : programs.data.length === 0 ? (
        <p className="academy-empty">No program yet.</p>
      ) : (
        <ul className="programs">
          {programs.data.map((p) => (
            <ProgramRow key={p.id} program={p} canTeach={canTeach} />
          ))}
        </ul>
      )}
    </Card>
  );
}
