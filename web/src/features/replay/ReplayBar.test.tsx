import type { ReplayDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { makePerformance } from '../performance/testPerformance';
import { allowSlowScreens, ok } from '../trading/testSupport';
import { ReplaySessionBar } from './ReplayBar';
import { makeReplay } from './testReplay';

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

  it('steps a minute, an hour and a day, and shows the new clock', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ReplaySessionBar id={5} symbol="EURUSD" />);
    await screen.findByText('10 Apr 2023, 09:00 UTC');
    const steps = within(bar()).getByRole('group', { name: 'Step' });
    await user.click(within(steps).getByRole('button', { name: 'Step 1 min' }));
    expect(await screen.findByText('10 Apr 2023, 09:01 UTC')).toBeVisible();
    await user.click(within(steps).getByRole('button', { name: 'Step 1 hour' }));
    expect(await screen.findByText('10 Apr 2023, 10:01 UTC')).toBeVisible();
    await user.click(within(steps).getByRole('button', { name: 'Step 1 day' }));
    expect(await screen.findByText('11 Apr 2023, 10:01 UTC')).toBeVisible();
    expect(posts(`${BASE}step/`).map((c) => c.body)).toEqual([{ minutes: 1 }, { minutes: 60 }, { minutes: 1440 }]);
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
