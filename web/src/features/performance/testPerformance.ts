import type { EquityPointDto, JournalEntryDto, PerformanceDto } from '@pipdesk/contract';

// Answers of the performance calls for the screen's tests.

export function makePerformance(overrides: Partial<PerformanceDto> = {}): PerformanceDto {
  return {
    period_start: '2026-04-01T09:00:00.000Z',
    start_balance: 10_000,
    equity: 10_125.5,
    net_pnl: 118.4,
    return_pct: 1.26,
    closed_trades: 7,
    wins: 4,
    losses: 2,
    breakevens: 1,
    win_rate: 66.67,
    profit_factor: 2.35,
    expectancy: 16.91,
    average_win: 51.25,
    average_loss: -43.3,
    largest_win: 96.1,
    largest_loss: -52.42,
    longest_win_streak: 3,
    longest_loss_streak: 1,
    max_drawdown_pct: 1.84,
    by_pair: [
      { symbol: 'EURUSD', trades: 5, net_pnl: 140.6, win_rate: 75 },
      { symbol: 'USDJPY', trades: 2, net_pnl: -22.2, win_rate: 50 },
    ],
    ...overrides,
  };
}

/** A trader with no closed trade: what the server answers before the first close. */
export function noTradesPerformance(): PerformanceDto {
  return makePerformance({
    equity: 10_000,
    net_pnl: 0,
    return_pct: 0,
    closed_trades: 0,
    wins: 0,
    losses: 0,
    breakevens: 0,
    win_rate: null,
    profit_factor: null,
    expectancy: null,
    average_win: null,
    average_loss: null,
    largest_win: null,
    largest_loss: null,
    longest_win_streak: 0,
    longest_loss_streak: 0,
    max_drawdown_pct: 0,
    by_pair: [],
  });
}

export function makeEntry(
  id: number,
  overrides: Partial<JournalEntryDto> = {},
  trade: Partial<JournalEntryDto['trade']> = {},
): JournalEntryDto {
  return {
    trade: {
      id,
      order: 100 + id,
      position: 50,
      fx_pair_symbol: 'EURUSD',
      side: 'SELL',
      quantity: 0.1,
      price: 1.08912,
      realized_pnl: 17.8,
      executed_at: `2026-04-0${1 + (id % 8)}T14:03:22.000Z`,
      ...trade,
    },
    note: '',
    tags: [],
    rating: null,
    comments: [],
    ...overrides,
  };
}

export function makePoints(values: ReadonlyArray<[string, number, number]>): EquityPointDto[] {
  return values.map(([time, equity, balance]) => ({ time, equity, balance }));
}
