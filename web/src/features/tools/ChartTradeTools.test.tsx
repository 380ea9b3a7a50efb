import { type ChartLayout, DEFAULT_CHART_LAYOUT } from '@pipdesk/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { IChartApi, ISeriesApi } from 'lightweight-charts';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FakeAuthServer } from '../../test/fakeAuthServer';
import { ChartApiContext } from '../chart/ChartContext';
import {
  allowSlowScreens,
  findNotice,
  makeOrder,
  makePlatformData,
  makePosition,
  ok,
  renderTrading,
  startTradingServer,
} from '../trading/testSupport';
import { ChartTradeTools } from './ChartTradeTools';

// The tools over a chart (docs/charting.md#one-click-trading-and-hotkeys), on a stand-in chart.

allowSlowScreens();

const LAYOUT = '/api/trading/chart-layout/';
const PLACE = '/api/trading/place-market-order/';
const ALERTS = '/api/trading/alerts/';
let server: FakeAuthServer;
let layout: ChartLayout;

beforeEach(() => {
  layout = {
    ...DEFAULT_CHART_LAYOUT,
    charts: [{ symbol: 'GBPUSD', timeframe: 'h4', indicators: [{ kind: 'sma', period: 50 }] }],
  };
  server = startTradingServer(() => makePlatformData());
  server.on(LAYOUT, (call) => {
    if (call.method === 'PUT') layout = call.body as ChartLayout;
    return ok(layout);
  });
  server.on(PLACE, (call) => {
    const body = call.body as { side: 'BUY' | 'SELL'; quantity: number };
    const order = makeOrder({ side: body.side, quantity: body.quantity, filled_quantity: body.quantity });
    return ok({
      order,
      position: makePosition(),
      execution_details: { execution_price: 1.20006, margin_required: 12, units: 1, executed_at: '2026-04-01T12:00:00.000Z' },
    });
  });
});

/** A chart as the chart component provides it: the crosshair at 1.21 (above the bid of 1.19994). */
function renderOnChart(crosshair: number | null = 1.21) {
  const container = document.createElement('div');
  document.body.append(container);
  const chart = {
    chart: {} as IChartApi,
    series: { data: () => [{ time: 1, open: 1.2, high: 1.2, low: 1.2, close: 1.2 }] } as unknown as ISeriesApi<'Candlestick'>,
    symbol: 'EURUSD',
    timeframe: 'h1' as const,
    container,
    crosshairPrice: () => crosshair,
  };
  return renderTrading(
    <ChartApiContext.Provider value={chart}>
      <ChartTradeTools />
    </ChartApiContext.Provider>,
  );
}

const oneClick = () => screen.getByRole('switch', { name: 'One-click trading' });

describe('one-click trading on the chart', () => {
  it('shows no SELL/BUY buttons while the setting is off (the default), and places no order', async () => {
    renderOnChart();
    await waitFor(() => expect(oneClick()).toBeEnabled());
    expect(oneClick()).toHaveAttribute('aria-checked', 'false');
    expect(screen.queryByRole('button', { name: /^BUY / })).toBeNull();
    expect(screen.queryByRole('button', { name: /^SELL / })).toBeNull();
    expect(server.callsTo(PLACE)).toHaveLength(0);
  });

  it('once switched on (kept with the rest of the layout), BUY and SELL trade the lot size at once', async () => {
    const user = userEvent.setup();
    renderOnChart();
    await waitFor(() => expect(oneClick()).toBeEnabled());
    await user.click(oneClick());
    await waitFor(() => expect(server.callsTo(LAYOUT).filter((c) => c.method === 'PUT')).toHaveLength(1));
    // The charts and indicators are sent back as they were: only the setting changed.
    expect(server.callsTo(LAYOUT).find((c) => c.method === 'PUT')?.body).toEqual({
      ...layout,
      charts: [{ symbol: 'GBPUSD', timeframe: 'h4', indicators: [{ kind: 'sma', period: 50 }] }],
      settings: { one_click: true, one_click_lots: 0.01 },
    });
    expect(oneClick()).toHaveAttribute('aria-checked', 'true');

    const lots = screen.getByRole('spinbutton', { name: 'One-click lot size' });
    await user.clear(lots);
    await user.type(lots, '0.25');
    await user.click(await screen.findByRole('button', { name: /^BUY 0\.25 EURUSD at 1\.20006$/ }));
    await waitFor(() => expect(server.callsTo(PLACE)).toHaveLength(1));
    expect(server.callsTo(PLACE)[0]?.body).toEqual({ symbol: 'EURUSD', side: 'BUY', quantity: 0.25 });
    // The placement's own Idempotency-Key, as the forms send it.
    const init = server.fetch.mock.calls.find(([input]) => String(input).endsWith(PLACE))?.[1] as RequestInit;
    expect(new Headers(init.headers).get('idempotency-key')).toMatch(/.{8,}/);
    expect(await findNotice('BUY 0.25 EURUSD filled at 1.08734')).toHaveTextContent('Order filled');
    // Leaving the lot size keeps it with the settings.
    await waitFor(() => expect(layout.settings.one_click_lots).toBe(0.25));

    await user.click(screen.getByRole('button', { name: /^SELL 0\.25 EURUSD at 1\.19994$/ }));
    await waitFor(() => expect(server.callsTo(PLACE)).toHaveLength(2));
    expect(server.callsTo(PLACE)[1]?.body).toEqual({ symbol: 'EURUSD', side: 'SELL', quantity: 0.25 });
  });
});

describe('an alert from the chart', () => {
  it('Alt+A opens the alert at the crosshair, above the bid, and Save sets it', async () => {
    const user = userEvent.setup();
    server.on(ALERTS, (call) => ({
      status: 201,
      body: {
        success: true,
        data: {
          alert: {
            id: 12,
            ...(call.body as object),
            note: null,
            status: 'ACTIVE',
            created_at: '2026-04-01T12:00:00.000Z',
            expires_at: null,
            triggered_at: null,
            triggered_price: null,
          },
        },
      },
    }));
    renderOnChart();
    await screen.findByRole('button', { name: 'Alert' });
    await user.keyboard('{Alt>}a{/Alt}');
    const dialog = await screen.findByRole('dialog', { name: 'Price alert on EURUSD' });
    expect(within(dialog).getByLabelText('Price')).toHaveValue('1.21000');
    expect(within(dialog).getByLabelText('Price')).toHaveFocus();
    expect(within(dialog).getByLabelText('Condition')).toHaveValue('bid_above');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(server.callsTo(ALERTS)).toHaveLength(1));
    expect(server.callsTo(ALERTS)[0]?.body).toEqual({ symbol: 'EURUSD', condition: 'bid_above', price: 1.21 });
    expect(await findNotice('EURUSD bid above 1.21000')).toHaveTextContent('Alert set');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('the Alert button: a crosshair below the bid makes it bid_below; Esc closes and gives the focus back', async () => {
    const user = userEvent.setup();
    renderOnChart(1.15);
    await user.click(await screen.findByRole('button', { name: 'Alert' }));
    const dialog = await screen.findByRole('dialog', { name: 'Price alert on EURUSD' });
    expect(within(dialog).getByLabelText('Condition')).toHaveValue('bid_below');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole('button', { name: 'Alert' })).toHaveFocus();
  });
});
