import type { PlatformDataDto, PositionDto } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeAuthServer } from '../../../test/fakeAuthServer';
import { DashboardPage } from '../../dashboard/DashboardPage';
import {
  allowSlowScreens,
  findNotice,
  makeOrder,
  makePlatformData,
  makePosition,
  ok,
  renderTrading,
  startTradingServer,
  tradingPrices,
} from '../testSupport';

// docs/screens.md#positions-protection: SL, TP and trailing edited in place; a partial close.

allowSlowScreens();

const PATCH = '/api/trading/positions/11/';
const CLOSE = '/api/trading/close-position/11/';
// What the server serves: EURUSD bid 1.19994, ask 1.20006.
const PRICES = tradingPrices();

let server: FakeAuthServer;
let platform: PlatformDataDto;
let position: PositionDto;

beforeEach(() => {
  position = makePosition({ id: 11, side: 'LONG', quantity: 0.1, stop_loss: null, take_profit: 1.21, trailing_stop_pips: null });
  platform = makePlatformData({ open_positions: [position] });
  server = startTradingServer(() => platform);
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function renderPositions() {
  renderTrading(<DashboardPage />);
  const card = await screen.findByRole('region', { name: 'Open Positions' });
  await within(card).findByRole('link', { name: 'EURUSD' });
  await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
  const row = () => within(card).getByRole('link', { name: 'EURUSD' }).closest('tr')!;
  return { card, row, user: userEvent.setup() };
}

describe('protection in place', () => {
  it('shows Stop Loss, Take Profit and Trailing (pips) columns', async () => {
    const { card, row } = await renderPositions();
    for (const name of ['Stop Loss', 'Take Profit', 'Trailing (pips)']) {
      expect(within(card).getByRole('columnheader', { name })).toBeVisible();
    }
    expect(within(row()).getByRole('button', { name: 'Edit take profit, EURUSD position: 1.21000' })).toHaveTextContent(
      '1.21000',
    );
    expect(within(row()).getByRole('button', { name: 'Edit stop loss, EURUSD position: none' })).toHaveTextContent('—');
  });

  it('sets a stop loss from its cell: Enter sends only that field, the row and a notice show it', async () => {
    const { row, user } = await renderPositions();
    const updated = { ...position, stop_loss: 1.19, updated_at: '2026-04-01T12:05:00.000Z' };
    server.on(PATCH, () => ok({ position: updated }));
    await user.click(within(row()).getByRole('button', { name: /^Edit stop loss/ }));
    const input = within(row()).getByRole('textbox', { name: 'Stop loss, EURUSD position' });
    expect(input).toHaveFocus();
    expect(within(row()).getByRole('textbox', { name: 'Take profit, EURUSD position' })).toHaveValue('1.21000');
    platform = makePlatformData({ open_positions: [updated] });
    await user.type(input, '1.19{Enter}');
    expect(server.callsTo(PATCH).map((c) => [c.method, c.body])).toEqual([['PATCH', { stop_loss: 1.19 }]]);
    expect(await findNotice('EURUSD: stop loss 1.19000, take profit 1.21000, trailing stop none')).toHaveTextContent(
      'Protection updated',
    );
    const cell = await within(row()).findByRole('button', { name: 'Edit stop loss, EURUSD position: 1.19000' });
    expect(cell).toHaveFocus();
  });

  it('an emptied take profit is cleared (null); a trailing distance is whole pips', async () => {
    const { row, user } = await renderPositions();
    const updated = { ...position, take_profit: null, trailing_stop_pips: 25 };
    server.on(PATCH, () => ok({ position: updated }));
    platform = makePlatformData({ open_positions: [updated] });
    await user.click(within(row()).getByRole('button', { name: /^Edit take profit/ }));
    await user.clear(within(row()).getByRole('textbox', { name: 'Take profit, EURUSD position' }));
    await user.type(within(row()).getByRole('textbox', { name: 'Trailing stop, EURUSD position' }), '25');
    await user.click(within(row()).getByRole('button', { name: 'Save protection of EURUSD position' }));
    expect(server.callsTo(PATCH)[0]?.body).toEqual({ take_profit: null, trailing_stop_pips: 25 });
    await within(row()).findByRole('button', { name: 'Edit trailing stop, EURUSD position: 25' });
  });

  it('refuses before sending what the server would: a long needs SL below the bid; Escape discards', async () => {
    const { row, user } = await renderPositions();
    await user.click(within(row()).getByRole('button', { name: /^Edit stop loss/ }));
    const input = within(row()).getByRole('textbox', { name: 'Stop loss, EURUSD position' });
    await user.type(input, '1.2');
    expect(input).toHaveAccessibleDescription('must be below the bid (1.19994) for a long position');
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(within(row()).getByRole('button', { name: 'Save protection of EURUSD position' })).toBeDisabled();
    await user.type(input, '{Enter}');
    await user.clear(input);
    await user.type(input, '1.190001');
    expect(input).toHaveAccessibleDescription('must have at most 5 decimals');
    await user.keyboard('{Escape}');
    expect(within(row()).queryByRole('textbox', { name: /Stop loss/ })).toBeNull();
    expect(server.callsTo(PATCH)).toHaveLength(0);
  });

  it("shows the server's 400 in the row and keeps the editor open", async () => {
    const { row, user } = await renderPositions();
    server.on(PATCH, () => ({
      status: 400,
      body: { success: false, error: 'stop_loss: must be below the bid (1.18) for a long position', code: 'VALIDATION_ERROR' },
    }));
    await user.click(within(row()).getByRole('button', { name: /^Edit stop loss/ }));
    await user.type(within(row()).getByRole('textbox', { name: 'Stop loss, EURUSD position' }), '1.185{Enter}');
    expect(await within(row()).findByRole('alert')).toHaveTextContent(
      'stop_loss: must be below the bid (1.18) for a long position',
    );
    expect(within(row()).getByRole('textbox', { name: 'Stop loss, EURUSD position' })).toHaveValue('1.185');
  });
});

describe('partial close (docs/orders.md#partial-close)', () => {
  it('lots to close default to the whole size; fewer close part, after the same confirmation', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    const { row, user } = await renderPositions();
    const lots = within(row()).getByRole('textbox', { name: 'Lots to close, EURUSD position' });
    expect(lots).toHaveValue('0.10');
    server.on(CLOSE, () =>
      ok({
        profit_loss: 0.8,
        close_price: 1.19994,
        order: makeOrder({
          id: 60,
          side: 'SELL',
          reason: 'close',
          quantity: 0.04,
          filled_quantity: 0.04,
          average_fill_price: 1.19994,
        }),
        position: { ...position, quantity: 0.06 },
      }),
    );
    platform = makePlatformData({ open_positions: [{ ...position, quantity: 0.06 }] });
    await user.clear(lots);
    await user.type(lots, '0.04');
    await user.click(within(row()).getByRole('button', { name: 'Close EURUSD position' }));
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to close this position?');
    expect(server.callsTo(CLOSE)[0]?.body).toEqual({ current_price: PRICES.EURUSD!.bid, quantity: 0.04 });
    expect(await findNotice('SELL 0.04 EURUSD filled at 1.19994')).toHaveTextContent('Position partly closed');
    await waitFor(() =>
      expect(within(row()).getByRole('textbox', { name: 'Lots to close, EURUSD position' })).toHaveValue('0.06'),
    );
  });

  it('refuses lots off the 0.01 step or above the size, and sends nothing', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    const { row, user } = await renderPositions();
    const lots = within(row()).getByRole('textbox', { name: 'Lots to close, EURUSD position' });
    const close = within(row()).getByRole('button', { name: 'Close EURUSD position' });
    for (const [text, problem] of [
      ['0.015', 'Lots to close must be in steps of 0.01'],
      ['0.11', 'Lots to close must be at most 0.10'],
      ['0', 'Lots to close must be greater than 0'],
    ] as const) {
      await user.clear(lots);
      await user.type(lots, text);
      expect(lots).toHaveAccessibleDescription(problem);
      expect(close).toBeDisabled();
      await user.type(lots, '{Enter}');
    }
    expect(confirm).not.toHaveBeenCalled();
    expect(server.callsTo(CLOSE)).toHaveLength(0);
  });

  it('closing the whole size by Enter sends no quantity (the close as the spec has it)', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const { row, user } = await renderPositions();
    server.on(CLOSE, () =>
      ok({
        profit_loss: 1,
        close_price: 1.19994,
        order: makeOrder({ id: 61, side: 'SELL', reason: 'close', average_fill_price: 1.19994 }),
        position: { ...position, quantity: 0, side: 'FLAT', status: 'CLOSED' },
      }),
    );
    platform = makePlatformData();
    await user.type(within(row()).getByRole('textbox', { name: 'Lots to close, EURUSD position' }), '{Enter}');
    await waitFor(() => expect(server.callsTo(CLOSE)).toHaveLength(1));
    expect(server.callsTo(CLOSE)[0]?.body).toEqual({ current_price: PRICES.EURUSD!.bid });
    expect(await findNotice('SELL 0.10 EURUSD filled at 1.19994')).toHaveTextContent('Position closed');
  });
});
