import type { AccountSummaryDto, ReplayDto } from '@pipdesk/contract';

/** A paused EURUSD session of account 12, for tests. */
export function makeReplay(over: Partial<ReplayDto> = {}): ReplayDto {
  return {
    id: 5,
    account_id: 12,
    symbols: ['EURUSD'],
    start: '2023-04-10T09:00:00.000Z',
    clock: '2023-04-10T09:00:00.000Z',
    speed: 1,
    status: 'paused',
    data_from: '2023-04-03T12:01:00.000Z',
    data_to: '2023-05-10T15:00:00.000Z',
    created_at: '2026-11-28T10:00:00.000Z',
    ...over,
  };
}

/** An account of the accounts call, for tests: 10,000 USD at 1:100, its kind as its name. */
export function makeAccountSummary(
  id: number,
  kind: AccountSummaryDto['kind'],
  replay: AccountSummaryDto['replay'] = null,
): AccountSummaryDto {
  return {
    id,
    kind,
    name: kind,
    currency: 'USD',
    balance: 10_000,
    equity: 10_000,
    margin_used: 0,
    free_margin: 10_000,
    leverage: 100,
    status: 'ACTIVE',
    created_at: '2026-11-28T10:00:00.000Z',
    challenge: null,
    replay,
  };
}

/** The accounts of a trader with one replay session: the primary (1) and session 5's practice account (12). */
export const PRACTICE_TRADER_ACCOUNTS: readonly AccountSummaryDto[] = [
  makeAccountSummary(1, 'primary'),
  makeAccountSummary(12, 'practice', { id: 5, status: 'paused' }),
];
