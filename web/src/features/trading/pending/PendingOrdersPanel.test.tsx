import type { OrderDto, PlatformDataDto } from '@pipdesk/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeAuthServer } from '../../../test/fakeAuthServer';
import { DashboardPage } from '../../dashboard/DashboardPage';
import { PairTradingPanels } from '../../pair/PairTradingPanels';
import {
  allowSlowScreens,
  EURUSD,
  establishSocket,
  findNotice,
  holdReply,
  makeOrder,
  makePairPage,
  makePlatformData,
  notifications,
  ok,
  renderTrading,
  startTradingServer,
} from '../testSupport';

// docs/screens.md#pending-orders: the Pending Orders panel, live from the trading socket, with Modify and Cancel.

allowSlowScreens();

const PLATFORM = '/api/trading/platform-data/';
const T1 = '2026-04-01T12:05:00.000Z';

let server: FakeAuthServer;
let platform: PlatformDataDto;

const pending = (overrides: Partial<OrderDto> = {}): OrderDto =>
  makeOrder({
    id: 31,
    order_type: 'LIMIT',
    side: 'BUY',
    quantity: 0.1,
    filled_quantity: 0,
    price: 1.19,
    average_fill_price: null,
    status: 'PENDING',
    position_id: null,
    ...overrides,
  });

beforeEach(() => {
  platform = makePlatformData();
  server = startTradingServer(() => platform);
});

async function renderDashboard() {
  const view = renderTrading(<DashboardPage />);
  const panel = await screen.findByRole('region', { name: 'Pending Orders' });
  const socket = await establishSocket();
  return { ...view, panel, socket };
}

const shownNotices = () =>
  within(notifications())
    .queryAllByRole('listitem')
    .map((li) => li.textContent);

const priceUpdate = (symbol: string, bid: number, ask: number, timestamp: string) =>
  ({ type: 'price_update', symbol, bid, ask, price: (bid + ask) / 2, timestamp }) as const;

