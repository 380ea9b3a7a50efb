import { evaluationsOperations, type MeterDto } from '@pipdesk/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api';

/**
 * The selected challenge account's meter (GET trading/challenge/, docs/evaluations.md#the-meter).
 * Under ['trading'], so what reloads the trading figures after an order reloads it too; the query
 * cache keeps it per selected account (app/queryClient.ts), and the client names the account.
 */
export const challengeKey = ['trading', 'challenge'] as const;

export function useChallengeMeter() {
  return useQuery({
    queryKey: challengeKey,
    queryFn: ({ signal }): Promise<MeterDto> => api.call(evaluationsOperations.challengeMeter, {}, { signal }),
  });
}
