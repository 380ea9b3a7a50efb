import { REPLAY_SPEEDS, type ReplayDto, type ReplaySpeed } from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, Input, Select } from '../../components';
import { useAccountSelection } from '../accounts';
import { marketKeys } from '../market/queries';
import { tradingKeys } from '../trading';
import {
  formatSessionTime,
  pauseReplay,
  playReplay,
  REPLAY_POLL_MS,
  replayKeys,
  seekReplay,
  stepReplay,
  useReplay,
  utcInputValue,
} from './api';
import { ReplayStatus } from './ReplayList';
import './replay.css';

export const CONTROL_FAILED = 'Failed to move the session';
/** The seek field left empty (docs/screens.md#replay-bar). */
export const SEEK_EMPTY = 'Enter a date and time (UTC) to go to';

/** The steps the bar offers, in minutes. */
export const REPLAY_STEPS = [
  { minutes: 1, label: '1 min' },
  { minutes: 60, label: '1 hour' },
  { minutes: 24 * 60, label: '1 day' },
] as const;

/** The replay session the selected account is bound to, when it is a practice account of one. */
export function useSelectedReplayId(): number | undefined {
  const { accounts, selected } = useAccountSelection();
  if (selected === undefined) return undefined;
  return accounts.find((a) => a.id === selected)?.replay?.id;
}

/**
 * The selected account when it is a practice account bound to a replay session: the pair page's
 * price socket then follows the session (docs/replay.md#the-price-socket-of-a-practice-account).
 */
export function useSelectedPracticeAccount(): number | undefined {
  const { accounts, selected } = useAccountSelection();
  if (selected === undefined) return undefined;
  return accounts.find((a) => a.id === selected)?.replay ? selected : undefined;
}

/**
 * The pair page's replay bar (docs/screens.md#replay-bar), on a practice account bound to a session:
 * play, pause, speed, step and the session's clock. Nothing shows on any other account.
 */
export function ReplayBar({ symbol }: { symbol: string }) {
  const id = useSelectedReplayId();
  if (id === undefined) return null;
  return <ReplaySessionBar id={id} symbol={symbol} />;
}

export function ReplaySessionBar({ id, symbol }: { id: number; symbol: string }) {
  const queryClient = useQueryClient();
  const [playing, setPlaying] = useState(false);
  const session = useReplay(id, playing ? REPLAY_POLL_MS : false);
  const replay = session.data?.replay;
  const [speed, setSpeed] = useState<ReplaySpeed>(60);
  const speedId = useId();
  const seekId = useId();
  const [seekTo, setSeekTo] = useState('');
  const [seekProblem, setSeekProblem] = useState<string | null>(null);

  // The answer says whether it plays (another tab may have paused it, or the data ended).
  useEffect(() => {
    if (replay) setPlaying(replay.status === 'playing');
  }, [replay]);
  useEffect(() => {
    if (replay && (REPLAY_SPEEDS as readonly number[]).includes(replay.speed) && replay.status === 'playing')
      setSpeed(replay.speed as ReplaySpeed);
  }, [replay]);

  // A new clock is a new market for this account: its positions, orders, figures and the pair's
  // price are asked again (its sockets carry them too; the calls are the answer of record after a
  // step or a seek, docs/replay.md#the-screens).
  const clock = replay?.clock;
  const seenClock = useRef(clock);
  useEffect(() => {
    if (clock === undefined || clock === seenClock.current) return;
    const first = seenClock.current === undefined;
    seenClock.current = clock;
    if (first) return;
    void queryClient.invalidateQueries({ queryKey: tradingKeys.all });
    void queryClient.invalidateQueries({ queryKey: marketKeys.pairPrice(symbol) });
  }, [clock, queryClient, symbol]);

  const control = useMutation({
    mutationFn: (run: () => Promise<ReplayDto>) => run(),
    onSuccess: (next) => {
      setPlaying(next.status === 'playing');
      void queryClient.invalidateQueries({ queryKey: replayKeys.all });
    },
  });
  // One control at a time; the buttons stay enabled meanwhile so a keyboard keeps its focus.
  const run = (fn: () => Promise<ReplayDto>) => {
    if (!control.isPending) control.mutate(fn);
  };
  const finished = replay?.status === 'finished';
  const busy = !replay;
  // Forward only, UTC as the session's clock; what the server refuses (back, past the data) it words.
  const seek = (e: FormEvent) => {
    e.preventDefault();
    if (seekTo === '') {
      setSeekProblem(SEEK_EMPTY);
      return;
    }
    setSeekProblem(null);
    run(() => seekReplay(id, seekTo));
  };

  return (
    <section className="replay-bar" aria-label="Replay">
      <div className="replay-bar__clock">
        <span className="replay-bar__label">Session clock</span>
        <time className="replay-bar__time" dateTime={replay?.clock} data-testid="replay-clock">
          {replay ? formatSessionTime(replay.clock) : '—'}
        </time>
        {replay && <ReplayStatus status={replay.status} />}
      </div>
      <div className="replay-bar__controls">
        {/* One button that reads Play or Pause: the focus stays on it when it turns. */}
        <Button
          size="sm"
          variant="primary"
          className="replay-bar__play"
          disabled={busy || (finished && !playing)}
          onClick={() => run(playing ? () => pauseReplay(id) : () => playReplay(id, speed))}
        >
          {playing ? 'Pause' : 'Play'}
        </Button>
        <div className="replay-bar__speed">
          <label htmlFor={speedId}>Speed</label>
          <Select
            id={speedId}
            value={String(speed)}
            disabled={busy || finished}
            onChange={(e) => {
              const next = Number(e.target.value) as ReplaySpeed;
              setSpeed(next);
              if (playing) run(() => playReplay(id, next));
            }}
          >
            {REPLAY_SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </Select>
        </div>
        {/* Each button's name holds its visible text ("Step 1 hour" for "1 hour"). */}
        <fieldset className="replay-bar__steps" aria-label="Step">
          <span className="replay-bar__label" aria-hidden="true">
            Step
          </span>
          {REPLAY_STEPS.map((s) => (
            <Button
              key={s.minutes}
              size="sm"
              aria-label={`Step ${s.label}`}
              disabled={busy || finished}
              onClick={() => run(() => stepReplay(id, s.minutes))}
            >
              {s.label}
            </Button>
          ))}
        </fieldset>
        <form className="replay-bar__seek" aria-label="Go to" onSubmit={seek} noValidate>
          <label htmlFor={seekId}>Go to (UTC)</label>
          <Input
            id={seekId}
            type="datetime-local"
            value={seekTo}
            min={replay ? utcInputValue(replay.clock) : undefined}
            max={replay ? utcInputValue(replay.data_to) : undefined}
            disabled={busy || finished}
            onChange={(e) => {
              setSeekTo(e.target.value);
              setSeekProblem(null);
            }}
          />
          <Button type="submit" size="sm" disabled={busy || finished}>
            Go
          </Button>
        </form>
      </div>
      {seekProblem && <Alert tone="error">{seekProblem}</Alert>}
      {!seekProblem && (control.isError || session.isError) && (
        <Alert tone="error">{errorMessage(control.error ?? session.error, CONTROL_FAILED)}</Alert>
      )}
    </section>
  );
}
