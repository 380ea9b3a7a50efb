import {
  estimateMarginRequired,
  type FxPair,
  marginUsd,
  type PairPageDto,
  type PlatformDataDto,
  unitsOf,
  usdRate,
} from '@pipdesk/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeAuthServer, FakeAuthServer as FakeServer } from '../../test/fakeAuthServer';
import { formatUsd } from '../trading/format';
import {
  CATALOGUE,
  EURJPY,
  EURUSD,
  establishSocket,
  findNotice,
  holdReply,
  makeAccount,
  makeOrder,
  makePairPage,
  makePlatformData,
  makePosition,
  makePrices,
  ok,
  renderTrading,
  startTradingServer,
  USDJPY,
} from '../trading/testSupport';
import { PairTradingPanels } from './PairTradingPanels';

let server: FakeAuthServer;
let platform: PlatformDataDto;
let pairPage: PairPageDto;
let mids: Record<string, number>;

const PLACE = '/api/trading/place-market-order/';
const pairPath = (symbol: string) => `/api/trading/pair/${symbol}/`;

function pageOf(pair: FxPair, overrides: Partial<PairPageDto> = {}): PairPageDto {
  const mid = mids[pair.symbol] ?? 1;
  return makePairPage(pair, { bid: mid, ask: mid, mid, price: mid, timestamp: '2026-04-01T12:00:00.000Z' }, overrides);
}

