import type { AcademyMeDto, CohortDto, LeaderboardRowDto, RosterRowDto } from '@pipdesk/contract';
import { DEMO_USER, type FakeAuthServer } from '../../test/fakeAuthServer';
import { makePlatformData, ok, serveTrading } from '../trading/testSupport';

// Answers of the academy calls for the screens' tests.

export function makeMe(overrides: Partial<AcademyMeDto> = {}): AcademyMeDto {
  return { id: DEMO_USER.id, role: 'instructor', must_change_password: false, cohort_id: null, ...overrides };
}

export function makeCohort(overrides: Partial<CohortDto> = {}): CohortDto {
  return {
    id: 7,
    name: 'Spring 2026',
    description: 'Swing trading basics',
    starting_balance: 10_000,
    leverage: 100,
    starts_at: '2026-04-01T00:00:00.000Z',
    ends_at: null,
    allow_self_reset: false,
    status: 'active',
    instructors: [{ id: DEMO_USER.id, full_name: DEMO_USER.full_name }],
    member_count: 3,
    ...overrides,
  };
}

export function makeRosterRow(id: number, name: string, overrides: Partial<RosterRowDto> = {}): RosterRowDto {
  return {
    user: { id, email: `${name.toLowerCase().replace(/\W+/g, '.')}@school.test`, full_name: name },
    account: { balance: 10_000, equity: 10_000, margin_used: 0, free_margin: 10_000, margin_level: null },
    open_positions: 0,
    pending_orders: 0,
    unprotected_positions: 0,
    today_pnl: 0,
    return_pct: 0,
    max_drawdown_pct: 0,
    closed_trades: 0,
    win_rate: null,
    last_trade_at: null,
    flags: [],
    attempt: null,
    ...overrides,
  };
}

export function makeLeaderboardRow(rank: number, id: number, name: string, overrides: Partial<LeaderboardRowDto> = {}) {
  return {
    rank,
    user: { id, display_name: name },
    return_pct: 0,
    equity: 10_000,
    max_drawdown_pct: 0,
    closed_trades: 0,
    win_rate: null,
    profit_factor: null,
    ...overrides,
  } satisfies LeaderboardRowDto;
}

/** Serves the trading calls every signed-in screen makes, and academy/me with `me`. */
export function serveAcademy(server: FakeAuthServer, me: () => AcademyMeDto) {
  serveTrading(server, () => makePlatformData());
  server.on('/api/academy/me/', () => ok(me()));
  // The cohort page's and the leaderboard's Programs card (docs/screens.md#programs): none by default.
  server.on('/api/academy/cohorts/7/programs/', () => ok([]));
}
