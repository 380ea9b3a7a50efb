import { type ChartLayout, DEFAULT_CHART_LAYOUT } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';
import { PairOrderForm } from '../trading/PairOrderForm';
import {
  allowSlowScreens,
  CATALOGUE,
  EURUSD,
  makeAccount,
  makeOrder,
  makePlatformData,
  makePosition,
  ok,
  renderTrading,
  startTradingServer,
} from '../trading/testSupport';
import { HotkeysHelp } from './HotkeysHelp';

// The keyboard shortcuts (docs/charting.md#one-click-trading-and-hotkeys).

allowSlowScreens();

const PLACE = '/api/trading/place-market-order/';
let server: FakeAuthServer;
let layout: ChartLayout;

beforeEach(() => {
  layout = DEFAULT_CHART_LAYOUT;
  server = startTradingServer(() => makePlatformData());
  server.on('/api/trading/chart-layout/', () => ok(layout));
  server.on(PLACE, (call) => {
    const body = call.body as { side: 'BUY' | 'SELL'; quantity: number };
    return ok({
      order: makeOrder({ side: body.side, quantity: body.quantity, filled_quantity: body.quantity }),
      position: makePosition(),
      execution_details: { execution_price: 1.2, margin_required: 12, units: 1, executed_at: '2026-04-01T12:00:00.000Z' },
    });
  });
});

describe('the shortcuts help', () => {
  it('opens with ?, lists the keys, closes with Esc; ? typed in a field is only a character', async () => {
    const user = userEvent.setup();
    renderTrading(
      <>
        <input aria-label="Search" />
        <HotkeysHelp />
      </>,
    );
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'why?');
    expect(screen.getByRole('textbox', { name: 'Search' })).toHaveValue('why?');
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.click(document.body);
    await user.keyboard('?');
    const dialog = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const key of ['B', 'S', 'Alt+A', '1–7', 'Esc', '?']) expect(within(dialog).getByText(key)).toBeInTheDocument();
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('B and S on the pair page', () => {
  const renderPairForm = () =>
    renderTrading(<PairOrderForm pair={EURUSD} account={makeAccount()} pairs={CATALOGUE} mid={() => 1.2} />);

  it("asks first, then buys at the ticket's lot size; ignored while typing in Lot Size", async () => {
    const user = userEvent.setup();
    renderPairForm();
    const lots = await screen.findByLabelText('Lot Size');
    await user.clear(lots);
    await user.type(lots, '0.3');
    // Typed in the field: no order, no dialog (S would otherwise sell).
    await user.keyboard('s');
    expect(screen.queryByRole('alertdialog')).toBeNull();

    await user.click(document.body);
    await user.keyboard('b');
    const confirm = await screen.findByRole('alertdialog', { name: 'Confirm BUY' });
    expect(confirm).toHaveTextContent('BUY 0.30 EURUSD at the market?');
    expect(server.callsTo(PLACE)).toHaveLength(0);
    await user.click(within(confirm).getByRole('button', { name: 'BUY 0.30 EURUSD' }));
    await waitFor(() => expect(server.callsTo(PLACE)).toHaveLength(1));
    expect(server.callsTo(PLACE)[0]?.body).toEqual({ symbol: 'EURUSD', side: 'BUY', quantity: 0.3 });

    // Esc answers no.
    await user.keyboard('s');
    await screen.findByRole('alertdialog', { name: 'Confirm SELL' });
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(server.callsTo(PLACE)).toHaveLength(1);
  });

  it('sells at once while one-click trading is on', async () => {
    const user = userEvent.setup();
    layout = { ...DEFAULT_CHART_LAYOUT, settings: { one_click: true, one_click_lots: 1 } };
    renderPairForm();
    await screen.findByLabelText('Lot Size');
    await user.keyboard('s');
    await waitFor(() => expect(server.callsTo(PLACE)).toHaveLength(1));
    expect(server.callsTo(PLACE)[0]?.body).toEqual({ symbol: 'EURUSD', side: 'SELL', quantity: 0.01 });
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
