import {
  type CurrentPrices,
  Dec,
  type FxPair,
  type PairPageDto,
  type PlatformDataDto,
  realizedAtPriceUsd,
} from '@pipdesk/contract';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../../test/fakeAuthServer';
import { DashboardPage } from '../../dashboard/DashboardPage';
import { PairTradingPanels } from '../../pair/PairTradingPanels';
import { formatPnl } from '../format';
import {
  EURJPY,
  EURUSD,
  FakeSocket,
  findNotice,
  makeAccount,
  makeOrder,
  makePair,
  makePlatformData,
  makePosition,
  ok,
  renderTrading,
  USDJPY,
} from '../testSupport';
import { localDateTimeText } from './ticketModel';

// The order ticket on the pair page and the dashboard (docs/screens.md#order-ticket).

const GBPUSD = makePair({ id: 2, symbol: 'GBPUSD', name: 'British Pound / US Dollar', base_currency: 'GBP' });
const USDCHF = makePair({
  id: 4,
  symbol: 'USDCHF',
  name: 'US Dollar / Swiss Franc',
  base_currency: 'USD',
  quote_currency: 'CHF',
});
const EURGBP = makePair({ id: 8, symbol: 'EURGBP', name: 'Euro / British Pound', base_currency: 'EUR', quote_currency: 'GBP' });
const PAIRS: FxPair[] = [EURUSD, GBPUSD, USDJPY, USDCHF, EURGBP, EURJPY];

/** Exact quotes, as a scripted feed would send them. */
const QUOTES: Record<string, [number, number]> = {
  EURUSD: [1.1, 1.1002],
  GBPUSD: [1.27, 1.2702],
  USDJPY: [150, 150.02],
  USDCHF: [0.88, 0.8802],
  EURGBP: [0.86, 0.8602],
  EURJPY: [165, 165.02],
};
const quoteOf = (symbol: string) => {
  const [bid, ask] = QUOTES[symbol]!;
  return { bid, ask };
};

function currentPrices(): CurrentPrices {
  const out: CurrentPrices = {};
  for (const [symbol, [bid, ask]] of Object.entries(QUOTES)) {
    const mid = Dec.from(bid).plus(ask).div(2).toNumber();
    out[symbol] = { bid, ask, mid, price: mid, timestamp: '2026-04-01T12:00:00.000Z' };
  }
  return out;
}

let server: FakeAuthServer;
let platform: PlatformDataDto;
let account = makeAccount();

const PLACE_MARKET = '/api/trading/place-market-order/';
const PLACE_PENDING = '/api/trading/place-pending-order/';
const pairPath = (symbol: string) => `/api/trading/pair/${symbol}/`;

function pageOf(pair: FxPair): PairPageDto {
  const { bid, ask } = quoteOf(pair.symbol);
  return {
    pair,
    price: { bid, ask, mid: (bid + ask) / 2, price: (bid + ask) / 2, timestamp: '2026-04-01T12:00:00.000Z' },
    positions: [],
    recent_orders: [],
    trading_account: account,
    pending_orders: [],
  };
}

