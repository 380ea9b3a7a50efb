// The pair page chart's timeframes and indicators (DESIGN §18): what it asks the server, what it
// subscribes on the price socket, and what it hands the chart library (a stand-in: jsdom has no canvas).
import type { Candle, ChartLayout, Indicator } from '@pipdesk/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { PriceChart } from '../market/PriceChart';
import { PriceStream } from '../market/priceStream';
import { EURUSD, FakeSocket, minuteCandles, serveMarket } from '../market/testMarket';
import { computeIndicator } from './indicators/engine';
import { lastChart, resetFakeCharts } from './testChart';

vi.mock('lightweight-charts', async () => (await import('./testChart')).fakeLightweightCharts);
// The drawings and trade tools over the chart have tests of their own.
vi.mock('./ChartLayers', () => ({ ChartLayers: () => null }));

const NOW = Date.UTC(2026, 2, 12, 10, 30, 20);
const HOUR = 3_600_000;
/** 700 hourly candles of history: two full pages, one of 100, then nothing. */
const HISTORY = minuteCandles(700, NOW, HOUR);
const CHART_PATH = '/api/trading/pair/EURUSD/chart-data/';
const LAYOUT_PATH = '/api/trading/chart-layout/';

let server: FakeAuthServer;
let layout: ChartLayout;
let saved: ChartLayout[];

function chartBox() {
  return screen.getByTestId('price-chart');
}

/** The chart-data calls' queries, in order. */
function chartQueries(): Array<Record<string, string>> {
  return server.fetch.mock.calls
    .map(([input]) => new URL(String(input), 'http://pipdesk.test'))
    .filter((url) => url.pathname === CHART_PATH)
    .map((url) => Object.fromEntries(url.searchParams));
}

function openStream() {
  const stream = new PriceStream('EURUSD', { reconnectDelayMs: 10 });
  stream.start();
  const socket = FakeSocket.last;
  act(() => socket.open());
  return { stream, socket };
}

