import type { ChartLayout, PlatformDataDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { AccountSelectionProvider } from '../accounts';
import { EURUSD, FakeSocket, makePair, minuteCandles, USDJPY } from '../market/testMarket';
import { PRACTICE_TRADER_ACCOUNTS } from '../replay/testReplay';
import { ChartsPage } from './ChartsPage';
import { resetFakeCharts } from './testChart';

vi.mock('lightweight-charts', async () => (await import('./testChart')).fakeLightweightCharts);
// The drawings and trade tools over each chart have tests of their own.
vi.mock('./ChartLayers', () => ({ ChartLayers: () => null }));

const NOW = Date.UTC(2026, 2, 12, 10, 30, 20);
const GBPUSD = makePair('GBPUSD', { id: 2, name: 'British Pound / US Dollar' });
const LAYOUT_PATH = '/api/trading/chart-layout/';

let server: FakeAuthServer;
let layout: ChartLayout;
let saved: ChartLayout[];

const platformData: PlatformDataDto = {
  trader_profile: null,
  trading_account: null,
  fx_pairs: [EURUSD, GBPUSD, USDJPY],
  open_positions: [],
  recent_orders: [],
  recent_trades: [],
  trading_mode: 'live',
  pending_orders: [],
};

/** Each chart-data call as `SYMBOL timeframe`. */
function chartsAsked(): string[] {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname.endsWith('/chart-data/'))
    .map((url) => `${url.pathname.split('/')[4]} ${url.searchParams.get('timeframe')}`);
}

const panel = (n: number) => screen.getByTestId(`chart-panel-${n}`).closest('section') as HTMLElement;

beforeEach(() => {
  vi.clearAllMocks();
  resetFakeCharts();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  FakeSocket.install();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  server.on('/api/trading/platform-data/', () => ({ status: 200, body: { success: true, data: platformData } }));
  for (const symbol of ['EURUSD', 'GBPUSD', 'USDJPY'])
    server.on(`/api/trading/pair/${symbol}/chart-data/`, () => ({
      status: 200,
      body: { success: true, data: minuteCandles(300, NOW, 3_600_000) },
    }));
  layout = {
    layout: 2,
    charts: [
      { symbol: 'EURUSD', timeframe: 'h1', indicators: [{ kind: 'sma', period: 20 }] },
      { symbol: 'USDJPY', timeframe: 'm15', indicators: [] },
    ],
    settings: { one_click: false, one_click_lots: 0.01 },
  };
  saved = [];
  server.on(LAYOUT_PATH, (call) => {
    if (call.method === 'PUT') {
      saved.push(call.body as ChartLayout);
      layout = call.body as ChartLayout;
    }
    return { status: 200, body: { success: true, data: layout } };
  });
});

