import { type AccountSummaryDto, tradingOperations } from '@pipdesk/contract';
import { hashKey, useQuery } from '@tanstack/react-query';
import { api } from '../../api';

/**
 * The trader's accounts' query key (docs/accounts.md#the-accounts-call). Under ['trading'], so what
 * reloads the trading figures after an order reloads the switcher's equity too.
 */
export const accountsKey = ['trading', 'accounts'] as const;

/**
 * GET trading/accounts/: the primary account first. It names no account, and its cache entry is the
 * trader's, not the selected account's (plain `hashKey`, app/queryClient.ts): the list that decides
 * which account is selected must not change entry when the selection does.
 */
export function useTradingAccounts() {
  return useQuery({
    queryKey: accountsKey,
    queryKeyHashFn: hashKey,
    queryFn: ({ signal }): Promise<AccountSummaryDto[]> => api.call(tradingOperations.listAccounts, {}, { signal }),
  });
}
