import type { AcademyMeDto, CohortDto, JournalEntryDto, LeaderboardRowDto, RosterRowDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderApp } from '../../test/render';
import { makeEntry, makePerformance } from '../performance/testPerformance';
import { makeAccount, makeOrder, makePlatformData, ok } from '../trading/testSupport';
import { ROSTER_REFRESH_MS } from './api';
import { PASSWORDS_ONCE_TEXT } from './ImportStudents';
import { RESET_CONFIRM_TEXT } from './StudentPage';
import { makeCohort, makeLeaderboardRow, makeMe, makeRosterRow, serveAcademy } from './testAcademy';

const A = '/api/academy';
let server: FakeAuthServer;
let me: AcademyMeDto;
let cohorts: CohortDto[];
let roster: RosterRowDto[];
let leaderboard: LeaderboardRowDto[];

/** Typing and clicking through whole screens on a loaded two-core machine takes longer than vitest's default 5 s. */
const SLOW = { timeout: 30_000 };

const posts = (path: string) => server.calls.filter((c) => c.method === 'POST' && c.path === path);
const navLinks = () =>
  within(screen.getByRole('navigation', { name: 'Main' }))
    .getAllByRole('link')
    .map((l) => l.textContent);

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
  me = makeMe();
  cohorts = [makeCohort()];
  roster = [
    makeRosterRow(5, 'Cleo Student', {
      return_pct: 2.5,
      open_positions: 1,
      unprotected_positions: 1,
      flags: ['no_stop_loss'],
    }),
    makeRosterRow(6, 'Ada Student', { return_pct: -1.25, flags: ['margin_call', 'high_exposure'] }),
    makeRosterRow(8, 'Bea Student', { return_pct: null, account: null, flags: ['inactive_7d'] }),
  ];
  leaderboard = [
    makeLeaderboardRow(1, 5, 'Cleo S.', { return_pct: 2.5, equity: 10_250, win_rate: 100, closed_trades: 2 }),
    makeLeaderboardRow(2, 1, 'Demo T.', { return_pct: 0, max_drawdown_pct: 0.5 }),
    makeLeaderboardRow(3, 6, 'Ada S.', { return_pct: -1.25, equity: 9_875, profit_factor: 0.4 }),
  ];
  serveAcademy(server, () => me);
  server.on(`${A}/cohorts/`, (call) =>
    call.method === 'POST' ? ok({ ...makeCohort({ id: 9 }), ...(call.body as object) }) : ok(cohorts),
  );
  server.on(`${A}/cohorts/7/roster/`, () => ok(roster));
  server.on(`${A}/cohorts/7/leaderboard/`, () => ok(leaderboard));
});

const { createObjectURL, revokeObjectURL } = URL;
afterEach(() => {
  vi.restoreAllMocks();
  URL.createObjectURL = createObjectURL;
  URL.revokeObjectURL = revokeObjectURL;
});

/** A blob's text (jsdom's Blob has no text()). */
function readBlob(blob: Blob | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!blob) return reject(new Error('nothing was saved'));
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(blob);
  });
}

describe('the header links (docs/screens.md#academy)', () => {
  it('adds Academy after the spec links for an instructor', async () => {
    renderApp('/');
    await waitFor(() =>
      expect(navLinks()).toEqual(['Dashboard', 'Orders', 'News', 'Performance', 'Charts', 'Alerts', 'Replay', 'Academy']),
    );
    expect(screen.getByRole('link', { name: 'Change password' })).toHaveAttribute('href', '/account/password');
  });

  it('adds Leaderboard for a trader in a cohort, and nothing for one in none', async () => {
    me = makeMe({ role: 'trader', cohort_id: 7 });
    const view = renderApp('/');
    await waitFor(() =>
      expect(navLinks()).toEqual(['Dashboard', 'Orders', 'News', 'Performance', 'Charts', 'Alerts', 'Replay', 'Leaderboard']),
    );
    view.unmount();
    me = makeMe({ role: 'trader', cohort_id: null });
    renderApp('/');
    await screen.findByText('Demo Trader');
    await waitFor(() => expect(server.callsTo(`${A}/me/`).length).toBe(2));
    expect(navLinks()).toEqual(['Dashboard', 'Orders', 'News', 'Performance', 'Charts', 'Alerts', 'Replay']);
  });
});

