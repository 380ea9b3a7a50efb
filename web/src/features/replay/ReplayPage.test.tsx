import type { ReplayDto } from '@pipdesk/contract';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { makePerformance } from '../performance/testPerformance';
import { allowSlowScreens, ok } from '../trading/testSupport';
import { ReplayPage } from './ReplayPage';
import { makeReplay } from './testReplay';

const LIST = '/api/trading/replays/';
const RANGE_MESSAGE = 'start: the data of these pairs runs from 2023-04-03T12:01:00Z to 2023-05-10T15:00:00Z';
const DATA = '/api/trading/replays/data/';
/** The server's pairs with data (its loaded series), not a list of the web's own. */
const DATA_PAIRS = [
  ['AUDUSD', '2023-04-03T12:01:00.000Z', '2023-05-13T11:00:00.000Z'],
  ['EURCHF', '2023-04-03T12:01:00.000Z', '2023-05-13T11:00:00.000Z'],
  ['EURJPY', '2023-04-03T12:01:00.000Z', '2023-05-13T11:00:00.000Z'],
  ['EURUSD', '2023-04-03T12:01:00.000Z', '2023-05-10T15:00:00.000Z'],
  ['GBPUSD', '2023-04-03T12:01:00.000Z', '2023-05-13T11:00:00.000Z'],
  ['USDJPY', '2023-04-01T08:00:00.000Z', '2023-05-15T11:00:00.000Z'],
].map(([symbol, data_from, data_to]) => ({ symbol, data_from, data_to }));
allowSlowScreens();

let server: FakeAuthServer;
let replays: ReplayDto[];

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
  replays = [];
  server.on(DATA, () => ok({ pairs: DATA_PAIRS }));
  server.on(LIST, (call) => {
    if (call.method !== 'POST') return ok({ replays });
    const body = call.body as { symbols: string[]; start: string };
    if (body.start.startsWith('2020')) {
      return { status: 400, body: { success: false, error: RANGE_MESSAGE, code: 'VALIDATION_ERROR' } };
    }
    const replay = makeReplay({ id: 9, symbols: body.symbols, start: `${body.start}:00.000Z`, clock: `${body.start}:00.000Z` });
    replays = [replay, ...replays];
    return { status: 201, body: { success: true, data: { replay } } };
  });
});

const form = () => screen.getByRole('form', { name: 'New session' });