beforeEach(() => {
  FakeSocket.reset();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  account = makeAccount();
  platform = makePlatformData({ fx_pairs: PAIRS, trading_account: account });
  server.on('/api/trading/platform-data/', () => ok(platform));
  server.on('/api/trading/current-prices/', () => ok(currentPrices()));
  for (const pair of PAIRS) server.on(pairPath(pair.symbol), () => ok({ ...pageOf(pair), trading_account: account }));
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The pair page's panels, once the prices and the platform data have reached the ticket. */
async function renderPair(pair: FxPair = EURUSD) {
  renderTrading(<PairTradingPanels pair={pair} />, { path: `/pair/${pair.symbol}` });
  await screen.findByRole('form', { name: 'Place Order' });
  await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
  await waitFor(() => expect(server.callsTo('/api/trading/platform-data/').length).toBeGreaterThan(0));
  // The ticket has the market once the form shows bid and ask under a pending price; wait on the margin figure instead.
  await waitFor(() => expect(screen.getByTestId('margin-level-after')).not.toHaveTextContent('—'));
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const orderType = () => screen.getByLabelText('Order Type') as HTMLSelectElement;
const submit = () =>
  screen.getByRole('button', { name: /^(Buy|Sell)( Limit| Stop| Stop Limit)? [A-Z]{6}$|^Placing Order\.\.\.$/ });

async function type(label: string, text: string) {
  const user = userEvent.setup();
  await user.clear(field(label));
  if (text) await user.type(field(label), text);
}

const pendingAnswer = (overrides: Parameters<typeof makeOrder>[0]) => ({
  status: 201,
  body: {
    success: true,
    data: {
      order: makeOrder({
        id: 41,
        status: 'PENDING',
        filled_quantity: 0,
        average_fill_price: null,
        position_id: null,
        ...overrides,
      }),
    },
  },
});

describe('order types and their fields', () => {
  it('starts as the spec’s market order: no price fields, and the button is the spec’s', async () => {
    await renderPair();
    expect(orderType().value).toBe('MARKET');
    expect(
      within(orderType())
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Market', 'Limit', 'Stop', 'Stop Limit']);
    expect(screen.queryByLabelText('Limit Price')).toBeNull();
    expect(screen.queryByLabelText('Stop Price')).toBeNull();
    expect(screen.queryByLabelText('Time in Force')).toBeNull();
    expect(submit()).toHaveTextContent('Buy EURUSD');
  });

  it('Limit: pre-filled 10 pips on the side it must be, checked against the ask (BUY) or the bid (SELL)', async () => {
    const user = userEvent.setup();
    await renderPair();
    await user.selectOptions(orderType(), 'LIMIT');
    expect(field('Limit Price').value).toBe('1.09920'); // ask 1.10020 − 10 pips
    expect(field('Limit Price')).toHaveAccessibleDescription('Bid 1.10000 · Ask 1.10020');
    expect(screen.getByLabelText('Time in Force')).toHaveValue('GTC');
    expect(submit()).toHaveTextContent('Buy Limit EURUSD');
    expect(submit()).toBeEnabled();

    await type('Limit Price', '1.10020');
    expect(screen.getByText('Limit Price of a BUY LIMIT must be below the ask (1.10020)')).toBeVisible();
    expect(submit()).toBeDisabled();

    await user.click(screen.getByRole('radio', { name: 'SELL' }));
    expect(field('Limit Price').value).toBe('1.10100'); // bid 1.10000 + 10 pips
    await type('Limit Price', '1.1');
    expect(screen.getByText('Limit Price of a SELL LIMIT must be above the bid (1.10000)')).toBeVisible();
    await type('Limit Price', '1.101234');
    expect(screen.getByText('Limit Price must have at most 5 decimals')).toBeVisible();
    await type('Limit Price', '');
    expect(screen.getByText('Enter a price')).toBeVisible();
    expect(submit()).toBeDisabled();
  });

  it('Stop: a BUY STOP above the ask, a SELL STOP below the bid', async () => {
    const user = userEvent.setup();
    await renderPair(USDJPY);
    await user.selectOptions(orderType(), 'STOP');
    expect(field('Stop Price').value).toBe('150.120'); // ask 150.020 + 10 pips of 0.01
    await type('Stop Price', '150.010');
    expect(screen.getByText('Stop Price of a BUY STOP must be above the ask (150.020)')).toBeVisible();
    await user.click(screen.getByRole('radio', { name: 'SELL' }));
    expect(field('Stop Price').value).toBe('149.900');
    await type('Stop Price', '150.000');
    expect(screen.getByText('Stop Price of a SELL STOP must be below the bid (150.000)')).toBeVisible();
    expect(submit()).toBeDisabled();
  });

  it('Stop Limit: a trigger as a stop and a limit it rests at, both sent', async () => {
    const user = userEvent.setup();
    server.script(PLACE_PENDING, pendingAnswer({ order_type: 'STOP_LIMIT', price: 1.1012, limit_price: 1.1015 }));
    await renderPair();
    await user.selectOptions(orderType(), 'STOP_LIMIT');
    expect(field('Stop Price').value).toBe('1.10120');
    expect(field('Limit Price').value).toBe('1.10120');
    await type('Limit Price', '');
    expect(screen.getByText('Enter a price')).toBeVisible();
    expect(submit()).toBeDisabled();
    await type('Limit Price', '1.10150');
    await user.click(submit());
    await waitFor(() => expect(server.callsTo(PLACE_PENDING)).toHaveLength(1));
    expect(server.callsTo(PLACE_PENDING)[0]!.body).toEqual({
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.01,
      order_type: 'STOP_LIMIT',
      price: 1.1012,
      limit_price: 1.1015,
      time_in_force: 'GTC',
    });
  });

  it('until a date and time: pre-filled a day ahead, in the future, at most 90 days', async () => {
    const user = userEvent.setup();
    server.script(PLACE_PENDING, pendingAnswer({ order_type: 'LIMIT', price: 1.0992, time_in_force: 'GTD' }));
    await renderPair();
    await user.selectOptions(orderType(), 'LIMIT');
    await user.selectOptions(screen.getByLabelText('Time in Force'), 'GTD');
    const expires = field('Expires');
    expect(expires).toHaveAttribute('type', 'datetime-local');
    expect(expires.value).not.toBe('');
    const day = 86_400_000;
    fireEvent.change(expires, { target: { value: localDateTimeText(Date.now() - day) } });
    expect(screen.getByText('Expiry must be in the future')).toBeVisible();
    expect(submit()).toBeDisabled();
    fireEvent.change(expires, { target: { value: localDateTimeText(Date.now() + 91 * day) } });
    expect(screen.getByText('Expiry must be at most 90 days ahead')).toBeVisible();
    const inTwoDays = localDateTimeText(Date.now() + 2 * day);
    fireEvent.change(expires, { target: { value: inTwoDays } });
    expect(submit()).toBeEnabled();
    await user.click(submit());
    await waitFor(() => expect(server.callsTo(PLACE_PENDING)).toHaveLength(1));
    expect(server.callsTo(PLACE_PENDING)[0]!.body).toMatchObject({
      order_type: 'LIMIT',
      price: 1.0992,
      time_in_force: 'GTD',
      expires_at: new Date(inTwoDays).toISOString(),
    });
  });
});

describe('placing a pending order', () => {
  it('sends it with an Idempotency-Key, shows the notice and resets the ticket to the spec’s market order', async () => {
    const user = userEvent.setup();
    server.script(PLACE_PENDING, pendingAnswer({ order_type: 'LIMIT', price: 1.0992, quantity: 0.1 }));
    await renderPair();
    await user.selectOptions(orderType(), 'LIMIT');
    await type('Lot Size', '0.1');
    await user.click(submit());
    const notice = await findNotice('BUY LIMIT 0.10 EURUSD at 1.09920');
    expect(notice).toHaveTextContent('Pending order placed');
    expect(server.callsTo(PLACE_PENDING)[0]!.body).toEqual({
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.1,
      order_type: 'LIMIT',
      price: 1.0992,
      time_in_force: 'GTC',
    });
    const sent = server.fetch.mock.calls.find(([input]) => String(input).includes(PLACE_PENDING));
    expect(new Headers(sent?.[1]?.headers).get('Idempotency-Key')).toMatch(/\S{8,}/);
    expect(server.callsTo(PLACE_MARKET)).toHaveLength(0);
    await waitFor(() => expect(orderType().value).toBe('MARKET'));
    expect(field('Lot Size').value).toBe('0.01');
  });

  it("shows the server's 400 when the market moved under the ticket", async () => {
    const user = userEvent.setup();
    server.script(PLACE_PENDING, {
      status: 400,
      body: { success: false, error: 'price: a BUY LIMIT must be below the ask (1.0991)', code: 'VALIDATION_ERROR' },
    });
    await renderPair();
    await user.selectOptions(orderType(), 'LIMIT');
    await user.click(submit());
    const notice = await findNotice(/^Error/);
    expect(notice).toHaveTextContent('Error: price: a BUY LIMIT must be below the ask (1.0991)');
  });
});

describe('stop loss and take profit: price ↔ pips ↔ money, as the server realizes it', () => {
  /** The money the server books closing `lots` from `entry` at `exit` (the contract's function). */
  const serverMoney = (pair: FxPair, side: 'BUY' | 'SELL', lots: number, entry: number, exit: number) =>
    realizedAtPriceUsd({ pair, pairs: PAIRS, quote: quoteOf, side, lots, entry, exit })!.toNumber(2);

  it('USD-quoted: EURUSD BUY 1 lot, stop 20 pips under the ask → 1.09820, −$200.00, 2.00% of equity', async () => {
    await renderPair();
    await type('Lot Size', '1');
    await userEvent.setup().selectOptions(screen.getByLabelText('Stop Loss entered as'), 'pips');
    await type('Stop Loss', '20');
    const money = serverMoney(EURUSD, 'BUY', 1, 1.1002, 1.0982);
    expect(money).toBe(-200);
    expect(field('Stop Loss')).toHaveAccessibleDescription(`1.09820 · 20.0 pips · ${formatPnl(money)} at stop · 2.00% of equity`);
  });

  it('USD-based: USDCHF BUY 1 lot, target at 0.88520 → 50.0 pips, +$564.78 (francs at the mid of that moment)', async () => {
    await renderPair(USDCHF);
    await type('Lot Size', '1');
    await type('Take Profit', '0.88520');
    const money = serverMoney(USDCHF, 'BUY', 1, 0.8802, 0.8852);
    expect(money).toBe(564.78);
    expect(field('Take Profit')).toHaveAccessibleDescription(`0.88520 · 50.0 pips · ${formatPnl(money)} at target`);
  });

  it('JPY: USDJPY SELL 0.1 lot, stop 50 pips above the bid → 150.500, −$33.22, 0.33% of equity', async () => {
    await renderPair(USDJPY);
    await userEvent.setup().click(screen.getByRole('radio', { name: 'SELL' }));
    await type('Lot Size', '0.1');
    await userEvent.setup().selectOptions(screen.getByLabelText('Stop Loss entered as'), 'pips');
    await type('Stop Loss', '50');
    const money = serverMoney(USDJPY, 'SELL', 0.1, 150, 150.5);
    expect(money).toBe(-33.22);
    expect(field('Stop Loss')).toHaveAccessibleDescription(`150.500 · 50.0 pips · ${formatPnl(money)} at stop · 0.33% of equity`);
  });

  it('cross: EURGBP BUY 1 lot, stop 50 pips → 0.85520, −$635.05 (pounds at GBPUSD), and the pips turn into the price', async () => {
    const user = userEvent.setup();
    await renderPair(EURGBP);
    await type('Lot Size', '1');
    await user.selectOptions(screen.getByLabelText('Stop Loss entered as'), 'pips');
    await type('Stop Loss', '50');
    const money = serverMoney(EURGBP, 'BUY', 1, 0.8602, 0.8552);
    expect(money).toBe(-635.05);
    expect(field('Stop Loss')).toHaveAccessibleDescription(`0.85520 · 50.0 pips · ${formatPnl(money)} at stop · 6.35% of equity`);
    // Switching to a price keeps what it means.
    await user.selectOptions(screen.getByLabelText('Stop Loss entered as'), 'price');
    expect(field('Stop Loss').value).toBe('0.85520');
    await user.selectOptions(screen.getByLabelText('Stop Loss entered as'), 'pips');
    expect(field('Stop Loss').value).toBe('50.0');
  });

  it('adding to a position: the stop closes all of it, from its averaged entry; reducing it sets none', async () => {
    platform = makePlatformData({
      fx_pairs: PAIRS,
      trading_account: account,
      open_positions: [makePosition({ fx_pair_symbol: 'EURUSD', quantity: 0.1, average_entry_price: 1.09 })],
    });
    await renderPair();
    await type('Lot Size', '0.1');
    await type('Stop Loss', '1.09500');
    // 0.1 from 1.09000 and 0.1 from 1.10020: 0.2 lots from 1.09510; at 1.09500 that is 20,000 × −0.0001 = −2.00.
    const money = realizedAtPriceUsd({
      pair: EURUSD,
      pairs: PAIRS,
      quote: quoteOf,
      side: 'BUY',
      lots: 0.2,
      entry: 1.0951,
      exit: 1.095,
    });
    expect(money?.toNumber(2)).toBe(-2);
    await waitFor(() =>
      expect(field('Stop Loss')).toHaveAccessibleDescription(
        '1.09500 · 52.0 pips · -$2.00 at stop for 0.20 lots · 0.02% of equity',
      ),
    );
    await userEvent.setup().click(screen.getByRole('radio', { name: 'SELL' }));
    await type('Lot Size', '0.05');
    await type('Stop Loss', '1.11000');
    expect(field('Stop Loss')).toHaveAccessibleDescription(
      '1.11000 · 100.0 pips · not set: this order reduces the open position',
    );
  });

  it('a pending order’s stop and target are measured from its own price', async () => {
    const user = userEvent.setup();
    await renderPair();
    await user.selectOptions(orderType(), 'LIMIT');
    await type('Limit Price', '1.09000');
    await user.selectOptions(screen.getByLabelText('Take Profit entered as'), 'pips');
    await type('Take Profit', '30');
    const money = serverMoney(EURUSD, 'BUY', 0.01, 1.09, 1.093);
    expect(money).toBe(3);
    expect(field('Take Profit')).toHaveAccessibleDescription(`1.09300 · 30.0 pips · ${formatPnl(money)} at target`);
  });

  it('checks them as the server does: a long’s stop below the bid and target above it', async () => {
    await renderPair();
    await type('Stop Loss', '1.10000');
    expect(screen.getByText('Stop Loss must be below the bid (1.10000) for a long position')).toBeVisible();
    await type('Take Profit', '1.09000');
    expect(screen.getByText('Take Profit must be above the bid (1.10000) for a long position')).toBeVisible();
    expect(submit()).toBeDisabled();
    await type('Stop Loss', '1.09000');
    await type('Take Profit', '1.11000');
    expect(submit()).toBeEnabled();
    await type('Trailing Stop (pips)', '4');
    expect(screen.getByText('Trailing stop must be a whole number of pips from 5 to 1000')).toBeVisible();
    expect(submit()).toBeDisabled();
    await type('Trailing Stop (pips)', '25');
    expect(submit()).toBeEnabled();
  });

  it('sends a market order’s protection with it', async () => {
    const user = userEvent.setup();
    server.script(PLACE_MARKET, {
      status: 201,
      body: {
        success: true,
        data: {
          order: makeOrder({ average_fill_price: 1.1002, stop_loss: 1.0982, take_profit: 1.1052 }),
          position: makePosition({ stop_loss: 1.0982, take_profit: 1.1052 }),
          execution_details: { execution_price: 1.1002, margin_required: 11, units: 1000, executed_at: '2026-04-01T12:00:00Z' },
        },
      },
    });
    await renderPair();
    await user.selectOptions(screen.getByLabelText('Stop Loss entered as'), 'pips');
    await type('Stop Loss', '20');
    await user.selectOptions(screen.getByLabelText('Take Profit entered as'), 'pips');
    await type('Take Profit', '50');
    await type('Trailing Stop (pips)', '15');
    await user.click(submit());
    await waitFor(() => expect(server.callsTo(PLACE_MARKET)).toHaveLength(1));
    expect(server.callsTo(PLACE_MARKET)[0]!.body).toEqual({
      symbol: 'EURUSD',
      side: 'BUY',
      quantity: 0.01,
      stop_loss: 1.0982,
      take_profit: 1.1052,
      trailing_stop_pips: 15,
    });
    await waitFor(() => expect(field('Stop Loss').value).toBe(''));
  });
});

describe('the account after the order', () => {
  it('EURUSD BUY 1 lot on 10,000: margin level 907.19%, free margin $8,879.90, margin call at 1.01030, stop-out at 1.00522', async () => {
    // Equity 10,000 − 20 (the spread) = 9,980; margin 100,000 × 1.1001 ÷ 100 = 1,100.10.
    // Margin call: 10,000 + 100,000 (b − 1.1002) ≤ 1,000 (b + 0.0001) → b ≤ 1.0103040…; stop-out at 50 %: b ≤ 1.0052266….
    await renderPair();
    await type('Lot Size', '1');
    await waitFor(() => expect(screen.getByTestId('margin-level-after')).toHaveTextContent('907.19%'));
    expect(screen.getByTestId('free-margin-after')).toHaveTextContent('$8,879.90');
    expect(screen.getByTestId('margin-call-at')).toHaveTextContent('1.01030');
    expect(screen.getByTestId('stop-out-at')).toHaveTextContent('1.00522');
  });

  it('counts the open positions: selling what is held long frees its margin and leaves nothing to call', async () => {
    platform = makePlatformData({
      fx_pairs: PAIRS,
      trading_account: account,
      open_positions: [makePosition({ fx_pair_symbol: 'EURUSD', quantity: 1, average_entry_price: 1.1002 })],
    });
    await renderPair();
    await type('Lot Size', '1');
    // Buying adds to the long: 2 lots can be called.
    await waitFor(() => expect(screen.getByTestId('margin-call-at')).not.toHaveTextContent('—'));
    await userEvent.setup().click(screen.getByRole('radio', { name: 'SELL' }));
    await type('Lot Size', '1');
    await waitFor(() => expect(screen.getByTestId('margin-level-after')).toHaveTextContent('—'));
    expect(screen.getByTestId('margin-call-at')).toHaveTextContent('—');
    // Closed at the bid 1.10000 from 1.10020: −20.00 realized, nothing left open.
    expect(screen.getByTestId('free-margin-after')).toHaveTextContent('$9,980.00');
  });

  it('a pending order is valued where it fills: BUY LIMIT 1 lot at 1.09000', async () => {
    const user = userEvent.setup();
    await renderPair();
    await type('Lot Size', '1');
    await user.selectOptions(orderType(), 'LIMIT');
    await type('Limit Price', '1.09000');
    // At the fill the ask is 1.09000 and the bid 1.08980: equity 9,980; margin 100,000 × 1.0899 ÷ 100 = 1,089.90.
    await waitFor(() => expect(screen.getByTestId('margin-level-after')).toHaveTextContent('915.68%'));
    expect(screen.getByTestId('free-margin-after')).toHaveTextContent('$8,890.10');
  });
});

describe('the dashboard’s ticket', () => {
  it('pre-fills a pending price once a pair is chosen, and sends the pending order', async () => {
    const user = userEvent.setup();
    server.script(PLACE_PENDING, pendingAnswer({ order_type: 'STOP', side: 'SELL', price: 1.099, quantity: 0.01 }));
    renderTrading(<DashboardPage />);
    const form = await screen.findByRole('form', { name: 'Place Market Order' });
    await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
    await user.selectOptions(within(form).getByLabelText('Order Type'), 'STOP');
    expect(within(form).getByLabelText('Stop Price')).toHaveValue('');
    await user.selectOptions(within(form).getByLabelText('Currency Pair'), String(EURUSD.id));
    await user.click(within(form).getByRole('radio', { name: 'SELL' }));
    await waitFor(() => expect(within(form).getByLabelText('Stop Price')).toHaveValue('1.09900'));
    await user.click(within(form).getByRole('button', { name: 'Place Order' }));
    await waitFor(() => expect(server.callsTo(PLACE_PENDING)).toHaveLength(1));
    expect(server.callsTo(PLACE_PENDING)[0]!.body).toEqual({
      symbol: 'EURUSD',
      side: 'SELL',
      quantity: 0.01,
      order_type: 'STOP',
      price: 1.099,
      time_in_force: 'GTC',
    });
    expect(await findNotice('SELL STOP 0.01 EURUSD at 1.09900')).toHaveTextContent('Pending order placed');
  });

  it('a ticket problem also goes to the banner when the form is sent anyway', async () => {
    const user = userEvent.setup();
    renderTrading(<DashboardPage />);
    const form = await screen.findByRole('form', { name: 'Place Market Order' });
    await waitFor(() => expect(server.callsTo('/api/trading/current-prices/').length).toBeGreaterThan(0));
    await user.selectOptions(within(form).getByLabelText('Currency Pair'), String(EURUSD.id));
    await user.type(within(form).getByLabelText('Trailing Stop (pips)'), '2000');
    expect(within(form).getByRole('button', { name: 'Place Order' })).toBeDisabled();
    act(() => (form as HTMLFormElement).requestSubmit());
    expect(await screen.findByRole('alert')).toHaveTextContent('Trailing stop must be a whole number of pips from 5 to 1000');
    expect(server.callsTo(PLACE_MARKET)).toHaveLength(0);
  });
});
