import type { ReplayDto } from '@pipdesk/contract';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { AccountSelectionProvider } from '../accounts';
import { makePerformance } from '../performance/testPerformance';
import { allowSlowScreens, ok } from '../trading/testSupport';
import { ReplayBar, ReplaySessionBar } from './ReplayBar';
import { makeReplay, PRACTICE_TRADER_ACCOUNTS } from './testReplay';

const BASE = '/api/trading/replays/5/';
allowSlowScreens();

let server: FakeAuthServer;
let replay: ReplayDto;

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
  replay = makeReplay();
  server.on(BASE, () => ok({ replay, performance: makePerformance() }));
  server.on(`${BASE}play/`, (call) => {
    replay = { ...replay, status: 'playing', speed: (call.body as { speed: number }).speed };
    return ok({ replay });
  });
  server.on(`${BASE}pause/`, () => {
    replay = { ...replay, status: 'paused' };
    return ok({ replay });
  });
  server.on(`${BASE}step/`, (call) => {
    const minutes = (call.body as { minutes: number }).minutes;
    replay = { ...replay, clock: new Date(Date.parse(replay.clock) + minutes * 60_000).toISOString() };
    return ok({ replay });
  });
});

const bar = () => screen.getByRole('region', { name: 'Replay' });
const posts = (path: string) => server.callsTo(path).filter((c) => c.method === 'POST');

