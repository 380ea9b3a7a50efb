import type { OrderDto } from '@pipdesk/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { MarginCallBanner } from './LiveBadges';
import {
  FakeSocket,
  findNotice,
  makeOrder,
  makePlatformData,
  makePosition,
  notifications,
  renderTrading,
  serveTrading,
} from './testSupport';

// docs/screens.md#notices: what happened on the account shows on any page, from the trading socket.

beforeEach(() => {
  FakeSocket.reset();
  const server = new FakeAuthServer().install();
  server.signedInBefore();
  serveTrading(server, () => makePlatformData());
});

async function connected() {
  await waitFor(() => expect(FakeSocket.last).toBeDefined());
  act(() => FakeSocket.last!.establish());
  return FakeSocket.last!;
}

const shown = () =>
  within(notifications())
    .queryAllByRole('listitem')
    .map((li) => li.textContent);

function confirmation(order: OrderDto) {
  return { type: 'order_confirmation', data: { order, position: makePosition(), execution_details: null } } as const;
}

describe('notices from the trading socket', () => {
  it('a fill made elsewhere (another tab, another device) shows once, however many messages report it', async () => {
    renderTrading(<p>Any page</p>);
    const ws = await connected();
    const order = makeOrder({ id: 77, side: 'BUY', filled_quantity: 0.1, average_fill_price: 1.08734 });
    act(() => ws.receive({ type: 'order_update', data: { order } }));
    act(() => ws.receive(confirmation(order)));
    expect(await findNotice('BUY 0.10 EURUSD filled at 1.08734')).toHaveTextContent(
      /^Order filledBUY 0\.10 EURUSD filled at 1\.08734$/,
    );
    expect(shown()).toHaveLength(1);
  });

  it('a rejection, with its reason', async () => {
    renderTrading(<p>Any page</p>);
    const ws = await connected();
    const order = makeOrder({
      id: 78,
      status: 'REJECTED',
      quantity: 50,
      filled_quantity: 0,
      average_fill_price: null,
      rejection_reason: 'Insufficient free margin',
    });
    act(() => ws.receive(confirmation(order)));
    expect(await findNotice('BUY 50.00 EURUSD: Insufficient free margin')).toHaveTextContent('Order rejected');
  });

  it('a stop-out', async () => {
    renderTrading(<p>Any page</p>);
    const ws = await connected();
    const order = makeOrder({
      id: 79,
      side: 'SELL',
      reason: 'stop_out',
      filled_quantity: 1,
      quantity: 1,
      average_fill_price: 1.05,
    });
    act(() => ws.receive(confirmation(order)));
    expect(await findNotice('SELL 1.00 EURUSD filled at 1.05000')).toHaveTextContent('Stop-out');
  });

  const pending = { order_type: 'LIMIT', price: 1.08, filled_quantity: 0, average_fill_price: null, position_id: null } as const;
  it.each<[string, Partial<OrderDto>, string, string]>([
    [
      'a stop loss',
      { reason: 'stop_loss', side: 'SELL', average_fill_price: 1.07 },
      'Stop loss triggered',
      'SELL 0.10 EURUSD filled at 1.07000',
    ],
    [
      'a take profit',
      { reason: 'take_profit', side: 'SELL', average_fill_price: 1.1 },
      'Take profit triggered',
      'SELL 0.10 EURUSD filled at 1.10000',
    ],
    [
      'a trailing stop',
      { reason: 'trailing_stop', side: 'BUY', fx_pair_symbol: 'USDJPY', average_fill_price: 151.2 },
      'Trailing stop triggered',
      'BUY 0.10 USDJPY filled at 151.200',
    ],
    [
      'a pending order filling',
      { order_type: 'LIMIT', price: 1.08, average_fill_price: 1.08 },
      'Pending order filled',
      'BUY LIMIT 0.10 EURUSD filled at 1.08000',
    ],
    ['a pending order placed', { ...pending, status: 'PENDING' }, 'Pending order placed', 'BUY LIMIT 0.10 EURUSD at 1.08000'],
    ['a cancel', { ...pending, status: 'CANCELLED' }, 'Order cancelled', 'BUY LIMIT 0.10 EURUSD at 1.08000'],
    ['an expiry', { ...pending, status: 'EXPIRED' }, 'Order expired', 'BUY LIMIT 0.10 EURUSD at 1.08000'],
    [
      'a pending order modified',
      { ...pending, status: 'PENDING', price: 1.079, updated_at: '2026-04-01T12:03:00.000Z' },
      'Order modified',
      'BUY LIMIT 0.10 EURUSD at 1.07900',
    ],
    [
      'a pending order refused at its fill',
      { ...pending, status: 'REJECTED', rejection_reason: 'Insufficient free margin' },
      'Order rejected',
      'BUY LIMIT 0.10 EURUSD: Insufficient free margin',
    ],
    [
      "a stop limit's stop",
      { ...pending, order_type: 'STOP_LIMIT', status: 'PENDING', limit_price: 1.081, triggered_at: '2026-04-01T12:01:00.000Z' },
      'Stop triggered',
      'BUY STOP LIMIT 0.10 EURUSD now rests as a limit at 1.08100',
    ],
  ])('order_update: %s', async (_what, overrides, title, text) => {
    renderTrading(<p>Any page</p>);
    const ws = await connected();
    act(() => ws.receive({ type: 'order_update', data: { order: makeOrder({ id: 80, ...overrides }) } }));
    expect(await findNotice(text)).toHaveTextContent(title);
  });

  it('a partial close made elsewhere reads Position partly closed (its position stays open)', async () => {
    renderTrading(<p>Any page</p>);
    const ws = await connected();
    const order = makeOrder({
      id: 81,
      side: 'SELL',
      reason: 'close',
      quantity: 0.04,
      filled_quantity: 0.04,
      average_fill_price: 1.09,
    });
    act(() =>
      ws.receive({
        type: 'order_confirmation',
        data: { order, position: makePosition({ quantity: 0.06 }), execution_details: null },
      }),
    );
    act(() => ws.receive({ type: 'order_update', data: { order } }));
    expect(await findNotice('SELL 0.04 EURUSD filled at 1.09000')).toHaveTextContent('Position partly closed');
    expect(shown()).toHaveLength(1);
  });

  it('each change of a pending order shows once, a second change again', async () => {
    renderTrading(<p>Any page</p>);
    const ws = await connected();
    const order = makeOrder({ ...pending, id: 82, status: 'PENDING', updated_at: '2026-04-01T12:03:00.000Z' });
    act(() => ws.receive({ type: 'order_update', data: { order } }));
    act(() => ws.receive({ type: 'order_update', data: { order } }));
    await findNotice('BUY LIMIT 0.10 EURUSD at 1.08000');
    act(() =>
      ws.receive({ type: 'order_update', data: { order: { ...order, price: 1.07, updated_at: '2026-04-01T12:04:00.000Z' } } }),
    );
    await findNotice('BUY LIMIT 0.10 EURUSD at 1.07000');
    expect(shown()).toHaveLength(2);
  });

  const marginCall = {
    type: 'margin_call',
    data: { margin_level: 95.5, equity: 955, margin_used: 1000, message: 'Margin call: your margin level is 95.50%.' },
  } as const;

  it('a margin call on a page without the margin call banner', async () => {
    renderTrading(<p>Any page</p>);
    const ws = await connected();
    act(() => ws.receive(marginCall));
    expect(await findNotice('Margin call: your margin level is 95.50%.')).toHaveTextContent('Margin call');
  });

  it('no notice for a margin call where the banner shows it (the dashboard)', async () => {
    renderTrading(<MarginCallBanner />);
    const ws = await connected();
    act(() => ws.receive(marginCall));
    expect(await screen.findByRole('status')).toHaveTextContent('Margin call: your margin level is 95.50%.');
    expect(shown()).toEqual([]);
  });
});
