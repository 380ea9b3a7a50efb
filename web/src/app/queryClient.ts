import {
  hashKey,
  type Mutation,
  MutationCache,
  type MutationOptions,
  type MutationState,
  type Query,
  QueryCache,
  QueryClient,
  type QueryFilters,
  type QueryKey,
} from '@tanstack/react-query';
import { type AccountSelection, ApiError, accountSelection } from '../api';

/**
 * The cache keys of one account (docs/screens.md#account-switcher): every entry's hash starts with
 * the account selected when it was made, so two accounts' answers are two entries, never one. A
 * query of the trader's, the same on every account (the accounts list), hashes its key with
 * `hashKey` itself: its hash starts with `[`, never with `@`.
 */
function accountPrefix(selection: AccountSelection): string {
  return `@${selection.current() ?? 'primary'}|`;
}

/**
 * A query cache whose filtered look-ups (`invalidateQueries`, `setQueriesData`, `cancelQueries`,
 * `isFetching`, …) see the selected account's entries only. A live figure of account 2's socket
 * patched into account 1's cached pair page would show on it when the trader switches back.
 * `clear()` (sign-out) and the focus and online refetches still see every entry; the trader's own
 * queries (no prefix) are found on every account.
 */
class AccountQueryCache extends QueryCache {
  constructor(private readonly selection: AccountSelection) {
    super();
  }

  override findAll(filters: QueryFilters = {}): Query[] {
    const prefix = accountPrefix(this.selection);
    return super.findAll(filters).filter((query) => query.queryHash.startsWith(prefix) || !query.queryHash.startsWith('@'));
  }
}

/**
 * A mutation's own callbacks (`onMutate`, `onSuccess`, `onError`, `onSettled`) run with the account
 * selected when it started: an order or a protection change that comes back after the trader
 * switched writes its answer into its own account's cached pages, never the new one's. Only their
 * synchronous part (the cache writes of this app's callbacks); the callbacks given to `mutate()`
 * belong to a page, which a switch replaces (app/AppLayout.tsx), so they do not run then.
 */
class AccountMutationCache extends MutationCache {
  constructor(private readonly selection: AccountSelection) {
    super();
  }

  // The cache's own signature: any mutation's types pass through untouched.
  override build<TData, TError, TVariables, TOnMutateResult>(
    client: QueryClient,
    options: MutationOptions<TData, TError, TVariables, TOnMutateResult>,
    state?: MutationState<TData, TError, TVariables, TOnMutateResult>,
  ): Mutation<TData, TError, TVariables, TOnMutateResult> {
    const account = this.selection.current();
    const asStarted = <A extends unknown[], R>(fn: ((...args: A) => R) | undefined) =>
      fn && ((...args: A): R => this.selection.runAs(account, () => fn(...args)));
    return super.build(
      client,
      {
        ...options,
        onMutate: asStarted(options.onMutate),
        onSuccess: asStarted(options.onSuccess),
        onError: asStarted(options.onError),
        onSettled: asStarted(options.onSettled),
      },
      state,
    );
  }
}

/**
 * Server state for every screen. A refused call (4xx) is not retried: the answer will not
 * change (and a 401 has already had its refresh and retry in the API client).
 *
 * Each account keeps its own entries (the key's hash names it, docs/decisions.md) rather than the
 * cache being emptied on a switch: switching back, or Back, shows that account's last figures at
 * once, then refreshes them as any cached screen does; a feature's `queryKey`, `setQueryData` and
 * invalidations name no account and reach the selected one's entries.
 */
export function createQueryClient(selection: AccountSelection = accountSelection): QueryClient {
  return new QueryClient({
    queryCache: new AccountQueryCache(selection),
    mutationCache: new AccountMutationCache(selection),
    defaultOptions: {
      queries: {
        queryKeyHashFn: (queryKey: QueryKey) => accountPrefix(selection) + hashKey(queryKey),
        retry: (failures, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 2,
        refetchOnWindowFocus: false,
        staleTime: 5_000,
      },
      mutations: { retry: false },
    },
  });
}