describe('the replay bar (docs/screens.md#replay-bar)', () => {
  it("shows the session's clock in UTC", async () => {
    renderWithProviders(<ReplaySessionBar id={5} symbol="EURUSD" />);
    expect(await screen.findByText('10 Apr 2023, 09:00 UTC')).toBeVisible();
    expect(within(bar()).getByText('Paused')).toBeVisible();
  });

  it('plays at the chosen speed, changes speed while playing, and pauses, with one button', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ReplaySessionBar id={5} symbol="EURUSD" />);
    await screen.findByText('10 Apr 2023, 09:00 UTC');
    await user.selectOptions(within(bar()).getByLabelText('Speed'), '300');
    expect(posts(`${BASE}play/`)).toEqual([]);
    const play = within(bar()).getByRole('button', { name: 'Play' });
    await user.click(play);
    await waitFor(() => expect(posts(`${BASE}play/`).map((c) => c.body)).toEqual([{ speed: 300 }]));
    // The same button turns to Pause: a keyboard's focus stays on it.
    await waitFor(() => expect(play).toHaveAccessibleName('Pause'));
    await user.selectOptions(within(bar()).getByLabelText('Speed'), '1000');
    await waitFor(() => expect(posts(`${BASE}play/`).map((c) => c.body)).toEqual([{ speed: 300 }, { speed: 1000 }]));
    await user.click(play);
    await waitFor(() => expect(posts(`${BASE}pause/`)).toHaveLength(1));
    await waitFor(() => expect(play).toHaveAccessibleName('Play'));
  });

  it("steps a minute, an hour and a day, shows the new clock and reloads the page's trading data and price", async () => {
    const user = userEvent.setup();
    const { queryClient } = renderWithProviders(<ReplaySessionBar id={5} symbol="EURUSD" />);
    await screen.findByText('10 Apr 2023, 09:00 UTC');
    const invalidated = vi.spyOn(queryClient, 'invalidateQueries');
    const steps = within(bar()).getByRole('group', { name: 'Step' });
    await user.click(within(steps).getByRole('button', { name: 'Step 1 min' }));
    expect(await screen.findByText('10 Apr 2023, 09:01 UTC')).toBeVisible();
    await user.click(within(steps).getByRole('button', { name: 'Step 1 hour' }));
    expect(await screen.findByText('10 Apr 2023, 10:01 UTC')).toBeVisible();
    await user.click(within(steps).getByRole('button', { name: 'Step 1 day' }));
    expect(await screen.findByText('11 Apr 2023, 10:01 UTC')).toBeVisible();
    expect(posts(`${BASE}step/`).map((c) => c.body)).toEqual([{ minutes: 1 }, { minutes: 60 }, { minutes: 1440 }]);
    const keys = invalidated.mock.calls.map(([filters]) => filters?.queryKey);
    expect(keys).toContainEqual(['trading']);
    expect(keys).toContainEqual(['market', 'pair', 'EURUSD', 'price']);
  });

  it("goes forward to a UTC date and time with the keyboard, and shows the server's refusal", async () => {
    const user = userEvent.setup();
    server.on(`${BASE}seek/`, (call) => {
      const to = (call.body as { to: string }).to;
      if (Date.parse(`${to}Z`) < Date.parse(replay.clock))
        return {
          status: 400,
          body: {
            success: false,
            error: "to: a seek goes forward only; the session's clock is 2023-04-12T15:30:00.000Z",
            code: 'VALIDATION_ERROR',
          },
        };
      replay = { ...replay, clock: new Date(`${to}Z`).toISOString() };
      return ok({ replay });
    });
    renderWithProviders(<ReplaySessionBar id={5} symbol="EURUSD" />);
    await screen.findByText('10 Apr 2023, 09:00 UTC');
    const goTo = within(bar()).getByRole('form', { name: 'Go to' });
    const field = within(goTo).getByLabelText('Go to (UTC)');
    // Go with nothing entered: a message, no call.
    await user.click(within(goTo).getByRole('button', { name: 'Go' }));
    expect(await within(bar()).findByText('Enter a date and time (UTC) to go to')).toBeVisible();
    expect(posts(`${BASE}seek/`)).toEqual([]);
    // Typed, then Enter: the seek call with the time as entered (UTC), and the new clock.
    fireEvent.change(field, { target: { value: '2023-04-12T15:30' } });
    field.focus();
    await user.keyboard('{Enter}');
    expect(await screen.findByText('12 Apr 2023, 15:30 UTC')).toBeVisible();
    expect(posts(`${BASE}seek/`).map((c) => c.body)).toEqual([{ to: '2023-04-12T15:30' }]);
    // Back in time: the server's 400 in its words.
    fireEvent.change(field, { target: { value: '2023-04-11T00:00' } });
    await user.click(within(goTo).getByRole('button', { name: 'Go' }));
    expect(
      await within(bar()).findByText("to: a seek goes forward only; the session's clock is 2023-04-12T15:30:00.000Z"),
    ).toBeVisible();
    expect(screen.getByText('12 Apr 2023, 15:30 UTC')).toBeVisible();
  });

  it("shows the server's answer when a control is refused", async () => {
    const user = userEvent.setup();
    server.on(`${BASE}step/`, () => ({
      status: 409,
      body: { success: false, error: 'The data of this session is over', code: 'REPLAY_FINISHED' },
    }));
    renderWithProviders(<ReplaySessionBar id={5} symbol="EURUSD" />);
    await screen.findByText('10 Apr 2023, 09:00 UTC');
    await user.click(within(bar()).getByRole('button', { name: 'Step 1 day' }));
    expect(await within(bar()).findByText('The data of this session is over')).toBeVisible();
  });
});

describe('where the bar shows', () => {
  beforeEach(() => {
    server.on('/api/trading/accounts/', () => ok(PRACTICE_TRADER_ACCOUNTS));
  });

  it("on the selected practice account's pair page, its session", async () => {
    renderWithProviders(
      <AccountSelectionProvider>
        <ReplayBar symbol="EURUSD" />
      </AccountSelectionProvider>,
      { path: '/pair/EURUSD?account=12' },
    );
    expect(await screen.findByText('10 Apr 2023, 09:00 UTC')).toBeVisible();
  });

  it('nowhere on the primary account', async () => {
    renderWithProviders(
      <AccountSelectionProvider>
        <ReplayBar symbol="EURUSD" />
      </AccountSelectionProvider>,
      { path: '/pair/EURUSD' },
    );
    await waitFor(() => expect(server.callsTo('/api/trading/accounts/')).toHaveLength(1));
    await act(async () => {});
    expect(screen.queryByRole('region', { name: 'Replay' })).not.toBeInTheDocument();
    expect(server.callsTo(BASE)).toEqual([]);
  });
});
