import type { PlatformDataDto } from '@pipdesk/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';
import {
  CATALOGUE,
  establishSocket,
  FakeSocket,
  findNotice,
  holdReply,
  makeAccount,
  makeOrder,
  makePair,
  makePlatformData,
  makePosition,
  makePrices,
  renderTrading,
  startTradingServer,
} from '../trading/testSupport';
import { DashboardPage } from './DashboardPage';

const PLATFORM = '/api/trading/platform-data/';
const PLACE = '/api/trading/place-market-order/';

let server: FakeAuthServer;
let platform: PlatformDataDto;

beforeEach(() => {
  platform = makePlatformData();
  server = startTradingServer(() => platform);
});

function renderDashboard() {
  return renderTrading(
    <Routes>
      <Route path="/" element={<DashboardPage />} />
      <Route path="/orders" element={<h1>Order History screen</h1>} />
    </Routes>,
  );
}

const feedBadge = () => screen.getByRole('status', { name: 'Data feed' });
const card = (testId: string) => screen.getByTestId(testId);
const submitButton = () => screen.getByRole('button', { name: /^(Place Order|Placing Order\.\.\.)$/ });
const lotSize = () => screen.getByLabelText('Lot Size') as HTMLInputElement;
const pairSelect = () => screen.getByLabelText('Currency Pair') as HTMLSelectElement;

