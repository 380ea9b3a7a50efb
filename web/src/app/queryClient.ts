import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api';

/**
 * Server state for every screen. A refused call (4xx) is not retried: the answer will not
 * change (and a 401 has already had its refresh and retry in the API client).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 2,
        refetchOnWindowFocus: false,
        staleTime: 5_000,
      },
      mutations: { retry: false },
    },
  });
}