describe('Charts page (docs/screens.md#charts-page)', () => {
  it('shows the saved layout: each chart its own pair, timeframe, indicators and price socket', async () => {
    renderWithProviders(<ChartsPage />);
    expect(await screen.findByRole('region', { name: 'Chart 1: EURUSD H1' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Chart 2: USDJPY M15' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '2 charts' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(chartsAsked().sort()).toEqual(['EURUSD h1', 'USDJPY m15']));
    await waitFor(() => expect(screen.getByTestId('chart-panel-0')).toHaveAttribute('data-candles', '300'));
    expect(within(panel(0)).getByRole('button', { name: 'Indicators (1)' })).toBeInTheDocument();
    for (const socket of FakeSocket.opened) socket.open();
    expect(FakeSocket.opened.map((s) => s.sent[0])).toEqual([
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: 'h1', last_chart_time: expect.any(Number) },
      { type: 'subscribe_prices', symbol: 'USDJPY', timeframe: 'm15', last_chart_time: expect.any(Number) },
    ]);
    expect(saved).toHaveLength(0);
  });

  it('on a practice account, each chart signs its price socket in as that account and asks for its candles', async () => {
    server.on('/api/trading/accounts/', () => ({
      status: 200,
      body: { success: true, data: PRACTICE_TRADER_ACCOUNTS },
    }));
    renderWithProviders(
      <AccountSelectionProvider>
        <ChartsPage />
      </AccountSelectionProvider>,
      { path: '/charts?account=12' },
    );
    await screen.findByRole('region', { name: 'Chart 2: USDJPY M15' });
    // The session's market, not the live one (docs/replay.md#the-price-socket-of-a-practice-account).
    await waitFor(() => expect(FakeSocket.opened.length).toBeGreaterThanOrEqual(2));
    const sockets = FakeSocket.opened.filter((socket) => socket.closedWith === undefined);
    for (const socket of sockets) socket.open();
    await waitFor(() =>
      expect(sockets.map((s) => s.sent[0])).toEqual([
        { type: 'authenticate', token: expect.any(String), account: 12 },
        { type: 'authenticate', token: expect.any(String), account: 12 },
      ]),
    );
    const accountsAsked = server.fetch.mock.calls
      .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
      .filter((url) => url.pathname.endsWith('/chart-data/'))
      .map((url) => url.searchParams.get('account'));
    expect(accountsAsked.length).toBeGreaterThan(0);
    expect(accountsAsked.every((a) => a === '12')).toBe(true);
  });

  it('switches to four charts (new places show pairs not shown yet) and saves the layout after a pause', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ChartsPage />);
    await screen.findByRole('region', { name: 'Chart 2: USDJPY M15' });
    await waitFor(() => expect(within(panel(0)).getByRole('combobox', { name: 'Pair of chart 1' })).toHaveTextContent('GBPUSD'));
    await user.click(screen.getByRole('button', { name: '4 charts' }));
    expect(await screen.findByRole('region', { name: 'Chart 3: GBPUSD H1' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Chart 4: EURUSD H1' })).toBeInTheDocument();
    await waitFor(() => expect(saved).toHaveLength(1), { timeout: 3000 });
    expect(saved[0]).toMatchObject({
      layout: 4,
      charts: [{ symbol: 'EURUSD' }, { symbol: 'USDJPY' }, { symbol: 'GBPUSD' }, { symbol: 'EURUSD' }],
    });

    await user.click(screen.getByRole('button', { name: '1 chart' }));
    await waitFor(() => expect(saved.at(-1)).toMatchObject({ layout: 1, charts: [{ symbol: 'EURUSD', timeframe: 'h1' }] }), {
      timeout: 3000,
    });
    expect(screen.queryByRole('region', { name: /Chart 2/ })).toBeNull();
  });

  it('changes one chart’s pair and timeframe (also by keys 1–7 on the chart last clicked) and keeps the others', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ChartsPage />);
    await screen.findByRole('region', { name: 'Chart 2: USDJPY M15' });
    await waitFor(() => expect(within(panel(0)).getByRole('combobox', { name: 'Pair of chart 1' })).toHaveTextContent('GBPUSD'));

    await user.selectOptions(within(panel(0)).getByRole('combobox', { name: 'Pair of chart 1' }), 'GBPUSD');
    await user.click(within(panel(1)).getByRole('button', { name: 'H4' }));
    expect(await screen.findByRole('region', { name: 'Chart 2: USDJPY H4' })).toBeInTheDocument();
    await user.keyboard('1');
    expect(await screen.findByRole('region', { name: 'Chart 2: USDJPY M1' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Chart 1: GBPUSD H1' })).toBeInTheDocument();
    await waitFor(() => expect(chartsAsked()).toContain('USDJPY m1'));
    await waitFor(
      () =>
        expect(saved.at(-1)?.charts).toEqual([
          { symbol: 'GBPUSD', timeframe: 'h1', indicators: [{ kind: 'sma', period: 20 }] },
          { symbol: 'USDJPY', timeframe: 'm1', indicators: [] },
        ]),
      { timeout: 3000 },
    );
    // Three quick changes, one save.
    expect(saved).toHaveLength(1);
  });
});