describe('dashboard (docs/screens.md#dashboard)', () => {
  it('shows Polling Mode (5s) until the trading socket is established, then Live Updates', async () => {
    renderDashboard();
    expect(feedBadge()).toHaveTextContent(/^Polling Mode \(5s\)$/);
    await establishSocket();
    expect(feedBadge()).toHaveTextContent(/^Live Updates$/);
    act(() => FakeSocket.last!.serverClose(1006));
    expect(feedBadge()).toHaveTextContent(/^Polling Mode \(5s\)$/);
  });

  it('shows the four account cards: Balance links to /orders with its hover text, leverage as N:1', async () => {
    platform = makePlatformData({
      trading_account: makeAccount({
        balance: 10_250.5,
        equity: 10_240.1,
        margin_used: 1_200,
        free_margin: 9_040.1,
        leverage: 100,
      }),
    });
    const user = userEvent.setup();
    renderDashboard();
    expect(await screen.findByTestId('account-balance')).toHaveTextContent('$10,250.50');
    expect(card('account-margin-used')).toHaveTextContent('$1,200.00');
    expect(card('account-free-margin')).toHaveTextContent('$9,040.10');
    expect(card('account-leverage')).toHaveTextContent('100:1');
    const balance = screen.getByRole('link', { name: /Balance/ });
    expect(balance).toHaveAttribute('title', 'View transaction history');
    expect(balance).toHaveAttribute('href', '/orders');
    for (const label of ['Balance', 'Margin Used', 'Free Margin', 'Leverage']) expect(screen.getByText(label)).toBeVisible();
    await user.click(balance);
    expect(await screen.findByRole('heading', { name: 'Order History screen' })).toBeVisible();
  });

  it('moves the figures on screen with the live account_update and pnl_batch_update, without reloading', async () => {
    platform = makePlatformData({ open_positions: [makePosition({ id: 11, unrealized_pnl: -2.2 })] });
    renderDashboard();
    await screen.findByTestId('account-margin-used');
    await establishSocket();
    const loads = server.callsTo(PLATFORM).length;

    act(() =>
      FakeSocket.last!.receive({
        type: 'account_update',
        data: {
          balance: 10_000,
          equity: 10_016.4,
          margin_used: 108.72,
          free_margin: 9_907.68,
          margin_level: 9213.0,
          leverage: 100,
        },
      }),
    );
    // react-query tells its observers on the next tick.
    await waitFor(() => expect(card('account-margin-used')).toHaveTextContent('$108.72'));
    expect(card('account-free-margin')).toHaveTextContent('$9,907.68');
    expect(card('account-equity')).toHaveTextContent('$10,016.40');

    act(() =>
      FakeSocket.last!.receive({
        type: 'pnl_batch_update',
        updates: [{ position_id: 11, unrealized_pnl: 16.4, current_price: 1.0889 }],
      }),
    );
    await waitFor(() => expect(screen.getByTestId('pnl-11')).toHaveTextContent('+$16.40'));
    const pnl = screen.getByTestId('pnl-11');
    expect(pnl).toHaveClass('num--profit');
    expect(within(screen.getByRole('region', { name: 'Open Positions' })).getByText('1.08890')).toBeVisible();
    act(() =>
      FakeSocket.last!.receive({
        type: 'pnl_batch_update',
        updates: [{ position_id: 11, unrealized_pnl: -5, current_price: 1.087 }],
      }),
    );
    await waitFor(() => expect(screen.getByTestId('pnl-11')).toHaveTextContent('-$5.00'));
    expect(screen.getByTestId('pnl-11')).toHaveClass('num--loss');
    expect(server.callsTo(PLATFORM)).toHaveLength(loads);
  });

  it('lists only OPEN positions with a nonzero quantity, and follows positions_update', async () => {
    platform = makePlatformData({
      open_positions: [
        makePosition({ id: 11, fx_pair_symbol: 'EURUSD' }),
        makePosition({ id: 12, fx_pair_symbol: 'USDJPY', status: 'CLOSED', side: 'FLAT', quantity: 0 }),
        makePosition({ id: 13, fx_pair_symbol: 'EURJPY', quantity: 0, side: 'FLAT' }),
      ],
    });
    renderDashboard();
    const positions = await screen.findByRole('region', { name: 'Open Positions' });
    await within(positions).findByRole('link', { name: 'EURUSD' });
    expect(within(positions).queryByText('USDJPY')).toBeNull();
    expect(within(positions).queryByText('EURJPY')).toBeNull();
    expect(within(positions).getByRole('link', { name: 'EURUSD' })).toHaveAttribute('href', '/pair/EURUSD');

    await establishSocket();
    act(() =>
      FakeSocket.last!.receive({
        type: 'positions_update',
        data: [makePosition({ id: 14, fx_pair_symbol: 'USDJPY', side: 'SHORT', quantity: -0.25, average_entry_price: 151.234 })],
      }),
    );
    await waitFor(() => expect(within(positions).queryByText('EURUSD')).toBeNull());
    const row = within(positions).getByRole('link', { name: 'USDJPY' }).closest('tr')!;
    expect(row).toHaveTextContent('SHORT');
    expect(row).toHaveTextContent('0.25');
    expect(row).toHaveTextContent('151.234');
  });

  it('asks for the positions again on order_confirmation and reloads the recent orders', async () => {
    renderDashboard();
    await screen.findByTestId('account-balance');
    await establishSocket();
    const loads = server.callsTo(PLATFORM).length;
    const order = makeOrder({ id: 99 });
    platform = makePlatformData({ recent_orders: [order] });
    act(() =>
      FakeSocket.last!.receive({
        type: 'order_confirmation',
        data: { order, position: makePosition(), execution_details: null },
      }),
    );
    expect(FakeSocket.last!.sentTypes().filter((t) => t === 'get_positions_update')).toHaveLength(2);
    await waitFor(() => expect(server.callsTo(PLATFORM).length).toBeGreaterThan(loads));
    expect(await within(screen.getByRole('region', { name: 'Recent Orders' })).findByText('Filled')).toBeVisible();
  });

  it('shows Recent Orders with View All Orders, the status and a rejection reason', async () => {
    platform = makePlatformData({
      recent_orders: [
        makeOrder({ id: 1, side: 'SELL', fx_pair_symbol: 'USDJPY', average_fill_price: 151.2345, quantity: 0.5 }),
        makeOrder({
          id: 2,
          status: 'REJECTED',
          average_fill_price: null,
          filled_quantity: 0,
          quantity: 50,
          rejection_reason: 'Insufficient free margin: this order needs 6,000.00 USD of margin and 10,000.00 USD is free',
        }),
      ],
    });
    renderDashboard();
    const recent = await screen.findByRole('region', { name: 'Recent Orders' });
    expect(within(recent).getByRole('link', { name: 'View All Orders' })).toHaveAttribute('href', '/orders');
    const rows = await within(recent).findAllByRole('row');
    expect(rows[1]).toHaveTextContent('USDJPY');
    expect(rows[1]).toHaveTextContent('SELL');
    expect(rows[1]).toHaveTextContent('151.235');
    expect(rows[2]).toHaveTextContent('Rejected');
    expect(rows[2]).toHaveTextContent(
      'Insufficient free margin: this order needs 6,000.00 USD of margin and 10,000.00 USD is free',
    );
    expect(rows[2]).toHaveTextContent('50.00');
  });

  it.each([
    ['the account', { trading_account: null }],
    ['the trader profile', { trader_profile: null, trading_account: null }],
  ])('shows Trading Not Available when %s is missing', async (_what, overrides) => {
    platform = makePlatformData(overrides);
    renderDashboard();
    const notice = await screen.findByText(/Trading Not Available/);
    expect(notice.closest('[role="status"]')).toHaveTextContent(
      /^Trading Not Available: Please complete your registration process to access trading\.$/,
    );
    expect(screen.queryByRole('form', { name: 'Place Market Order' })).toBeNull();
    expect(screen.queryByTestId('account-balance')).toBeNull();
  });

  describe('load failure (docs/screens.md#error-texts)', () => {
    it("shows the server's error with Try Again, which loads the dashboard", async () => {
      const user = userEvent.setup();
      // A 5xx is retried twice by the query client before the screen reports it.
      const down = { status: 503, body: { success: false, error: 'Database unavailable', code: 'UNAVAILABLE' } };
      server.script(PLATFORM, down, down, down);
      renderDashboard();
      const box = await screen.findByRole('alert', {}, { timeout: 6_000 });
      expect(box).toHaveTextContent('Database unavailable');
      await user.click(within(box).getByRole('button', { name: 'Try Again' }));
      expect(await screen.findByTestId('account-balance')).toHaveTextContent('$10,000.00');
      expect(screen.queryByText('Database unavailable')).toBeNull();
    });

    it('says Failed to load trading data when the server gives no reason, and Dismiss hides the box', async () => {
      const user = userEvent.setup();
      server.on(PLATFORM, () => ({ status: 400, body: {} }));
      renderDashboard();
      const box = await screen.findByRole('alert');
      expect(box).toHaveTextContent('Failed to load trading data');
      await user.click(within(box).getByRole('button', { name: 'Dismiss' }));
      expect(screen.queryByText('Failed to load trading data')).toBeNull();
    });

    it('says An unexpected error occurred when the server cannot be reached, never Failed to fetch', async () => {
      server.on(PLATFORM, () => 'network-error');
      renderDashboard();
      const box = await screen.findByRole('alert', {}, { timeout: 6_000 });
      expect(box).toHaveTextContent('An unexpected error occurred');
      expect(box).not.toHaveTextContent('Failed to fetch');
    });

    it('keeps a Try Again in reach after Dismiss, never an empty page', async () => {
      const user = userEvent.setup();
      server.script(PLATFORM, { status: 400, body: {} });
      renderDashboard();
      await user.click(within(await screen.findByRole('alert')).getByRole('button', { name: 'Dismiss' }));
      expect(screen.queryByRole('alert')).toBeNull();
      expect(screen.getByText('Trading data is not loaded.')).toBeVisible();
      await user.click(screen.getByRole('button', { name: 'Try Again' }));
      expect(await screen.findByTestId('account-balance')).toHaveTextContent('$10,000.00');
      expect(screen.queryByText('Trading data is not loaded.')).toBeNull();
    });
  });
});

