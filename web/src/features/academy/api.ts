import {
  type AcademyMeDto,
  type CohortCreateRequest,
  type CohortDto,
  type CohortPatchRequest,
  type CommentResponse,
  type JournalPage,
  type LeaderboardDto,
  type MemberImportRow,
  type MembersImportResponse,
  type OrdersPage,
  ops,
  type PerformanceDto,
  type ResetResponse,
  type RosterDto,
  type StudentDashboardDto,
} from '@pipdesk/contract';
import { useQuery } from '@tanstack/react-query';
import { ApiError, anyAnswer, api, type QueryValue } from '../../api';

/** How often the roster and the leaderboard are asked again while on screen (docs/screens.md#academy). */
export const ROSTER_REFRESH_MS = 5_000;

/** Query keys of the academy screens, all under ['academy'] (cleared with the rest on sign-out). */
export const academyKeys = {
  all: ['academy'] as const,
  me: ['academy', 'me'] as const,
  cohorts: ['academy', 'cohorts'] as const,
  roster: (cohortId: number) => ['academy', 'roster', cohortId] as const,
  leaderboard: (cohortId: number) => ['academy', 'leaderboard', cohortId] as const,
  student: (id: number) => ['academy', 'student', id] as const,
  studentPart: (id: number, part: string, query?: Record<string, QueryValue>) =>
    ['academy', 'student', id, part, ...(query ? [query] : [])] as const,
};

/**
 * GET academy/me/: the caller's role, cohort and temporary-password flag. A 403
 * PASSWORD_CHANGE_REQUIRED also means the password must change (read as such, never as a failure).
 */
export async function fetchAcademyMe(signal?: AbortSignal): Promise<AcademyMeDto | 'must-change-password'> {
  try {
    return await api.call(ops.academyMe, {}, { signal });
  } catch (err) {
    if (err instanceof ApiError && err.code === 'PASSWORD_CHANGE_REQUIRED') return 'must-change-password';
    throw err;
  }
}

/** Who the signed-in user is to the academy; undefined while unknown or when the call fails (no academy links then). */
export function useAcademyMe() {
  return useQuery({ queryKey: academyKeys.me, queryFn: ({ signal }) => fetchAcademyMe(signal), retry: false });
}

export function fetchCohorts(signal?: AbortSignal): Promise<CohortDto[]> {
  return api.call(ops.listCohorts, {}, { signal });
}

export function createCohort(body: CohortCreateRequest): Promise<CohortDto> {
  return api.call(ops.createCohort, { body });
}

export function updateCohort(id: number, body: CohortPatchRequest): Promise<CohortDto> {
  return api.call(ops.updateCohort, { ids: { id }, body });
}

/**
 * POST (add) or DELETE (remove) an instructor by e-mail. The answer (the cohort) is not read: the
 * screen reloads the cohorts instead.
 */
export function changeInstructor(cohortId: number, email: string, method: 'POST' | 'DELETE'): Promise<unknown> {
  const op = method === 'POST' ? ops.addCohortInstructor : ops.removeCohortInstructor;
  return api.call(op, { ids: { id: cohortId }, body: { email } }, { answer: anyAnswer });
}

export function importMembers(cohortId: number, students: MemberImportRow[]): Promise<MembersImportResponse> {
  return api.call(ops.importCohortMembers, { ids: { id: cohortId }, body: { students } });
}

export function removeMember(cohortId: number, userId: number) {
  return api.call(ops.removeCohortMember, { ids: { id: cohortId, userId } });
}

export function fetchRoster(cohortId: number, signal?: AbortSignal): Promise<RosterDto> {
  return api.call(ops.cohortRoster, { ids: { id: cohortId } }, { signal });
}

export function fetchLeaderboard(cohortId: number, signal?: AbortSignal): Promise<LeaderboardDto> {
  return api.call(ops.cohortLeaderboard, { ids: { id: cohortId } }, { signal });
}

export function fetchStudent(id: number, signal?: AbortSignal): Promise<StudentDashboardDto> {
  return api.call(ops.studentDashboard, { ids: { id } }, { signal });
}

/** GET students/{id}/orders/: shaped like trading/orders/, no envelope. */
export function fetchStudentOrders(id: number, query: Record<string, QueryValue>, signal?: AbortSignal): Promise<OrdersPage> {
  return api.call(ops.studentOrders, { ids: { id }, query }, { signal });
}

export function fetchStudentPerformance(id: number, signal?: AbortSignal): Promise<PerformanceDto> {
  return api.call(ops.studentPerformance, { ids: { id } }, { signal });
}

/** GET students/{id}/journal/: shaped like trading/journal/, no envelope. */
export function fetchStudentJournal(id: number, query: Record<string, QueryValue>, signal?: AbortSignal): Promise<JournalPage> {
  return api.call(ops.studentJournal, { ids: { id }, query }, { signal });
}

export function resetStudent(id: number): Promise<ResetResponse> {
  return api.call(ops.resetStudent, { ids: { id }, body: {} });
}

export function commentOnTrade(studentId: number, tradeId: number, text: string): Promise<CommentResponse> {
  return api.call(ops.commentOnTrade, { ids: { id: studentId }, body: { trade_id: tradeId, text } });
}

export function useCohorts(enabled = true) {
  return useQuery({ queryKey: academyKeys.cohorts, queryFn: ({ signal }) => fetchCohorts(signal), enabled });
}

/** The roster, asked again every few seconds while shown: its figures are live on the server (docs/screens.md#academy). */
export function useRoster(cohortId: number, enabled = true) {
  return useQuery({
    queryKey: academyKeys.roster(cohortId),
    queryFn: ({ signal }) => fetchRoster(cohortId, signal),
    refetchInterval: ROSTER_REFRESH_MS,
    enabled,
  });
}

export function useLeaderboard(cohortId: number | null) {
  return useQuery({
    queryKey: academyKeys.leaderboard(cohortId ?? 0),
    queryFn: ({ signal }) => fetchLeaderboard(cohortId ?? 0, signal),
    refetchInterval: ROSTER_REFRESH_MS,
    enabled: cohortId !== null,
  });
}