beforeEach(() => {
  mids = { EURUSD: 1.2, USDJPY: 150, EURJPY: 180 };
  platform = makePlatformData();
  server = startTradingServer(
    () => platform,
    () => makePrices(mids),
  );
  pairPage = pageOf(EURUSD);
  for (const pair of CATALOGUE) server.on(pairPath(pair.symbol), () => ok({ ...pairPage, pair }));
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Renders the panels and waits until the polled prices have reached the form. */
async function renderPanels(pair: FxPair = EURUSD) {
  const view = renderTrading(<PairTradingPanels pair={pair} />, { path: `/pair/${pair.symbol}` });
  await screen.findByRole('form', { name: 'Place Order' });
  await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
  return view;
}

const lotSize = () => screen.getByLabelText('Lot Size') as HTMLInputElement;
const estimate = () => screen.getByTestId('estimated-margin');
const submit = () => screen.getByRole('button', { name: /^(Buy|Sell) [A-Z]{6}$|^Placing Order\.\.\.$/ });

async function typeLots(text: string) {
  const user = userEvent.setup();
  await user.clear(lotSize());
  if (text) await user.type(lotSize(), text);
}

describe('Account Info (docs/screens.md#pair-page)', () => {
  it('shows Balance, Equity, Free Margin and Leverage', async () => {
    pairPage = pageOf(EURUSD, {
      trading_account: makeAccount({
        balance: 9_876.5,
        equity: 9_900.25,
        free_margin: 8_700.25,
        margin_used: 1_200,
        leverage: 50,
      }),
    });
    await renderPanels();
    const info = screen.getByRole('region', { name: 'Account Info' });
    const row = (label: string) => within(info).getByText(label).closest('div');
    expect(row('Balance')).toHaveTextContent('$9,876.50');
    expect(row('Equity')).toHaveTextContent('$9,900.25');
    expect(row('Free Margin')).toHaveTextContent('$8,700.25');
    expect(row('Leverage')).toHaveTextContent('50:1');
  });

  it('shows Trading Not Available without an account', async () => {
    pairPage = pageOf(EURUSD, { trading_account: null });
    renderTrading(<PairTradingPanels pair={EURUSD} />);
    expect(await screen.findByText(/Trading Not Available/)).toBeVisible();
    expect(screen.queryByRole('form', { name: 'Place Order' })).toBeNull();
  });

  it('says Failed to load trading platform data when the pair call fails, and Try Again reloads', async () => {
    const user = userEvent.setup();
    server.script(pairPath('EURUSD'), { status: 400, body: {} });
    renderTrading(<PairTradingPanels pair={EURUSD} />);
    const box = await screen.findByRole('alert');
    expect(box).toHaveTextContent('Failed to load trading platform data');
    await user.click(within(box).getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByRole('form', { name: 'Place Order' })).toBeVisible();
  });
});

describe('Place Order form (docs/screens.md#order-forms)', () => {
  it('starts on BUY with lot size 0.01, step 0.01, min from the pair', async () => {
    await renderPanels();
    expect(screen.getByRole('radio', { name: 'BUY' })).toBeChecked();
    expect(lotSize().value).toBe('0.01');
    expect(lotSize()).toHaveAttribute('step', '0.01');
    expect(lotSize()).toHaveAttribute('min', '0.01');
    expect(submit()).toHaveTextContent('Buy EURUSD');
    await userEvent.setup().click(screen.getByRole('radio', { name: 'SELL' }));
    expect(submit()).toHaveTextContent('Sell EURUSD');
  });

  it('caps the lot size at the maximum allowed lots = free margin × leverage ÷ (contract × price)', async () => {
    // 1,000 × 100 ÷ (100,000 × 1.2) = 0.8333 → 0.83 lots.
    pairPage = pageOf(EURUSD, { trading_account: makeAccount({ free_margin: 1_000, leverage: 100 }) });
    await renderPanels();
    await waitFor(() => expect(screen.getByText('Minimum: 0.01, Maximum: 0.83')).toBeVisible());
    expect(lotSize()).toHaveAttribute('max', '0.83');
    await typeLots('0.83');
    expect(submit()).toBeEnabled();
    await typeLots('0.84');
    expect(submit()).toBeDisabled();
    expect(screen.getByText('Lot size must be at most 0.83')).toBeVisible();
  });

  it("caps it at the pair's max_lot_size when that is smaller", async () => {
    const small = { ...EURUSD, max_lot_size: 0.5, min_lot_size: 0.05 };
    pairPage = pageOf(small);
    platform = makePlatformData({ fx_pairs: [small, USDJPY, EURJPY] });
    server.on(pairPath('EURUSD'), () => ok(pairPage));
    await renderPanels(small);
    await waitFor(() => expect(screen.getByText('Minimum: 0.05, Maximum: 0.50')).toBeVisible());
    expect(lotSize()).toHaveAttribute('min', '0.05');
    expect(screen.getByText('Lot size must be at least 0.05')).toBeVisible();
    expect(submit()).toBeDisabled();
  });

  it('cannot send anything when the free margin does not cover the minimum lot', async () => {
    pairPage = pageOf(EURUSD, { trading_account: makeAccount({ free_margin: 5, leverage: 100 }) });
    await renderPanels();
    await waitFor(() => expect(screen.getByText('Not enough free margin for the minimum lot size')).toBeVisible());
    expect(submit()).toBeDisabled();
  });

  it('keeps submit disabled for an empty, zero or negative lot size', async () => {
    await renderPanels();
    for (const text of ['', '0', '-0.5']) {
      await typeLots(text);
      expect(submit()).toBeDisabled();
    }
    await typeLots('0.1');
    expect(submit()).toBeEnabled();
  });

  describe('Estimated Margin Required (docs/trading-rules.md#margin: the contract function the server uses)', () => {
    it('EURUSD, 1 lot at 1.2000, leverage 100: 1,200.00 USD', async () => {
      await renderPanels();
      await typeLots('1');
      await waitFor(() => expect(estimate()).toHaveTextContent('$1,200.00'));
    });

    it('USDJPY, 1 lot, leverage 100: 1,000.00 USD whatever the price', async () => {
      pairPage = pageOf(USDJPY);
      await renderPanels(USDJPY);
      await typeLots('1');
      await waitFor(() => expect(estimate()).toHaveTextContent('$1,000.00'));
    });

    it('EURJPY converts its base through EURUSD, and equals the margin_required the server computes', async () => {
      pairPage = pageOf(EURJPY, { trading_account: makeAccount({ leverage: 400 }) });
      mids = { EURUSD: 1.15, USDJPY: 150, EURJPY: 172.5 };
      await renderPanels(EURJPY);
      await typeLots('0.1');
      // The server's margin_required: marginUsd(units, base → USD rate, leverage), rounded to cents.
      const rate = usdRate('EUR', CATALOGUE, (s) => mids[s])!;
      const serverMargin = marginUsd(unitsOf(0.1, EURJPY.contract_size), rate, 400).toNumber(2);
      expect(serverMargin).toBe(28.75); // docs/trading-rules.md#numbers-that-must-hold: 0.1 lot at 1.1500, leverage 400.
      await waitFor(() => expect(estimate()).toHaveTextContent(formatUsd(serverMargin)));
      expect(estimateMarginRequired(0.1, EURJPY, 400, CATALOGUE, (s) => mids[s])).toBe(serverMargin);
    });

    it('follows the live price and the lot size', async () => {
      await renderPanels();
      await typeLots('0.5');
      await waitFor(() => expect(estimate()).toHaveTextContent('$600.00'));
      const socket = await establishSocket();
      act(() =>
        socket.receive({
          type: 'price_update',
          symbol: 'EURUSD',
          price: 1.3,
          bid: 1.29994,
          ask: 1.30006,
          timestamp: '2026-04-01T12:00:05.000Z',
        }),
      );
      await waitFor(() => expect(estimate()).toHaveTextContent('$650.00'));
    });
  });

  it('sends the order, reads Placing Order... while pending, then resets to BUY 0.01 and reloads', async () => {
    const user = userEvent.setup();
    const answer = holdReply(server, PLACE, {
      status: 201,
      body: {
        success: true,
        data: {
          order: makeOrder(),
          position: makePosition(),
          execution_details: {
            execution_price: 1.2,
            margin_required: 120,
            units: 10_000,
            executed_at: '2026-04-01T12:00:00Z',
          },
        },
      },
    });
    await renderPanels();
    await user.click(screen.getByRole('radio', { name: 'SELL' }));
    await typeLots('0.1');
    const loads = server.callsTo(pairPath('EURUSD')).length;
    await user.click(submit());
    expect(await screen.findByRole('button', { name: 'Placing Order...' })).toBeDisabled();
    expect(server.callsTo(PLACE)[0]?.body).toEqual({ symbol: 'EURUSD', side: 'SELL', quantity: 0.1 });
    act(() => answer());
    await waitFor(() => expect(submit()).toHaveTextContent('Buy EURUSD'));
    expect(lotSize().value).toBe('0.01');
    expect(screen.getByRole('radio', { name: 'BUY' })).toBeChecked();
    await waitFor(() => expect(server.callsTo(pairPath('EURUSD')).length).toBeGreaterThan(loads));
  });

  it('shows the fill in a notice', async () => {
    server.script(PLACE, {
      status: 201,
      body: {
        success: true,
        data: {
          order: makeOrder({ id: 31, side: 'SELL', quantity: 0.1, filled_quantity: 0.1, average_fill_price: 1.19994 }),
          position: makePosition(),
          execution_details: {
            execution_price: 1.19994,
            margin_required: 120,
            units: 10_000,
            executed_at: '2026-04-01T12:00:00Z',
          },
        },
      },
    });
    await renderPanels();
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'SELL' }));
    await typeLots('0.1');
    await user.click(submit());
    const notice = await findNotice('SELL 0.10 EURUSD filled at 1.19994');
    expect(notice).toHaveTextContent('Order filled');
  });

  // docs/screens.md#error-texts words them for an alert dialog; they show in a notice instead (docs/screens.md#notices).
  describe('order errors in a notice, never window.alert (docs/screens.md#error-texts)', () => {
    async function placeWith(reply: Parameters<FakeServer['script']>[1]): Promise<string> {
      const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
      server.script(PLACE, reply);
      await renderPanels();
      await userEvent.setup().click(submit());
      const notice = await findNotice(/^Error/);
      expect(alert).not.toHaveBeenCalled();
      return notice.textContent ?? '';
    }

    it("Error: and the server's error", async () => {
      const text = await placeWith({
        status: 422,
        body: { success: false, error: 'Insufficient free margin', code: 'INSUFFICIENT_MARGIN', data: { order: makeOrder() } },
      });
      expect(text).toBe('Error: Insufficient free margin');
    });

    it('Error: Failed to place order when the server gives no reason', async () => {
      expect(await placeWith({ status: 500, body: {} })).toBe('Error: Failed to place order');
    });

    it("Error placing order: and the spec's text when the server cannot be reached, never Failed to fetch", async () => {
      expect(await placeWith('network-error')).toBe('Error placing order: An error occurred while placing the order');
    });

    it('Error placing order: An error occurred while placing the order, without a message', async () => {
      expect(await placeWith(() => Promise.reject(new TypeError('')))).toBe(
        'Error placing order: An error occurred while placing the order',
      );
    });
  });
});