describe('Close in Open Positions (docs/screens.md#closing-a-position, as on the pair page)', () => {
  const CLOSE = '/api/trading/close-position/11/';
  const positions = () => screen.getByRole('region', { name: 'Open Positions' });
  const clickClose = async () => {
    const card = await screen.findByRole('region', { name: 'Open Positions' });
    await userEvent.setup().click(await within(card).findByRole('button', { name: 'Close EURUSD position' }));
  };

  beforeEach(() => {
    platform = makePlatformData({ open_positions: [makePosition({ id: 11, side: 'LONG', quantity: 0.1 })] });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('asks the same confirmation; cancelled, nothing is sent', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false);
    renderDashboard();
    await clickClose();
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to close this position?');
    expect(server.callsTo(CLOSE)).toHaveLength(0);
  });

  it('confirmed: reads Closing..., sends the bid the trader saw, reports the close and reloads', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const answer = holdReply(server, CLOSE, {
      status: 200,
      body: {
        success: true,
        data: {
          profit_loss: 12.5,
          close_price: 1.19994,
          order: makeOrder({ id: 40, side: 'SELL', reason: 'close', average_fill_price: 1.19994 }),
          position: makePosition({ side: 'FLAT', quantity: 0, status: 'CLOSED' }),
        },
      },
    });
    renderDashboard();
    await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
    await clickClose();
    const closing = await within(positions()).findByRole('button', { name: 'Closing EURUSD position' });
    expect(closing).toHaveTextContent('Closing...');
    expect(closing).toBeDisabled();
    expect(server.callsTo(CLOSE)[0]?.body).toEqual({ current_price: makePrices({ EURUSD: 1.2 }).EURUSD!.bid });
    const loads = server.callsTo(PLATFORM).length;
    platform = makePlatformData();
    act(() => answer());
    expect(await findNotice('SELL 0.10 EURUSD filled at 1.19994')).toHaveTextContent('Position closed');
    await waitFor(() => expect(server.callsTo(PLATFORM).length).toBeGreaterThan(loads));
    expect(await within(positions()).findByText('No open positions')).toBeVisible();
  });

  it("a failure shows the pair page's texts in a notice, never window.alert", async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    server.script(CLOSE, { status: 409, body: { success: false, error: 'Position is already closed', code: 'POSITION_CLOSED' } });
    renderDashboard();
    await clickClose();
    expect(await findNotice('Error: Position is already closed')).toBeVisible();
    expect(alert).not.toHaveBeenCalled();
  });
});

