import {
  type ReplayCreateRequest,
  type ReplayDataPairDto,
  type ReplayDetailDto,
  type ReplayDto,
  type ReplaySpeed,
  replayOperations,
} from '@pipdesk/contract';
import { hashKey, useQuery } from '@tanstack/react-query';
import { api } from '../../api';
import { tradingKeys } from '../trading';

/** How often a playing session is asked again, with the page's figures (the practice socket carries no P&L yet). */
export const REPLAY_POLL_MS = 1_000;

/**
 * The trader's sessions are the trader's, whichever account is selected: hashed with plain `hashKey`
 * (app/queryClient.ts), as the accounts list is. Under ['trading'], so what reloads the trading
 * figures after a fill or a close reloads a session's statistics too.
 */
export const replayKeys = {
  all: [...tradingKeys.all, 'replays'] as const,
  list: [...tradingKeys.all, 'replays', 'list'] as const,
  detail: (id: number) => [...tradingKeys.all, 'replays', 'detail', id] as const,
  student: (studentId: number) => ['academy', 'student', studentId, 'replays'] as const,
};

/**
 * The pairs a session can play, each with its data's range, from the server's loaded series
 * (`GET trading/replays/data/`, docs/replay.md#which-pairs-and-when). The same for every trader and
 * for the life of the server process: asked once.
 */
export function useReplayData() {
  return useQuery({
    queryKey: [...replayKeys.all, 'data'] as const,
    queryKeyHashFn: hashKey,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async ({ signal }): Promise<ReplayDataPairDto[]> =>
      (await api.call(replayOperations.replayData, {}, { signal })).pairs,
  });
}

export function useReplays() {
  return useQuery({
    queryKey: replayKeys.list,
    queryKeyHashFn: hashKey,
    queryFn: async ({ signal }): Promise<ReplayDto[]> => (await api.call(replayOperations.listReplays, {}, { signal })).replays,
  });
}

/** One session with its account's statistics; polled while `pollMs` is set (a playing session). */
export function useReplay(id: number | undefined, pollMs?: number | false) {
  return useQuery({
    queryKey: replayKeys.detail(id ?? 0),
    queryKeyHashFn: hashKey,
    enabled: id !== undefined,
    refetchInterval: pollMs ?? false,
    queryFn: ({ signal }): Promise<ReplayDetailDto> => api.call(replayOperations.getReplay, { ids: { id: id ?? 0 } }, { signal }),
  });
}

/** GET academy/students/{id}/replays/: read-only, for the student's instructors and admins. */
export function useStudentReplays(studentId: number) {
  return useQuery({
    queryKey: replayKeys.student(studentId),
    queryFn: async ({ signal }): Promise<ReplayDetailDto[]> =>
      (await api.call(replayOperations.studentReplays, { ids: { id: studentId } }, { signal })).replays,
  });
}

export async function createReplay(body: ReplayCreateRequest): Promise<ReplayDto> {
  return (await api.call(replayOperations.createReplay, { body })).replay;
}

export async function deleteReplay(id: number): Promise<ReplayDto> {
  return (await api.call(replayOperations.deleteReplay, { ids: { id } })).replay;
}

export async function playReplay(id: number, speed: ReplaySpeed): Promise<ReplayDto> {
  return (await api.call(replayOperations.playReplay, { ids: { id }, body: { speed } })).replay;
}

export async function pauseReplay(id: number): Promise<ReplayDto> {
  return (await api.call(replayOperations.pauseReplay, { ids: { id } })).replay;
}

export async function stepReplay(id: number, minutes: number): Promise<ReplayDto> {
  return (await api.call(replayOperations.stepReplay, { ids: { id }, body: { minutes } })).replay;
}

/** POST …/seek/: the clock forward to `to` (UTC when it names no offset); back or past the data is the server's 400. */
export async function seekReplay(id: number, to: string): Promise<ReplayDto> {
  return (await api.call(replayOperations.seekReplay, { ids: { id }, body: { to } })).replay;
}

/** An ISO time as a `datetime-local` value in UTC ("2023-04-10T09:00"), the form the bar's seek field takes. */
export function utcInputValue(when: string): string {
  const t = Date.parse(when);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 16) : '';
}

const utcParts = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  day: '2-digit',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

const utcDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' });

/** A day of the data, in UTC: "3 Apr 2023"; '' for an unreadable time. */
export function formatDataDay(when: string | number): string {
  const t = typeof when === 'number' ? when : Date.parse(when);
  return Number.isFinite(t) ? utcDay.format(t) : '';
}

/** A session time, in UTC as the data's: "10 Apr 2023, 14:03 UTC"; '' for an unreadable time. */
export function formatSessionTime(when: string): string {
  const t = Date.parse(when);
  if (!Number.isFinite(t)) return '';
  const p = Object.fromEntries(utcParts.formatToParts(t).map((x) => [x.type, x.value]));
  return `${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute} UTC`;
}