describe('the Replay page (docs/screens.md#replay)', () => {
  it('names the field a rule breaks and sends nothing', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ReplayPage />);
    await user.click(within(form()).getByRole('button', { name: 'Start session' }));
    expect(await within(form()).findByText('choose 1 to 4 pairs')).toBeVisible();
    expect(within(form()).getByText('must be an ISO 8601 date-time (UTC when no offset)')).toBeVisible();
    for (const symbol of ['AUDUSD', 'EURCHF', 'EURJPY', 'EURUSD', 'GBPUSD']) {
      await user.click(await within(form()).findByRole('checkbox', { name: symbol }));
    }
    await user.click(within(form()).getByRole('button', { name: 'Start session' }));
    expect(await within(form()).findByText('choose 1 to 4 pairs')).toBeVisible();
    expect(server.calls.filter((c) => c.method === 'POST' && c.path === LIST)).toEqual([]);
  });

  it("offers the server's pairs with data, each with its range, and the chosen pairs' common range for the start", async () => {
    const user = userEvent.setup();
    renderWithProviders(<ReplayPage />);
    const eurusd = await within(form()).findByRole('checkbox', { name: 'EURUSD' });
    expect(within(form()).getAllByRole('checkbox')).toHaveLength(6);
    expect(within(form()).queryByRole('checkbox', { name: 'USDCAD' })).toBeNull();
    expect(eurusd).toHaveAccessibleDescription('3 Apr 2023 – 10 May 2023');
    await user.click(eurusd);
    await user.click(within(form()).getByRole('checkbox', { name: 'USDJPY' }));
    // Where both have data: USDJPY's earlier start and later end do not count.
    expect(
      within(form()).getByText('The data of these pairs runs from 03 Apr 2023, 12:01 UTC to 10 May 2023, 15:00 UTC'),
    ).toBeVisible();
    expect(server.callsTo(DATA)).toHaveLength(1);
  });

  it('says when the pairs with data cannot be loaded, and Try Again asks again', async () => {
    const user = userEvent.setup();
    // A 500 is tried three times (app/queryClient.ts) before the form says so.
    const failed = { status: 500, body: { success: false, error: 'Internal server error' } };
    server.script(DATA, failed, failed, failed);
    renderWithProviders(<ReplayPage />);
    const box = await within(form()).findByRole('alert', {}, { timeout: 10_000 });
    expect(box).toHaveTextContent('Internal server error');
    await user.click(within(box).getByRole('button', { name: 'Try Again' }));
    expect(await within(form()).findByRole('checkbox', { name: 'EURUSD' })).toBeVisible();
  });

  it("shows the server's message as it comes: a start outside the data names the range", async () => {
    const user = userEvent.setup();
    renderWithProviders(<ReplayPage />);
    await user.click(await within(form()).findByRole('checkbox', { name: 'EURUSD' }));
    fireEvent.change(within(form()).getByLabelText('Start (UTC)'), { target: { value: '2020-01-01T10:00' } });
    await user.click(within(form()).getByRole('button', { name: 'Start session' }));
    expect(await within(form()).findByText(RANGE_MESSAGE)).toBeVisible();
  });

  it('starts a session with the pairs, the start and the numbers asked, and lists it', async () => {
    const user = userEvent.setup();
    server.on('/api/trading/replays/9/', () => ok({ replay: replays[0], performance: makePerformance() }));
    renderWithProviders(<ReplayPage />);
    expect(await screen.findByText('No session yet')).toBeVisible();
    await user.click(await within(form()).findByRole('checkbox', { name: 'EURUSD' }));
    await user.click(within(form()).getByRole('checkbox', { name: 'USDJPY' }));
    fireEvent.change(within(form()).getByLabelText('Start (UTC)'), { target: { value: '2023-04-10T09:00' } });
    await user.type(within(form()).getByLabelText('Initial balance (USD)'), '5000');
    await user.type(within(form()).getByLabelText('Leverage'), '30');
    await user.click(within(form()).getByRole('button', { name: 'Start session' }));
    await waitFor(() => expect(server.callsTo(LIST).filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(server.callsTo(LIST).find((c) => c.method === 'POST')!.body).toEqual({
      symbols: ['EURUSD', 'USDJPY'],
      start: '2023-04-10T09:00',
      initial_balance: 5000,
      leverage: 30,
    });
    const row = await screen.findByRole('row', { name: /EURUSD, USDJPY/ });
    expect(row).toHaveTextContent('10 Apr 2023, 09:00 UTC');
    expect(row).toHaveTextContent('Paused');
    await waitFor(() => expect(row).toHaveTextContent('+$118.40'));
    expect(row).toHaveTextContent('66.67%');
    expect(within(row).getByRole('link', { name: /Open EURUSD, USDJPY/ })).toHaveAttribute('href', '/pair/EURUSD?account=12');
  });
});

describe('the list of sessions', () => {
  it('shows each session with its statistics, and deletes one only once confirmed', async () => {
    const user = userEvent.setup();
    replays = [makeReplay({ clock: '2023-04-11T01:30:00.000Z', status: 'playing' })];
    server.on('/api/trading/replays/5/', (call) => {
      if (call.method === 'DELETE') {
        const ended = replays[0];
        replays = [];
        return ok({ replay: ended });
      }
      return ok({ replay: replays[0], performance: makePerformance({ net_pnl: -20, closed_trades: 3, win_rate: null }) });
    });
    renderWithProviders(<ReplayPage />);
    const row = await screen.findByRole('row', { name: /EURUSD/ });
    expect(row).toHaveTextContent('10 Apr 2023, 09:00 UTC');
    expect(row).toHaveTextContent('11 Apr 2023, 01:30 UTC');
    expect(row).toHaveTextContent('Playing');
    await waitFor(() => expect(row).toHaveTextContent('-$20.00'));
    expect(within(row).getAllByRole('cell')[5]).toHaveTextContent('3');
    expect(within(row).getAllByRole('cell')[6]).toHaveTextContent('—');

    await user.click(within(row).getByRole('button', { name: /Delete EURUSD/ }));
    const confirm = within(row).getByRole('alertdialog', { name: 'Confirm delete' });
    expect(server.calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await user.click(within(row).getByRole('button', { name: /Delete EURUSD/ }));
    await user.click(within(row).getByRole('button', { name: 'Yes, delete' }));
    expect(await screen.findByText('No session yet')).toBeVisible();
    expect(server.calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual(['/api/trading/replays/5/']);
  });
});