describe('Place Market Order form (docs/screens.md#order-forms)', () => {
  async function ready() {
    renderDashboard();
    await screen.findByRole('form', { name: 'Place Market Order' });
  }

  it('starts with no pair, BUY, lot size 0.01 (step 0.01) and the fallback bounds 0.01 to 100 in the hint', async () => {
    await ready();
    expect(pairSelect().value).toBe('');
    expect(screen.getByRole('radio', { name: 'BUY' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'SELL' })).not.toBeChecked();
    expect(lotSize().value).toBe('0.01');
    expect(lotSize()).toHaveAttribute('step', '0.01');
    expect(lotSize()).toHaveAttribute('min', '0.01');
    expect(lotSize()).toHaveAttribute('max', '100');
    expect(screen.getByText('Minimum: 0.01, Maximum: 100.00')).toBeVisible();
    expect(lotSize()).toHaveAccessibleDescription('Minimum: 0.01, Maximum: 100.00');
  });

  it('takes the bounds from the selected pair, with the fallbacks for a bound it lacks', async () => {
    const user = userEvent.setup();
    platform = makePlatformData({
      fx_pairs: [
        ...CATALOGUE,
        makePair({ id: 40, symbol: 'GBPUSD', name: 'British Pound / US Dollar', min_lot_size: 0.1, max_lot_size: 50 }),
      ],
    });
    await ready();
    await user.selectOptions(pairSelect(), '40');
    expect(screen.getByText('Minimum: 0.10, Maximum: 50.00')).toBeVisible();
    expect(lotSize()).toHaveAttribute('min', '0.1');
    expect(lotSize()).toHaveAttribute('max', '50');
    expect(screen.getByText('Lot size must be at least 0.10')).toBeVisible();
    expect(submitButton()).toBeDisabled();
  });

  it('keeps submit disabled unless a pair, a side and a lot size above 0 are set', async () => {
    const user = userEvent.setup();
    await ready();
    expect(submitButton()).toBeDisabled();
    await user.selectOptions(pairSelect(), String(CATALOGUE[0]!.id));
    expect(submitButton()).toBeEnabled();
    for (const text of ['0', '-1', '']) {
      await user.clear(lotSize());
      if (text) await user.type(lotSize(), text);
      expect(submitButton()).toBeDisabled();
    }
    await user.type(lotSize(), '0.5');
    expect(submitButton()).toBeEnabled();
    // Beyond the pair's bounds or off the 0.01 step, the server would refuse it: not sendable either.
    await user.clear(lotSize());
    await user.type(lotSize(), '100.01');
    expect(submitButton()).toBeDisabled();
    expect(screen.getByText('Lot size must be at most 100.00')).toBeVisible();
    await user.clear(lotSize());
    await user.type(lotSize(), '0.015');
    expect(screen.getByText('Lot size must be in steps of 0.01')).toBeVisible();
    expect(submitButton()).toBeDisabled();
  });

  it('says Please fill in all required fields when sent without a pair', async () => {
    await ready();
    act(() => (screen.getByRole('form', { name: 'Place Market Order' }) as HTMLFormElement).requestSubmit());
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Please fill in all required fields$/);
    expect(server.callsTo(PLACE)).toHaveLength(0);
  });

  it('says Invalid currency pair selected when the chosen pair has left the catalogue', async () => {
    const user = userEvent.setup();
    const { queryClient } = renderDashboard();
    await screen.findByRole('form', { name: 'Place Market Order' });
    await user.selectOptions(pairSelect(), String(CATALOGUE[2]!.id));
    platform = makePlatformData({ fx_pairs: CATALOGUE.slice(0, 2) });
    await act(() => queryClient.invalidateQueries());
    await waitFor(() => expect(screen.queryByRole('option', { name: /EURJPY/ })).toBeNull());
    await user.click(submitButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Invalid currency pair selected$/);
    expect(server.callsTo(PLACE)).toHaveLength(0);
  });

  it('sends the order, reads Placing Order... while pending, then resets the form and reloads the data', async () => {
    const user = userEvent.setup();
    const answer = holdReply(server, PLACE, {
      status: 201,
      body: {
        success: true,
        data: {
          order: makeOrder({ id: 5, side: 'SELL', quantity: 0.25, filled_quantity: 0.25, average_fill_price: 1.19994 }),
          position: makePosition({ side: 'SHORT', quantity: -0.25 }),
          execution_details: {
            execution_price: 1.19994,
            margin_required: 300,
            units: 25_000,
            executed_at: '2026-04-01T12:00:00Z',
          },
        },
      },
    });
    await ready();
    await user.selectOptions(pairSelect(), String(CATALOGUE[0]!.id));
    await user.click(screen.getByRole('radio', { name: 'SELL' }));
    await user.clear(lotSize());
    await user.type(lotSize(), '0.25');
    const loads = server.callsTo(PLATFORM).length;
    await user.click(submitButton());

    const busy = await screen.findByRole('button', { name: 'Placing Order...' });
    expect(busy).toBeDisabled();
    expect(server.callsTo(PLACE)[0]?.body).toEqual({ symbol: 'EURUSD', side: 'SELL', quantity: 0.25 });
    const sent = server.fetch.mock.calls.find(([input]) => String(input).includes(PLACE));
    expect(new Headers(sent?.[1]?.headers).get('Idempotency-Key')).toMatch(/\S{8,}/);

    act(() => answer());
    expect(await screen.findByText('SELL 0.25 EURUSD filled at 1.19994')).toBeVisible();
    expect(pairSelect().value).toBe('');
    expect(screen.getByRole('radio', { name: 'BUY' })).toBeChecked();
    expect(lotSize().value).toBe('0.01');
    expect(submitButton()).toHaveTextContent('Place Order');
    await waitFor(() => expect(server.callsTo(PLATFORM).length).toBeGreaterThan(loads));
  });

  describe('order errors in the dismissible banner, with docs/screens.md#error-texts precedence', () => {
    async function placeWith(reply: Parameters<FakeAuthServer['script']>[1]) {
      const user = userEvent.setup();
      server.script(PLACE, reply);
      await ready();
      await user.selectOptions(pairSelect(), String(CATALOGUE[0]!.id));
      await user.click(submitButton());
      return { user, banner: await screen.findByRole('alert') };
    }

    it("shows the server's error (a rejected order) and reloads, since the rejection is stored", async () => {
      const loads = server.callsTo(PLATFORM).length;
      const { user, banner } = await placeWith({
        status: 422,
        body: {
          success: false,
          error: 'Insufficient free margin: this order needs 60,000.00 USD of margin and 10,000.00 USD is free',
          code: 'INSUFFICIENT_MARGIN',
          data: { order: makeOrder({ status: 'REJECTED' }) },
        },
      });
      expect(banner).toHaveTextContent(
        /^Insufficient free margin: this order needs 60,000.00 USD of margin and 10,000.00 USD is free$/,
      );
      await waitFor(() => expect(server.callsTo(PLATFORM).length).toBeGreaterThan(loads));
      await user.click(within(banner).getByRole('button', { name: 'Dismiss' }));
      expect(screen.queryByRole('alert')).toBeNull();
      // The form keeps what the trader typed, to adjust and send again.
      expect(pairSelect().value).toBe(String(CATALOGUE[0]!.id));
    });

    it('says Failed to place order when the server gives no reason', async () => {
      const { banner } = await placeWith({ status: 500, body: { success: false } });
      expect(banner).toHaveTextContent(/^Failed to place order$/);
    });

    it('says An error occurred while placing the order when the server cannot be reached, never Failed to fetch', async () => {
      const { banner } = await placeWith('network-error');
      expect(banner).toHaveTextContent(/^An error occurred while placing the order$/);
    });

    it('says An error occurred while placing the order when the failure has no message', async () => {
      const { banner } = await placeWith(() => Promise.reject(new TypeError('')));
      expect(banner).toHaveTextContent(/^An error occurred while placing the order$/);
    });
  });
});