describe('positions in the pair (docs/screens.md#pair-page)', () => {
  const CLOSE = '/api/trading/close-position/11/';

  beforeEach(() => {
    pairPage = pageOf(EURUSD, {
      positions: [
        makePosition({ id: 11, side: 'LONG', quantity: 0.1 }),
        makePosition({ id: 12, side: 'FLAT', quantity: 0, status: 'OPEN' }),
      ],
      recent_orders: [makeOrder({ id: 7, side: 'SELL', reason: 'close', average_fill_price: 1.1999 })],
    });
  });

  const positionsCard = () => screen.getByRole('region', { name: 'Open Positions' });

  it('shows Live or Connecting... beside them', async () => {
    await renderPanels();
    expect(within(positionsCard()).getByRole('status', { name: 'Positions feed' })).toHaveTextContent(/^Connecting\.\.\.$/);
    await establishSocket();
    expect(within(positionsCard()).getByRole('status', { name: 'Positions feed' })).toHaveTextContent(/^Live$/);
  });

  it('shows the recent orders in the pair', async () => {
    await renderPanels();
    const recent = screen.getByRole('region', { name: 'Recent Orders' });
    expect(within(recent).getByText(/Close/)).toBeVisible();
    expect(within(recent).getByText('1.19990')).toBeVisible();
  });

  it('Close asks for confirmation; cancelled, nothing is sent', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false);
    await renderPanels();
    await userEvent.setup().click(within(positionsCard()).getByRole('button', { name: 'Close EURUSD position' }));
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to close this position?');
    expect(server.callsTo(CLOSE)).toHaveLength(0);
  });

  it('has no Close button for a FLAT position', async () => {
    await renderPanels();
    expect(within(positionsCard()).getAllByRole('button', { name: /Close/ })).toHaveLength(1);
  });

  it('confirmed: reads Closing..., sends the price the trader saw, then reloads', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const answer = holdReply(
      server,
      CLOSE,
      ok({
        profit_loss: 12.5,
        close_price: 1.19994,
        order: makeOrder({ side: 'SELL', reason: 'close' }),
        position: makePosition({ side: 'FLAT', quantity: 0, status: 'CLOSED' }),
      }),
    );
    await renderPanels();
    await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
    const loads = server.callsTo(pairPath('EURUSD')).length;
    await userEvent.setup().click(within(positionsCard()).getByRole('button', { name: 'Close EURUSD position' }));
    const closing = await within(positionsCard()).findByRole('button', { name: 'Closing EURUSD position' });
    expect(closing).toHaveTextContent('Closing...');
    expect(closing).toBeDisabled();
    // A long closes at the bid the trader saw (kept on the order for the record only).
    expect(server.callsTo(CLOSE)[0]?.body).toEqual({ current_price: makePrices(mids).EURUSD!.bid });
    pairPage = pageOf(EURUSD);
    act(() => answer());
    await waitFor(() => expect(server.callsTo(pairPath('EURUSD')).length).toBeGreaterThan(loads));
    await waitFor(() => expect(within(positionsCard()).queryByRole('button', { name: /Close/ })).toBeNull());
    expect(within(positionsCard()).getByText('No open positions')).toBeVisible();
  });

  describe('close errors in a notice, never window.alert (docs/screens.md#error-texts)', () => {
    async function closeWith(reply: Parameters<FakeServer['script']>[1]): Promise<string> {
      vi.spyOn(window, 'confirm').mockReturnValue(true);
      const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
      server.script(CLOSE, reply);
      await renderPanels();
      await userEvent.setup().click(within(positionsCard()).getByRole('button', { name: 'Close EURUSD position' }));
      const notice = await findNotice(/^Error/);
      expect(alert).not.toHaveBeenCalled();
      return notice.textContent ?? '';
    }

    it("Error: and the server's error", async () => {
      expect(
        await closeWith({ status: 409, body: { success: false, error: 'Position is already closed', code: 'POSITION_CLOSED' } }),
      ).toBe('Error: Position is already closed');
    });

    it('Error: Failed to close position when the server gives no reason', async () => {
      expect(await closeWith({ status: 500, body: {} })).toBe('Error: Failed to close position');
    });

    it("Error closing position: and the spec's text when the server cannot be reached, never Failed to fetch", async () => {
      expect(await closeWith('network-error')).toBe('Error closing position: An error occurred while closing the position');
    });

    it('Error closing position: An error occurred while closing the position, without a message', async () => {
      expect(await closeWith(() => Promise.reject(new TypeError('')))).toBe(
        'Error closing position: An error occurred while closing the position',
      );
    });
  });
});
