import type { ReplayDto } from '@pipdesk/contract';

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
