import {
  type CohortCreateRequest,
  type CohortDto,
  type CohortPatchRequest,
  type CommentResponse,
  cohortsOperations,
  consoleOperations,
  type JournalPage,
  type LeaderboardDto,
  type MemberImportRow,
  type MembersImportResponse,
  type OrdersPage,
  type PerformanceDto,
  type ResetResponse,
  type RosterDto,
  type StudentDashboardDto,
} from '@pipdesk/contract';
import { useQuery } from '@tanstack/react-query';
import { anyAnswer, api, type QueryValue } from '../../api';
import { academyKeys } from './me';

// Who the caller is to the academy is read on every screen (the header's links, the password rule),
// so it lives in me.ts, which the first load imports without the rest of this file's calls.
export { academyKeys, fetchAcademyMe, useAcademyMe } from './me';

/** How often the roster and the leaderboard are asked again while on screen (docs/screens.md#academy). */
export const ROSTER_REFRESH_MS = 5_000;

export function fetchCohorts(signal?: AbortSignal): Promise<CohortDto[]> {
  return api.call(cohortsOperations.listCohorts, {}, { signal });
}

export function createCohort(body: CohortCreateRequest): Promise<CohortDto> {
  return api.call(cohortsOperations.createCohort, { body });
}

export function updateCohort(id: number, body: CohortPatchRequest): Promise<CohortDto> {
  return api.call(cohortsOperations.updateCohort, { ids: { id }, body });
}

/**
 * POST (add) or DELETE (remove) an instructor by e-mail. The answer (the cohort) is not read: the
 * screen reloads the cohorts instead.
 */
export function changeInstructor(cohortId: number, email: string, method: 'POST' | 'DELETE'): Promise<unknown> {
  const op = method === 'POST' ? cohortsOperations.addCohortInstructor : cohortsOperations.removeCohortInstructor;
  return api.call(op, { ids: { id: cohortId }, body: { email } }, { answer: anyAnswer });
}

export function importMembers(cohortId: number, students: MemberImportRow[]): Promise<MembersImportResponse> {
  return api.call(cohortsOperations.importCohortMembers, { ids: { id: cohortId }, body: { students } });
}

export function removeMember(cohortId: number, userId: number) {
  return api.call(cohortsOperations.removeCohortMember, { ids: { id: cohortId, userId } });
}

export function fetchRoster(cohortId: number, signal?: AbortSignal): Promise<RosterDto> {
  return api.call(consoleOperations.cohortRoster, { ids: { id: cohortId } }, { signal });
}

export function fetchLeaderboard(cohortId: number, signal?: AbortSignal): Promise<LeaderboardDto> {
  return api.call(consoleOperations.cohortLeaderboard, { ids: { id: cohortId } }, { signal });
}

export function fetchStudent(id: number, signal?: AbortSignal): Promise<StudentDashboardDto> {
  return api.call(consoleOperations.studentDashboard, { ids: { id } }, { signal });
}

/** GET students/{id}/orders/: shaped like trading/orders/, no envelope. */
export function fetchStudentOrders(id: number, query: Record<string, QueryValue>, signal?: AbortSignal): Promise<OrdersPage> {
  return api.call(consoleOperations.studentOrders, { ids: { id }, query }, { signal });
}

export function fetchStudentPerformance(id: number, signal?: AbortSignal): Promise<PerformanceDto> {
  return api.call(consoleOperations.studentPerformance, { ids: { id } }, { signal });
}

/** GET students/{id}/journal/: shaped like trading/journal/, no envelope. */
export function fetchStudentJournal(id: number, query: Record<string, QueryValue>, signal?: AbortSignal): Promise<JournalPage> {
  return api.call(consoleOperations.studentJournal, { ids: { id }, query }, { signal });
}

export function resetStudent(id: number): Promise<ResetResponse> {
  return api.call(consoleOperations.resetStudent, { ids: { id }, body: {} });
}

export function commentOnTrade(studentId: number, tradeId: number, text: string): Promise<CommentResponse> {
  return api.call(consoleOperations.commentOnTrade, { ids: { id: studentId }, body: { trade_id: tradeId, text } });
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
