import {
  type AttemptsStartResponse,
  evaluationsOperations,
  type MeterDto,
  type ProgramCreateRequest,
  type ProgramDto,
} from '@pipdesk/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api';

/** How often an instructor's board of attempts is asked again while on screen (as the roster is). */
export const BOARD_REFRESH_MS = 5_000;

export const programKeys = {
  programs: (cohortId: number) => ['academy', 'programs', cohortId] as const,
  attempts: (programId: number) => ['academy', 'program-attempts', programId] as const,
};

export function usePrograms(cohortId: number) {
  return useQuery({
    queryKey: programKeys.programs(cohortId),
    queryFn: ({ signal }): Promise<ProgramDto[]> =>
      api.call(evaluationsOperations.listPrograms, { ids: { id: cohortId } }, { signal }),
  });
}

export function createProgram(cohortId: number, body: ProgramCreateRequest): Promise<ProgramDto> {
  return api.call(evaluationsOperations.createProgram, { ids: { id: cohortId }, body });
}

export function startAttempts(
  programId: number,
  body: { all_members: true } | { user_ids: number[] },
): Promise<AttemptsStartResponse> {
  return api.call(evaluationsOperations.startAttempts, { ids: { id: programId }, body });
}

export function selfStart(programId: number) {
  return api.call(evaluationsOperations.selfStartAttempt, { ids: { id: programId } });
}

/** The live board of a program's attempts, each with its meter (instructors and the admin). */
export function useAttemptBoard(programId: number, enabled: boolean) {
  return useQuery({
    queryKey: programKeys.attempts(programId),
    queryFn: ({ signal }): Promise<MeterDto[]> =>
      api.call(evaluationsOperations.listAttempts, { ids: { id: programId } }, { signal }),
    enabled,
    refetchInterval: BOARD_REFRESH_MS,
  });
}
