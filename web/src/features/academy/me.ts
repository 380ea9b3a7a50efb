import { type AcademyMeDto, cohortsOperations } from '@pipdesk/contract';
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, type QueryValue } from '../../api';

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
    return await api.call(cohortsOperations.academyMe, {}, { signal });
  } catch (err) {
    if (err instanceof ApiError && err.code === 'PASSWORD_CHANGE_REQUIRED') return 'must-change-password';
    throw err;
  }
}

/** Who the signed-in user is to the academy; undefined while unknown or when the call fails (no academy links then). */
export function useAcademyMe() {
  return useQuery({ queryKey: academyKeys.me, queryFn: ({ signal }) => fetchAcademyMe(signal), retry: false });
}