beforeEach(() => {
  vi.clearAllMocks();
  resetFakeCharts();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  FakeSocket.install();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  serveMarket(server, { pairs: [EURUSD], charts: { EURUSD: { '1h': minuteCandles(60, NOW) } } });
  const url = () => new URL(String(server.fetch.mock.calls.at(-1)?.[0]), 'http://pipdesk.test');
  server.on(CHART_PATH, () => {
    const q = url().searchParams;
    if (!q.get('timeframe')) return { status: 200, body: { success: true, data: minuteCandles(60, NOW) } };
    const before = Number(q.get('before') ?? Number.POSITIVE_INFINITY);
    const older = HISTORY.filter((c) => c.time < before);
    return { status: 200, body: { success: true, data: older.slice(-Number(q.get('limit'))) } };
  });
  layout = {
    layout: 1,
    charts: [{ symbol: 'EURUSD', timeframe: 'h1', indicators: [] }],
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

describe('timeframes on the pair page (DESIGN §18)', () => {
  it('M1 … D1 sit beside the spec’s ranges; H1 loads 300 candles, shows the newest 120 and subscribes the socket to h1', async () => {
    const user = userEvent.setup();
    const { stream, socket } = openStream();
    renderWithProviders(<PriceChart pair={EURUSD} stream={stream} />);
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '60'));
    const group = screen.getByRole('group', { name: 'Chart timeframe' });
    expect(
      within(group)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['M1', 'M5', 'M15', 'M30', 'H1', 'H4', 'D1']);

    await user.click(screen.getByRole('button', { name: 'H1' }));
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '300'));
    expect(chartBox()).toHaveAttribute('data-timeframe', 'h1');
    expect(chartBox()).not.toHaveAttribute('data-range');
    expect(chartQueries().at(-1)).toEqual({ timeframe: 'h1', limit: '300' });
    expect(screen.getByRole('button', { name: 'H1' })).toHaveAttribute('aria-pressed', 'true');
    for (const b of within(screen.getByRole('group', { name: 'Chart range' })).getAllByRole('button'))
      expect(b).toHaveAttribute('aria-pressed', 'false');
    expect(socket.sent.slice(-2)).toEqual([
      { type: 'unsubscribe_prices', symbol: 'EURUSD' },
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: 'h1', last_chart_time: null },
    ]);
    await waitFor(() => expect(lastChart().timeScaleApi.setVisibleLogicalRange).toHaveBeenCalledWith({ from: 180, to: 302 }));

    // A range brings the spec's chart back, and the socket's one-minute candles.
    await user.click(screen.getByRole('button', { name: '1H' }));
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-range', '1h'));
    expect(chartBox()).toHaveAttribute('data-candles', '60');
    expect(socket.sent.at(-1)).toMatchObject({ type: 'subscribe_prices', timeframe: '1m' });
    stream.stop();
  });

  it('loads older candles with `before` as the trader scrolls back: one call at a time, none after an empty answer', async () => {
    const user = userEvent.setup();
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await user.click(await screen.findByRole('button', { name: 'H4' }));
    await user.click(screen.getByRole('button', { name: 'H1' }));
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '300'));
    const withBefore = () => chartQueries().filter((q) => q.before !== undefined);

    act(() => {
      lastChart().scrollTo(50);
    });
    expect(withBefore()).toHaveLength(0);
    act(() => {
      for (let i = 0; i < 3; i++) lastChart().scrollTo(4 - i);
    });
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '600'));
    expect(withBefore()).toEqual([{ timeframe: 'h1', limit: '300', before: String(HISTORY[400]!.time) }]);
    const times = chartBox().getAttribute('data-candle-times')!.split(',').map(Number);
    expect(times).toEqual(HISTORY.slice(100).map((c) => c.time));

    act(() => lastChart().scrollTo(2));
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '700'));
    act(() => lastChart().scrollTo(1));
    await waitFor(() => expect(withBefore()).toHaveLength(3));
    expect(withBefore()[2]?.before).toBe(String(HISTORY[0]!.time));
    // The empty answer ended the history: scrolling further asks nothing.
    await new Promise((r) => setTimeout(r, 50));
    act(() => lastChart().scrollTo(0));
    await new Promise((r) => setTimeout(r, 50));
    expect(withBefore()).toHaveLength(3);
    expect(chartBox()).toHaveAttribute('data-candles', '700');
  });

  it('follows the live candle of the subscribed timeframe only', async () => {
    const user = userEvent.setup();
    const { stream, socket } = openStream();
    renderWithProviders(<PriceChart pair={EURUSD} stream={stream} />);
    await user.click(await screen.findByRole('button', { name: 'H1' }));
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '300'));
    const candles = lastChart().candles();
    await waitFor(() => expect(candles.data).toHaveLength(300));
    const last = HISTORY.at(-1)!;

    act(() =>
      socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: 'm1', candle: { ...last, close: 1.5, high: 1.5 } }),
    );
    // The live candle goes to the candles' tail series (liveSeries.ts); the history is left alone.
    expect(candles.tail!.update).not.toHaveBeenCalled();
    act(() =>
      socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: 'h1', candle: { ...last, close: 1.2, high: 1.2 } }),
    );
    expect(candles.update).not.toHaveBeenCalled();
    expect(candles.tail!.update).toHaveBeenLastCalledWith(expect.objectContaining({ time: last.time / 1000, close: 1.2 }));
    const next: Candle = { ...last, time: last.time + HOUR, open: 1.2, close: 1.21 };
    act(() => socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: 'h1', candle: next }));
    expect(chartBox()).toHaveAttribute('data-candles', '301');
    // A reconnect asks for the candles after the newest one.
    act(() => socket.drop());
    await waitFor(() => expect(FakeSocket.opened).toHaveLength(2));
    act(() => FakeSocket.last.open());
    expect(FakeSocket.last.sent).toEqual([
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: 'h1', last_chart_time: next.time },
    ]);
    stream.stop();
  });

  it('keys 1–7 choose the timeframes, but not while typing in a field', async () => {
    const user = userEvent.setup();
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '60'));
    await user.keyboard('5');
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-timeframe', 'h1'));
    await user.keyboard('7');
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-timeframe', 'd1'));

    await user.click(screen.getByRole('button', { name: /Indicators/ }));
    await user.click(screen.getByRole('button', { name: 'Add' }));
    const period = await screen.findByRole('spinbutton', { name: 'Simple moving average Period' });
    await user.click(period);
    await user.keyboard('2');
    expect(chartBox()).toHaveAttribute('data-timeframe', 'd1');
  });
});