describe('the cohort page', SLOW, () => {
  it('lists the cohorts and opens one with its live roster, flags as badges', async () => {
    const user = userEvent.setup();
    renderApp('/academy');
    await user.click(await screen.findByRole('link', { name: 'Spring 2026' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Spring 2026' })).toBeInTheDocument();
    const table = await within(await screen.findByRole('region', { name: 'Roster' })).findByRole('table');
    await within(table).findByText('Ada Student');
    const rows = within(table).getAllByRole('row').slice(1);
    // Name order first.
    expect(rows.map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'Ada Studentada.student@school.test',
      'Bea Studentbea.student@school.test',
      'Cleo Studentcleo.student@school.test',
    ]);
    const ada = screen.getByTestId('roster-row-6');
    expect(within(ada).getByText('Margin call')).toHaveClass('badge--loss');
    expect(within(ada).getByText('High exposure')).toHaveClass('badge--warning');
    expect(within(screen.getByTestId('roster-row-5')).getByText('No stop loss')).toHaveClass('badge');
    expect(within(screen.getByTestId('roster-row-8')).getByText('Inactive 7 days')).toHaveClass('badge');
    expect(within(screen.getByTestId('roster-row-8')).getAllByText('—').length).toBeGreaterThan(0);
    expect(within(screen.getByTestId('roster-row-5')).getByText('+2.50%')).toBeInTheDocument();
  });

  it('sorts the roster by a column, high first, and again the other way', async () => {
    const user = userEvent.setup();
    renderApp('/academy/cohorts/7');
    const table = await within(await screen.findByRole('region', { name: 'Roster' })).findByRole('table');
    await within(table).findByText('Ada Student');
    const order = () =>
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((r) => r.getAttribute('data-testid'));
    const returnHeader = within(table).getByRole('columnheader', { name: /Return/ });
    await user.click(within(returnHeader).getByRole('button'));
    expect(returnHeader).toHaveAttribute('aria-sort', 'descending');
    expect(order()).toEqual(['roster-row-5', 'roster-row-6', 'roster-row-8']);
    await user.click(within(returnHeader).getByRole('button'));
    expect(returnHeader).toHaveAttribute('aria-sort', 'ascending');
    // No return (no account) stays last either way.
    expect(order()).toEqual(['roster-row-6', 'roster-row-5', 'roster-row-8']);
  });

  it('asks for the roster again every few seconds', async () => {
    renderApp('/academy/cohorts/7');
    await screen.findByText('Ada Student');
    roster = [...roster, makeRosterRow(9, 'Dan Student')];
    await screen.findByText('Dan Student', undefined, { timeout: ROSTER_REFRESH_MS * 3 });
  });

  it('opens the student from the roster', async () => {
    const user = userEvent.setup();
    server.on(`${A}/students/5/`, () => ok(makePlatformData()));
    renderApp('/academy/cohorts/7');
    await user.click(await screen.findByRole('link', { name: 'Cleo Student' }));
    expect(window.location.pathname).toBe('/academy/students/5');
  });

  it('shows the leaderboard in the rank the server gives', async () => {
    renderApp('/academy/cohorts/7');
    const table = await within(await screen.findByRole('region', { name: 'Leaderboard' })).findByRole('table');
    await within(table).findByText('Cleo S.');
    expect(
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((r) => r.textContent),
    ).toEqual(['1Cleo S.+2.50%$10,250.000.00%2100.00%—', '2Demo T.0.00%$10,000.000.50%0——', '3Ada S.-1.25%$9,875.000.00%0—0.40']);
  });
});

describe('the leaderboard page of a trader', () => {
  it('ranks the trader’s cohort and marks the trader', async () => {
    me = makeMe({ role: 'trader', cohort_id: 7 });
    renderApp('/leaderboard');
    const table = await within(await screen.findByRole('region', { name: 'Leaderboard' })).findByRole('table');
    await within(table).findByText('Cleo S.');
    expect(screen.getByTestId('rank-5')).toHaveTextContent('1');
    expect(screen.getByTestId('rank-1')).toHaveTextContent('2');
    expect(screen.getByTestId('rank-6')).toHaveTextContent('3');
    expect(within(table).getByText('Demo T. (you)')).toBeInTheDocument();
  });
});

describe('a self reset', SLOW, () => {
  it('is offered on the leaderboard only when the cohort allows it, after the confirmation', async () => {
    const user = userEvent.setup();
    me = makeMe({ role: 'trader', cohort_id: 7 });
    server.on(`${A}/students/1/reset/`, () =>
      ok({ account: makeAccount(), period_start: '2026-04-05T10:00:00.000Z', closed_positions: [], cancelled_orders: [] }),
    );
    const view = renderApp('/leaderboard');
    await screen.findByText('Cleo S.');
    await waitFor(() => expect(server.callsTo(`${A}/cohorts/`).length).toBe(1));
    expect(screen.queryByRole('button', { name: 'Reset my account' })).not.toBeInTheDocument();
    view.unmount();

    cohorts = [makeCohort({ allow_self_reset: true })];
    renderApp('/leaderboard');
    await user.click(await screen.findByRole('button', { name: 'Reset my account' }));
    expect(posts(`${A}/students/1/reset/`)).toHaveLength(0);
    await user.click(
      within(screen.getByRole('alertdialog', { name: 'Confirm reset' })).getByRole('button', { name: 'Yes, reset' }),
    );
    await waitFor(() => expect(posts(`${A}/students/1/reset/`)).toHaveLength(1));
    expect(await screen.findByText('Account reset')).toBeInTheDocument();
  });
});

describe('admin: cohorts and the import', SLOW, () => {
  beforeEach(() => {
    me = makeMe({ role: 'admin' });
  });

  it('creates a cohort after checking it as the server does', async () => {
    const user = userEvent.setup();
    renderApp('/academy');
    const form = await screen.findByRole('form', { name: 'New cohort' });
    await user.type(within(form).getByLabelText('Name'), 'Autumn 2026');
    await user.clear(within(form).getByLabelText('Leverage'));
    await user.type(within(form).getByLabelText('Leverage'), '0');
    await user.click(within(form).getByRole('button', { name: 'Create cohort' }));
    expect(within(form).getByText('must be 1 to 1000')).toBeInTheDocument();
    expect(posts(`${A}/cohorts/`)).toHaveLength(0);
    await user.clear(within(form).getByLabelText('Leverage'));
    await user.type(within(form).getByLabelText('Leverage'), '50');
    await user.click(within(form).getByLabelText('Students may reset their own account'));
    await user.click(within(form).getByRole('button', { name: 'Create cohort' }));
    await waitFor(() => expect(posts(`${A}/cohorts/`)).toHaveLength(1));
    expect(posts(`${A}/cohorts/`)[0]?.body).toEqual({
      name: 'Autumn 2026',
      description: '',
      starting_balance: 10_000,
      leverage: 50,
      starts_at: null,
      ends_at: null,
      allow_self_reset: true,
    });
  });

  it('previews the CSV with an error per line, sends the good lines, shows the passwords once and downloads them', async () => {
    const user = userEvent.setup();
    let saved: Blob | undefined;
    const createObjectURL = vi.fn((blob: Blob) => {
      saved = blob;
      return 'blob:passwords';
    });
    // jsdom has no object URLs: the test stands in for them and puts the originals back.
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = vi.fn();
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    server.on(`${A}/cohorts/7/members/`, () =>
      ok({
        created: [{ row: 1, email: 'ada@school.test', user_id: 21, temporary_password: 'Tmp-ada-7Qx' }],
        added: [],
        errors: [{ row: 2, email: 'bea@school.test', error: 'Bea is already in another cohort' }],
      }),
    );
    renderApp('/academy/cohorts/7');
    const card = await screen.findByRole('region', { name: 'Import students' });
    // The textarea is typed into as a paste would fill it.
    await user.click(within(card).getByLabelText('Students CSV'));
    await user.paste('email,full_name\nada@school.test,Ada Lovelace\nnot-an-address,Nobody\nbea@school.test,Bea');
    const preview = within(card).getByRole('region', { name: 'Import preview' });
    const rows = within(preview).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      '2ada@school.testAda LovelaceOK',
      '3not-an-addressNobodyNot an e-mail address: not-an-address',
      '4bea@school.testBeaOK',
    ]);
    expect(within(card).getByText('2 to import, 1 with an error (not sent)')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Import 2 students' }));
    const result = await within(card).findByRole('region', { name: 'Import result' });
    expect(posts(`${A}/cohorts/7/members/`)[0]?.body).toEqual({
      students: [
        { email: 'ada@school.test', full_name: 'Ada Lovelace' },
        { email: 'bea@school.test', full_name: 'Bea' },
      ],
    });
    expect(within(result).getByText(PASSWORDS_ONCE_TEXT)).toBeInTheDocument();
    expect(within(result).getByTestId('temporary-password-ada@school.test')).toHaveTextContent('Tmp-ada-7Qx');
    // The server's row 2 is the file's line 4.
    const errorRow = within(within(result).getByRole('table', { name: 'Rows not imported' })).getAllByRole('row')[1];
    expect(errorRow).toHaveTextContent('4bea@school.testBea is already in another cohort');

    await user.click(within(result).getByRole('button', { name: 'Download passwords (CSV)' }));
    expect(clicked).toHaveBeenCalledTimes(1);
    expect(await readBlob(saved)).toBe('email,temporary_password\r\nada@school.test,Tmp-ada-7Qx\r\n');

    // Shown once: after Done the passwords are gone from the screen.
    await user.click(within(result).getByRole('button', { name: 'Done' }));
    expect(screen.queryByText('Tmp-ada-7Qx')).not.toBeInTheDocument();
    expect(within(card).getByLabelText('Students CSV')).toHaveValue('');
  });

  it('edits a cohort, sending only what changed', async () => {
    const user = userEvent.setup();
    const patches: unknown[] = [];
    server.on(`${A}/cohorts/7/`, (call) => {
      patches.push(call.body);
      cohorts = [{ ...cohorts[0]!, ...(call.body as Partial<CohortDto>) }];
      return ok(cohorts[0]);
    });
    renderApp('/academy/cohorts/7');
    await user.click(await screen.findByRole('button', { name: 'Edit cohort' }));
    const form = screen.getByRole('form', { name: 'Edit cohort' });
    await user.clear(within(form).getByLabelText('Name'));
    await user.type(within(form).getByLabelText('Name'), 'Spring 2026 (evening)');
    await user.selectOptions(within(form).getByLabelText('Status'), 'archived');
    await user.click(within(form).getByRole('button', { name: 'Save cohort' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Spring 2026 (evening)' })).toBeInTheDocument();
    expect(patches).toEqual([{ name: 'Spring 2026 (evening)', status: 'archived' }]);
    expect(screen.queryByRole('form', { name: 'Edit cohort' })).not.toBeInTheDocument();
  });

  it('adds an instructor by e-mail', async () => {
    const user = userEvent.setup();
    server.on(`${A}/cohorts/7/instructors/`, () => ok({ cohort_id: 7, user_id: 30 }));
    renderApp('/academy/cohorts/7');
    const card = await screen.findByRole('region', { name: 'Instructors' });
    await user.type(within(card).getByLabelText('Instructor e-mail'), 'coach@school.test');
    await user.click(within(card).getByRole('button', { name: 'Add instructor' }));
    await waitFor(() => expect(posts(`${A}/cohorts/7/instructors/`)).toHaveLength(1));
    expect(posts(`${A}/cohorts/7/instructors/`)[0]?.body).toEqual({ email: 'coach@school.test' });
  });
});

describe('the student page', SLOW, () => {
  let entries: JournalEntryDto[];
  let balance: number;

  beforeEach(() => {
    balance = 9_412.35;
    entries = [makeEntry(301, { note: 'Chased the breakout', tags: ['breakout'], rating: 2, comments: [] })];
    server.on(`${A}/students/5/`, () =>
      ok(
        makePlatformData({
          trader_profile: { id: 5, user: { id: 5, email: 'cleo@school.test', full_name: 'Cleo Student' } },
          trading_account: makeAccount({ balance, equity: balance, free_margin: balance }),
        }),
      ),
    );
    server.on(`${A}/students/5/orders/`, () => ({
      status: 200,
      body: { count: 1, next: null, previous: null, results: [makeOrder({ id: 41, reason: 'reset' })] },
    }));
    server.on(`${A}/students/5/performance/`, () => ok(makePerformance()));
    server.on(`${A}/students/5/replays/`, () => ok({ replays: [] }));
    server.on(`${A}/students/5/journal/`, () => ({
      status: 200,
      body: { count: entries.length, next: null, previous: null, results: entries },
    }));
    server.on(`${A}/students/5/reset/`, () => {
      balance = 10_000;
      return ok({
        account: makeAccount(),
        period_start: '2026-04-05T10:00:00.000Z',
        closed_positions: [11],
        cancelled_orders: [],
      });
    });
    server.on(`${A}/students/5/comments/`, (call) => {
      const { trade_id, text } = call.body as { trade_id: number; text: string };
      const comment = { id: 1, author: { id: 1, full_name: 'Demo Trader' }, text, created_at: '2026-04-05T11:00:00.000Z' };
      entries = entries.map((e) => (e.trade.id === trade_id ? { ...e, comments: [...e.comments, comment] } : e));
      return ok({ ...comment, trade_id });
    });
  });

  it('shows the account, orders, statistics and journal read-only', async () => {
    renderApp('/academy/students/5');
    expect(await screen.findByRole('heading', { level: 1, name: 'Cleo Student' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Account Info' })).toHaveTextContent('Balance$9,412.35');
    expect(await within(screen.getByRole('region', { name: 'Orders' })).findByText(/Reset/)).toBeInTheDocument();
    expect(await screen.findByTestId('perf-net-pnl')).toHaveTextContent('+$118.40');
    const entry = await screen.findByTestId('journal-entry-301');
    expect(entry).toHaveTextContent('Chased the breakout');
    // Read-only: the student's note is not a field here, only the comment is.
    expect(within(entry).getAllByRole('textbox')).toHaveLength(1);
  });

  it('resets only after the confirmation, then shows the restored balance', async () => {
    const user = userEvent.setup();
    renderApp('/academy/students/5');
    await user.click(await screen.findByRole('button', { name: 'Reset account' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Confirm reset' });
    expect(dialog).toHaveTextContent(RESET_CONFIRM_TEXT);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(posts(`${A}/students/5/reset/`)).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Reset account' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Yes, reset' }));
    await waitFor(() => expect(posts(`${A}/students/5/reset/`)).toHaveLength(1));
    await waitFor(() => expect(screen.getByRole('region', { name: 'Account Info' })).toHaveTextContent('Balance$10,000.00'));
    expect(screen.getByText('Account reset')).toBeInTheDocument();
  });

  it('sends a comment on a trade and shows it under the entry', async () => {
    const user = userEvent.setup();
    renderApp('/academy/students/5');
    const entry = await screen.findByTestId('journal-entry-301');
    const send = within(entry).getByRole('button', { name: 'Add comment' });
    expect(send).toBeDisabled();
    await user.type(within(entry).getByLabelText('Comment'), 'Wait for the retest next time');
    expect(within(entry).getByText('29 / 2,000 characters')).toBeInTheDocument();
    await user.click(send);
    await waitFor(() => expect(posts(`${A}/students/5/comments/`)).toHaveLength(1));
    expect(posts(`${A}/students/5/comments/`)[0]?.body).toEqual({ trade_id: 301, text: 'Wait for the retest next time' });
    const comments = await within(entry).findByRole('region', { name: 'Instructor comments' });
    expect(comments).toHaveTextContent('Wait for the retest next time');
    expect(within(entry).getByLabelText('Comment')).toHaveValue('');
  });
});
