import type { MeterDto } from '@pipdesk/contract';
import { useEffect, useState } from 'react';
import { Alert, Badge, Card, formatDateTime, Num, Spinner, type Tone } from '../../components';
import { formatUsd } from '../trading/format';
import { usePlatformData } from '../trading/queries';
import { useChallengeMeter } from './api';
import { countdown, FAILURE_RULE_LABELS, type ObjectiveRow, objectiveRows } from './objectives';
import './objectives.css';

const STATE_TONES: Record<ObjectiveRow['state'], Tone> = { ok: 'neutral', warn: 'warning', done: 'profit', broken: 'loss' };
const STATE_WORDS: Record<ObjectiveRow['state'], string> = {
  ok: 'On track',
  warn: 'Close to the limit',
  done: 'Met',
  broken: 'Breached',
};

/** Re-renders every second while mounted: the countdowns tick. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * The Objectives panel of a challenge account's dashboard (docs/screens.md#objectives-panel): every
 * rule of the phase with its limit, where the account stands and the room left (the equity live,
 * from the account's figures), a countdown to the day's end and to the phase's; the failure's
 * snapshot once failed, the result once passed.
 */
export function ObjectivesPanel() {
  const meter = useChallengeMeter();
  const platform = usePlatformData();
  const now = useNow();
  if (meter.isPending)
    return (
      <Card title="Objectives" aria-label="Objectives">
        <div role="status">
          <Spinner /> <span>Loading objectives...</span>
        </div>
      </Card>
    );
  if (meter.isError || !meter.data) return <Alert tone="error">Failed to load the objectives of this evaluation.</Alert>;
  return <Objectives meter={meter.data} liveEquity={platform.data?.trading_account?.equity} now={now} />;
}

/** The panel for one meter; apart from the queries so tests and the instructor's board can show it. */
export function Objectives({ meter, liveEquity, now }: { meter: MeterDto; liveEquity: number | undefined; now: number }) {
  const active = meter.status === 'active';
  const rows = objectiveRows(meter, active ? liveEquity : undefined, formatUsd);
  return (
    <Card
      title={`Objectives: ${meter.phase.name}`}
      aria-label="Objectives"
      className="objectives"
      actions={
        <Badge tone={meter.status === 'passed' ? 'profit' : meter.status === 'failed' ? 'loss' : 'accent'}>
          {meter.status === 'active' ? `Phase ${meter.phase.index + 1}` : meter.status === 'passed' ? 'Passed' : 'Failed'}
        </Badge>
      }
    >
      {meter.failure && (
        <Alert tone="error" title={`Failed: ${FAILURE_RULE_LABELS[meter.failure.rule]}`}>
          {`On ${formatDateTime(meter.failure.at)} the equity was ${formatUsd(meter.failure.equity)}`}
          {meter.failure.floor === null
            ? ' when the time ran out'
            : `, at or below the floor of ${formatUsd(meter.failure.floor)}`}
          {`; balance ${formatUsd(meter.failure.balance)}. This account is now read-only.`}
        </Alert>
      )}
      {meter.status === 'passed' && (
        <Alert tone="success" title="Evaluation passed">
          {`Every objective was met; final balance ${formatUsd(meter.balance)}. This account is now read-only.`}
        </Alert>
      )}
      <table className="objectives__table">
        <caption className="sr-only">Objectives of this phase</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Limit</th>
            <th scope="col">Now</th>
            <th scope="col">Left</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.rule} data-state={row.state}>
              <th scope="row">{row.rule}</th>
              <td>{row.limit}</td>
              <td>
                <Num>{row.now}</Num>
              </td>
              <td>
                <Num>{row.left}</Num> <Badge tone={STATE_TONES[row.state]}>{STATE_WORDS[row.state]}</Badge>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {active && (
        <p className="objectives__clock">
          {'The day ends in '}
          <Num>{countdown(Date.parse(meter.day_ends_at), now)}</Num>
          {meter.phase_ends_at && (
            <>
              {'; the phase ends in '}
              <Num>{countdown(Date.parse(meter.phase_ends_at), now)}</Num>
            </>
          )}
          {`. Progress to the target: ${meter.profit_progress_pct.toFixed(0)}%.`}
        </p>
      )}
    </Card>
  );
}