describe('Pending Orders on the dashboard', () => {
  it('lists type, side, lots, price, limit, SL/TP, expiry and the distance in pips, live from the prices', async () => {
    platform = makePlatformData({
      pending_orders: [
        pending({ stop_loss: 1.18, take_profit: 1.21, trailing_stop_pips: 15 }),
        pending({
          id: 32,
          fx_pair_symbol: 'USDJPY',
          order_type: 'STOP_LIMIT',
          side: 'SELL',
          price: 149.5,
          limit_price: 149.4,
          time_in_force: 'GTD',
          expires_at: '2026-04-02T12:00:00.000Z',
        }),
      ],
    });
    const { panel, socket } = await renderDashboard();
    expect(within(panel).getByRole('heading', { name: 'Pending Orders' })).toBeVisible();
    const rows = within(panel).getAllByRole('row');
    expect(
      within(rows[0]!)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Pair', 'Type', 'Side', 'Lots', 'Price', 'Limit', 'SL / TP', 'Expiry', 'Distance (pips)', 'Action']);
    expect(rows[1]).toHaveTextContent(/EURUSD.*Limit.*BUY.*0\.10.*1\.19000.*—.*1\.18000 \/ 1\.21000.*trailing 15 pips.*GTC/);
    expect(rows[2]).toHaveTextContent(/USDJPY.*Stop Limit.*SELL.*149\.500.*149\.400/);
    expect(within(rows[2]!).getByRole('time')).toHaveAttribute('datetime', '2026-04-02T12:00:00.000Z');

    act(() => socket.receive(priceUpdate('EURUSD', 1.19994, 1.20006, '2026-04-01T12:10:00.000Z')));
    await waitFor(() => expect(screen.getByTestId('distance-31')).toHaveTextContent('100.6'));
    act(() => socket.receive(priceUpdate('EURUSD', 1.19494, 1.19506, '2026-04-01T12:10:01.000Z')));
    await waitFor(() => expect(screen.getByTestId('distance-31')).toHaveTextContent('50.6'));
    act(() => socket.receive(priceUpdate('USDJPY', 150, 150.012, '2026-04-01T12:10:01.000Z')));
    // A SELL waits for the bid: 150.000 - 149.500 = 50.0 pips of 0.01.
    await waitFor(() => expect(screen.getByTestId('distance-32')).toHaveTextContent('50.0'));
  });

  it('follows order_update without a reload: placed, modified, then filled, cancelled, expired or rejected leave', async () => {
    const { panel, socket } = await renderDashboard();
    expect(within(panel).getByText('No pending orders')).toBeVisible();
    // The reloads the order_updates ask for never answer: what shows comes from the socket messages alone.
    const hang = () => new Promise<{ status: number; body: unknown }>(() => {});
    server.script(PLATFORM, ...Array.from({ length: 20 }, () => hang));

    act(() => socket.receive({ type: 'order_update', data: { order: pending() } }));
    expect(await within(panel).findByRole('button', { name: 'Cancel BUY LIMIT 0.10 EURUSD at 1.19000' })).toBeVisible();
    act(() => socket.receive({ type: 'order_update', data: { order: pending({ id: 33, price: 1.185 }) } }));
    act(() => socket.receive({ type: 'order_update', data: { order: pending({ price: 1.195, updated_at: T1 }) } }));
    await within(panel).findByRole('button', { name: 'Cancel BUY LIMIT 0.10 EURUSD at 1.19500' });
    expect(within(panel).getAllByRole('row')).toHaveLength(3);

    for (const status of ['FILLED', 'CANCELLED', 'EXPIRED', 'REJECTED'] as const) {
      act(() => socket.receive({ type: 'order_update', data: { order: pending({ id: 40, price: 1.18 }) } }));
      await within(panel).findByRole('button', { name: 'Cancel BUY LIMIT 0.10 EURUSD at 1.18000' });
      act(() => socket.receive({ type: 'order_update', data: { order: pending({ id: 40, price: 1.18, status }) } }));
      await waitFor(() => expect(within(panel).queryByRole('button', { name: /at 1\.18000$/ })).toBeNull());
      expect(within(panel).getAllByRole('row')).toHaveLength(3);
    }
  });

  it('a non-fill order_update reloads Recent Orders (a cancel made elsewhere shows there)', async () => {
    platform = makePlatformData({ pending_orders: [pending()] });
    const { panel, socket } = await renderDashboard();
    await within(panel).findByRole('button', { name: /^Cancel BUY LIMIT/ });
    const loads = server.callsTo(PLATFORM).length;
    const cancelled = pending({ status: 'CANCELLED', updated_at: T1 });
    platform = makePlatformData({ recent_orders: [cancelled] });
    act(() => socket.receive({ type: 'order_update', data: { order: cancelled } }));
    await waitFor(() => expect(server.callsTo(PLATFORM).length).toBeGreaterThan(loads));
    const recent = screen.getByRole('region', { name: 'Recent Orders' });
    expect(await within(recent).findByText('Cancelled')).toBeVisible();
    expect(within(panel).getByText('No pending orders')).toBeVisible();
  });

  it('Cancel sends the cancel, the row leaves, and one notice shows though the socket reports it too', async () => {
    platform = makePlatformData({ pending_orders: [pending()] });
    const user = userEvent.setup();
    const { panel, socket } = await renderDashboard();
    const cancelled = pending({ status: 'CANCELLED', updated_at: T1 });
    const answer = holdReply(server, '/api/trading/orders/31/cancel/', ok({ order: cancelled }));
    await user.click(within(panel).getByRole('button', { name: 'Cancel BUY LIMIT 0.10 EURUSD at 1.19000' }));
    const busy = await within(panel).findByRole('button', { name: 'Cancelling BUY LIMIT 0.10 EURUSD at 1.19000' });
    expect(busy).toHaveTextContent('Cancelling...');
    expect(server.callsTo('/api/trading/orders/31/cancel/')[0]?.method).toBe('POST');
    platform = makePlatformData({ recent_orders: [cancelled] });
    act(() => answer());
    expect(await findNotice('BUY LIMIT 0.10 EURUSD at 1.19000')).toHaveTextContent('Order cancelled');
    await waitFor(() => expect(within(panel).getByText('No pending orders')).toBeVisible());
    act(() => socket.receive({ type: 'order_update', data: { order: cancelled } }));
    expect(shownNotices()).toHaveLength(1);
  });

  it('a refused cancel (it filled meanwhile) says why in a notice', async () => {
    platform = makePlatformData({ pending_orders: [pending()] });
    const { panel } = await renderDashboard();
    server.script('/api/trading/orders/31/cancel/', {
      status: 409,
      body: { success: false, error: 'Order is not pending', code: 'ORDER_NOT_PENDING' },
    });
    await userEvent.setup().click(within(panel).getByRole('button', { name: /^Cancel BUY LIMIT/ }));
    expect(await findNotice('Order is not pending')).toHaveTextContent('Failed to cancel order');
  });

  describe('Modify', () => {
    async function openModify() {
      platform = makePlatformData({ pending_orders: [pending({ stop_loss: 1.18 })] });
      const user = userEvent.setup();
      const { panel, socket } = await renderDashboard();
      act(() => socket.receive(priceUpdate('EURUSD', 1.19994, 1.20006, '2026-04-01T12:10:00.000Z')));
      await user.click(within(panel).getByRole('button', { name: 'Modify BUY LIMIT 0.10 EURUSD at 1.19000' }));
      const form = within(panel).getByRole('form', { name: 'Modify BUY Limit 0.10 EURUSD order' });
      return { user, panel, form, socket };
    }

    it('checks as the server does before sending: a BUY LIMIT below the ask, SL below the price', async () => {
      const { user, form } = await openModify();
      const price = within(form).getByLabelText('Price');
      expect(price).toHaveFocus();
      expect(price).toHaveValue('1.19000');
      await user.clear(price);
      await user.type(price, '1.2001');
      expect(within(form).getByText('Price a BUY LIMIT must be below the ask (1.20006)')).toBeVisible();
      expect(price).toHaveAccessibleDescription('Price a BUY LIMIT must be below the ask (1.20006)');
      expect(within(form).getByRole('button', { name: 'Save Changes' })).toBeDisabled();
      await user.clear(price);
      await user.type(price, '1.17');
      expect(within(form).getByText('Stop loss must be below the entry price (1.17000) for a long position')).toBeVisible();
      await user.click(within(form).getByRole('button', { name: 'Discard' }));
      expect(screen.queryByRole('form', { name: /^Modify/ })).toBeNull();
      expect(server.calls.filter((c) => c.method === 'PATCH')).toHaveLength(0);
    });

    it("sends only what changed (an emptied stop loss as null), shows one notice, and the row's new values", async () => {
      const { user, panel, form, socket } = await openModify();
      const modified = pending({ price: 1.195, stop_loss: null, trailing_stop_pips: 20, updated_at: T1 });
      server.on('/api/trading/orders/31/', () => ok({ order: modified }));
      await user.clear(within(form).getByLabelText('Price'));
      await user.type(within(form).getByLabelText('Price'), '1.195');
      await user.clear(within(form).getByLabelText('Stop loss'));
      await user.type(within(form).getByLabelText('Trailing stop (pips)'), '20');
      platform = makePlatformData({ pending_orders: [modified] });
      await user.click(within(form).getByRole('button', { name: 'Save Changes' }));
      const patch = server.callsTo('/api/trading/orders/31/');
      expect(patch.map((c) => [c.method, c.body])).toEqual([
        ['PATCH', { price: 1.195, stop_loss: null, trailing_stop_pips: 20 }],
      ]);
      expect(await findNotice('BUY LIMIT 0.10 EURUSD at 1.19500')).toHaveTextContent('Order modified');
      await waitFor(() => expect(screen.queryByRole('form', { name: /^Modify/ })).toBeNull());
      expect(within(panel).getByRole('button', { name: 'Modify BUY LIMIT 0.10 EURUSD at 1.19500' })).toHaveFocus();
      expect(within(panel).getAllByRole('row')[1]).toHaveTextContent('trailing 20 pips');
      act(() => socket.receive({ type: 'order_update', data: { order: modified } }));
      expect(shownNotices()).toHaveLength(1);
    });

    it("shows the server's 400 in the form and keeps it open", async () => {
      const { user, form } = await openModify();
      server.on('/api/trading/orders/31/', () => ({
        status: 400,
        body: { success: false, error: 'price: a BUY LIMIT must be below the ask (1.19)', code: 'VALIDATION_ERROR' },
      }));
      await user.clear(within(form).getByLabelText('Price'));
      await user.type(within(form).getByLabelText('Price'), '1.1905');
      await user.click(within(form).getByRole('button', { name: 'Save Changes' }));
      expect(await within(form).findByRole('alert')).toHaveTextContent('price: a BUY LIMIT must be below the ask (1.19)');
      expect(screen.getByRole('form', { name: /^Modify/ })).toBeVisible();
    });

    it('GTD shows an expiry field; the keyboard alone can open, fill and discard the form', async () => {
      const { user, form } = await openModify();
      await user.selectOptions(within(form).getByLabelText('Time in force'), 'GTD');
      expect(within(form).getByLabelText('Expiry')).toHaveAttribute('type', 'datetime-local');
      expect(within(form).getByText('Expiry is required for a GTD order')).toBeVisible();
      await user.keyboard('{Escape}');
      expect(screen.queryByRole('form', { name: /^Modify/ })).toBeNull();
    });
  });
});

describe('Pending Orders on the pair page', () => {
  it("lists the pair's orders only, and an order_update of another pair leaves it alone", async () => {
    const price = { bid: 1.19994, ask: 1.20006, mid: 1.2, price: 1.2, timestamp: '2026-04-01T12:00:00.000Z' };
    let pairPage = makePairPage(EURUSD, price, { pending_orders: [pending()] });
    server.on('/api/trading/pair/EURUSD/', () => ok(pairPage));
    renderTrading(<PairTradingPanels pair={EURUSD} />, { path: '/pair/EURUSD' });
    const panel = await screen.findByRole('region', { name: 'Pending Orders' });
    expect(within(panel).getByRole('heading', { name: 'Pending Orders · EURUSD' })).toBeVisible();
    await within(panel).findByRole('button', { name: /^Cancel BUY LIMIT 0\.10 EURUSD/ });
    expect(within(panel).queryByRole('columnheader', { name: 'Pair' })).toBeNull();
    const socket = await establishSocket();
    act(() =>
      socket.receive({
        type: 'order_update',
        data: { order: pending({ id: 50, fx_pair_symbol: 'USDJPY', price: 149.5 }) },
      }),
    );
    const placed = pending({ id: 51, price: 1.18 });
    // The server's list has it too (the order_update asks for a reload).
    pairPage = { ...pairPage, pending_orders: [pending(), placed] };
    act(() => socket.receive({ type: 'order_update', data: { order: placed } }));
    await within(panel).findByRole('button', { name: 'Cancel BUY LIMIT 0.10 EURUSD at 1.18000' });
    expect(within(panel).queryByText('USDJPY')).toBeNull();
  });
});
