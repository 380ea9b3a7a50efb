import { hashKey, MutationObserver, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { AccountSelection } from '../api';
import { createQueryClient } from './queryClient';

// docs/screens.md#account-switcher: cached server state never mixes two accounts.
describe('the query cache per account', () => {
  const key = ['trading', 'platform-data'] as const;

  it('keeps each account its own entry under one key, and finds the first again on switching back', () => {
    const selection = new AccountSelection();
    const client = createQueryClient(selection);
    client.setQueryData(key, 'primary figures');
    selection.select(2);
    expect(client.getQueryData(key)).toBeUndefined();
    client.setQueryData(key, 'account 2 figures');
    selection.select(undefined);
    expect(client.getQueryData(key)).toBe('primary figures');
    selection.select(2);
    expect(client.getQueryData(key)).toBe('account 2 figures');
  });

  it("patches and invalidates the selected account's entries only", async () => {
    const selection = new AccountSelection();
    const client = createQueryClient(selection);
    client.setQueryData(['trading', 'pair', 'EURUSD'], { balance: 1 });
    selection.select(2);
    client.setQueryData(['trading', 'pair', 'EURUSD'], { balance: 2 });
    client.setQueriesData<{ balance: number }>({ queryKey: ['trading', 'pair'] }, (d) => (d ? { balance: d.balance + 10 } : d));
    await client.invalidateQueries({ queryKey: ['trading'] });
    const stale = client
      .getQueryCache()
      .getAll()
      .map((q) => [q.state.data, q.isStale()]);
    expect(stale).toEqual(
      expect.arrayContaining([
        [{ balance: 1 }, false],
        [{ balance: 12 }, true],
      ]),
    );
  });

  it("finds the trader's own queries (hashed without an account) whatever is selected", async () => {
    const selection = new AccountSelection();
    const client = createQueryClient(selection);
    const observer = new QueryObserver(client, {
      queryKey: ['trading', 'accounts'],
      queryKeyHashFn: hashKey,
      queryFn: () => 'list',
    });
    await observer.refetch();
    selection.select(2);
    await client.invalidateQueries({ queryKey: ['trading'] });
    expect(client.getQueryCache().getAll()[0]!.isStale()).toBe(true);
  });

  it("writes a mutation's answer into the account it was made on, even when the trader switched meanwhile", async () => {
    const selection = new AccountSelection();
    const client = createQueryClient(selection);
    let answer: ((value: string) => void) | undefined;
    const order = new MutationObserver(client, {
      mutationFn: () => new Promise<string>((resolve) => (answer = resolve)),
      onSuccess: (data: string) => client.setQueryData(key, data),
    });
    const done = order.mutate();
    await vi.waitFor(() => expect(answer).toBeDefined());
    selection.select(2);
    answer!('primary order');
    await done;
    expect(selection.current()).toBe(2);
    expect(client.getQueryData(key)).toBeUndefined();
    selection.select(undefined);
    expect(client.getQueryData(key)).toBe('primary order');
  });
});
