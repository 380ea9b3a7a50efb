import type { MeterDto } from '@pipdesk/contract';
import type { QueryClient } from '@tanstack/react-query';
import type { NoticeInput } from '../../notices/NoticeProvider';
import { challengeKey } from './api';

// Loaded on the first `challenge_update` (features/trading/LiveTradingProvider.tsx), not in the first
// load: a trader without an evaluation never needs it.

/** The rule an evaluation failed on, in the notice's words. */
const FAILED_RULES = {
  daily_loss: 'the daily loss limit',
  max_loss: 'the maximum loss limit',
  time_limit: 'the time limit',
} as const;

/**
 * The notice of an evaluation attempt's `challenge_update` (docs/screens.md#notices), on any page:
 * when it fails, passes, or moves to its next phase. The socket also sends the meter after every
 * fill and at each day start, so `seen` keeps each attempt's last status and phase, and the same
 * state twice says nothing.
 */
export function evaluationChange(seen: Map<number, string>, meter: MeterDto): NoticeInput | null {
  const state = `${meter.status}:${meter.phase.index}`;
  const before = seen.get(meter.attempt.id);
  seen.set(meter.attempt.id, state);
  if (before === state) return null;
  if (meter.status === 'failed' && meter.failure) {
    return {
      tone: 'error',
      title: 'Evaluation failed',
      text: `${meter.phase.name}: ${FAILED_RULES[meter.failure.rule]} was reached. The account is now read-only.`,
    };
  }
  if (meter.status === 'passed')
    return { tone: 'success', title: 'Evaluation passed', text: `${meter.phase.name}: every objective met.` };
  const beforePhase = before === undefined ? undefined : Number(before.split(':')[1]);
  if (beforePhase !== undefined && meter.phase.index > beforePhase) {
    return {
      tone: 'success',
      title: `Phase ${meter.phase.index + 1} started`,
      text: `${meter.phase.name}: the account starts again.`,
    };
  }
  return null;
}

/** A `challenge_update`: the Objectives panel's meter reads itself again, and a change of status or phase makes a notice. */
export function onChallengeUpdate(
  queryClient: QueryClient,
  notices: { notify(notice: NoticeInput): unknown },
  seen: Map<number, string>,
  meter: MeterDto,
): void {
  void queryClient.invalidateQueries({ queryKey: challengeKey });
  const change = evaluationChange(seen, meter);
  if (change) notices.notify(change);
}