describe('indicators on the pair page (DESIGN §18)', () => {
  const withIndicators = (indicators: Indicator[]) => {
    layout = { ...layout, charts: [{ ...layout.charts[0]!, indicators }] };
  };

  it('draws the saved indicators (overlay on the price pane, oscillator in its own) with the values of the engine, and a legend', async () => {
    withIndicators([
      { kind: 'sma', period: 3 },
      { kind: 'rsi', period: 14 },
    ]);
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-panes', '1'));
    const chart = lastChart();
    await waitFor(() => expect(chart.live().filter((s) => s.type === 'Line')).toHaveLength(2));
    const [sma, rsi] = chart.live().filter((s) => s.type === 'Line');
    expect([sma!.pane, rsi!.pane]).toEqual([0, 1]);
    const candles = minuteCandles(60, NOW);
    await waitFor(() => expect(sma!.data).toHaveLength(58));
    const expected = computeIndicator({ kind: 'sma', period: 3 }, candles).filter((v) => v !== null);
    expect(sma!.data.map((p) => p.value)).toEqual(expected.map((v) => v[0]));
    expect(rsi!.data).toHaveLength(60 - 14);

    const legend = screen.getByTestId('indicator-legend');
    const rsiLast = computeIndicator({ kind: 'rsi', period: 14 }, candles).at(-1)![0]!;
    expect(legend).toHaveTextContent(`SMA 3 ${expected.at(-1)![0]!.toFixed(5)}`);
    expect(legend).toHaveTextContent(`RSI 14 ${rsiLast.toFixed(2)}`);

    // At the crosshair: the values there.
    act(() => {
      for (const h of chart.crosshairHandlers)
        h({
          time: 1,
          point: { x: 1, y: 1 },
          paneIndex: 0,
          seriesData: new Map([
            [sma, { value: 1.23456 }],
            [rsi, { value: 55.214 }],
          ]),
        });
    });
    expect(legend).toHaveTextContent('SMA 3 1.23456');
    expect(legend).toHaveTextContent('RSI 14 55.21');
  });

  it('moves the indicators one step on the live candle instead of drawing them again', async () => {
    withIndicators([{ kind: 'ema', period: 5 }]);
    const { stream, socket } = openStream();
    renderWithProviders(<PriceChart pair={EURUSD} stream={stream} />);
    const chart = await waitFor(() => {
      const c = lastChart();
      expect(c.live().filter((s) => s.type === 'Line')).toHaveLength(1);
      return c;
    });
    const ema = chart.live().find((s) => s.type === 'Line')!;
    await waitFor(() => expect(ema.data.length).toBeGreaterThan(0));
    const setDataCalls = ema.setData.mock.calls.length + ema.tail!.setData.mock.calls.length;
    const last = minuteCandles(60, NOW).at(-1)!;
    act(() => socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: '1m', candle: { ...last, close: 1.2 } }));
    expect(ema.setData.mock.calls.length + ema.tail!.setData.mock.calls.length).toBe(setDataCalls);
    expect(ema.update).not.toHaveBeenCalled();
    const moved = [...minuteCandles(60, NOW).slice(0, -1), { ...last, close: 1.2 }];
    const want = computeIndicator({ kind: 'ema', period: 5 }, moved).at(-1)![0]!;
    expect(ema.tail!.update).toHaveBeenLastCalledWith({ time: last.time / 1000, value: want });
    // The legend's figure follows the tick (written into its text, not rendered again).
    expect(screen.getByTestId('indicator-legend')).toHaveTextContent(`EMA 5 ${want.toFixed(5)}`);
    stream.stop();
  });

  it('adds, edits and removes indicators from the Indicators panel; the layout is saved after a pause, a refused value is not', async () => {
    const user = userEvent.setup();
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', '60'));
    await waitFor(() => expect(server.callsTo(LAYOUT_PATH)).toHaveLength(1));
    await user.click(screen.getByRole('button', { name: 'Indicators' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Indicator to add' }), 'Relative strength index');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(saved).toHaveLength(1), { timeout: 3000 });
    expect(saved[0]!.charts[0]!.indicators).toEqual([{ kind: 'rsi', period: 14 }]);
    expect(chartBox()).toHaveAttribute('data-panes', '1');

    const period = screen.getByRole('spinbutton', { name: 'Relative strength index Period' });
    await user.clear(period);
    await user.type(period, '0');
    expect(await screen.findByRole('alert')).toHaveTextContent('Period must be at least 1');
    await user.clear(period);
    await user.type(period, '21');
    await waitFor(() => expect(saved.at(-1)!.charts[0]!.indicators).toEqual([{ kind: 'rsi', period: 21 }]), { timeout: 3000 });
    // Typing "21" went through "2": one save after the pause, not one per keystroke.
    expect(saved).toHaveLength(2);

    await user.click(screen.getByRole('button', { name: 'Remove RSI 21' }));
    await waitFor(() => expect(saved.at(-1)!.charts[0]!.indicators).toEqual([]), { timeout: 3000 });
    expect(chartBox()).not.toHaveAttribute('data-panes');
  });
});
