import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { PriceChart } from './PriceChart';
import { PriceStream } from './priceStream';
import { chartRangesAsked, EURUSD, FakeSocket, type MarketFixture, minuteCandles, serveMarket, USDJPY } from './testMarket';

// jsdom has no canvas: lightweight-charts is replaced at its module boundary, and the tests
// read what the app handed to the chart, its candlestick series and its volume histogram. Each is
// drawn as two series (chart/liveSeries.ts): the history, then its tail with the newest candle; a
// hidden series holds the bar times ahead (its whitespace is no candle).
const lwc = vi.hoisted(() => {
  const mock = () => ({ setData: vi.fn(), update: vi.fn(), applyOptions: vi.fn() });
  const series = mock();
  const seriesTail = mock();
  const volume = mock();
  const volumeTail = mock();
  const future = mock();
  const added = { Candlestick: 0, Histogram: 0 };
  const timeScale = {
    fitContent: vi.fn(),
    setVisibleLogicalRange: vi.fn(),
    subscribeVisibleLogicalRangeChange: vi.fn(),
    unsubscribeVisibleLogicalRangeChange: vi.fn(),
  };
  const priceScale = { applyOptions: vi.fn() };
  const chart = {
    addSeries: vi.fn((definition: { type: string }, options: { visible?: boolean } = {}) => {
      if (options.visible === false) return future;
      const tail = (definition.type === 'Histogram' ? added.Histogram++ : added.Candlestick++) % 2 === 1;
      if (definition.type === 'Histogram') return tail ? volumeTail : volume;
      return tail ? seriesTail : series;
    }),
    applyOptions: vi.fn(),
    remove: vi.fn(),
    timeScale: () => timeScale,
    priceScale: vi.fn(() => priceScale),
    subscribeCrosshairMove: vi.fn(),
    unsubscribeCrosshairMove: vi.fn(),
    removeSeries: vi.fn(),
    panes: () => [],
    removePane: vi.fn(),
  };
  return { series, seriesTail, volume, volumeTail, timeScale, priceScale, chart, createChart: vi.fn(() => chart) };
});
// The drawings and trade tools over the chart have tests of their own.
vi.mock('../chart/ChartLayers', () => ({ ChartLayers: () => null }));
vi.mock('lightweight-charts', () => ({
  createChart: lwc.createChart,
  CandlestickSeries: { type: 'Candlestick' },
  HistogramSeries: { type: 'Histogram' },
  LineSeries: { type: 'Line' },
  ColorType: { Solid: 'solid' },
  CrosshairMode: { Normal: 0 },
}));

const NOW = Date.UTC(2026, 2, 12, 10, 30, 20);
const HOUR = 3_600_000;
let server: FakeAuthServer;
let fixture: MarketFixture;

const hourly = (count: number) => minuteCandles(count, NOW, HOUR);
/** The candles last handed over whole: the history's, then its tail's (the newest). */
const lastSetData = () =>
  [...(lwc.series.setData.mock.calls.at(-1)?.[0] ?? []), ...(lwc.seriesTail.setData.mock.calls.at(-1)?.[0] ?? [])] as Array<{
    time: number;
    close: number;
  }>;

function chartBox() {
  return screen.getByTestId('price-chart');
}

/** Waits until the box says `count` candles and the (lazily loaded) chart has been handed them. */
async function drawn(count: number) {
  await waitFor(() => expect(chartBox()).toHaveAttribute('data-candles', String(count)));
  await waitFor(() => expect(lastSetData()).toHaveLength(count));
}

beforeEach(() => {
  vi.clearAllMocks();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  FakeSocket.install();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  fixture = {
    pairs: [EURUSD, USDJPY],
    charts: { EURUSD: { '1h': minuteCandles(60, NOW), '1w': hourly(168) }, USDJPY: { '1h': minuteCandles(60, NOW) } },
  };
  serveMarket(server, fixture);
});

describe('Price Chart (docs/screens.md#pair-page)', () => {
  it('draws the 1h range by default: 60 candles handed to the series with times in seconds UTC', async () => {
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await drawn(60);
    expect(chartRangesAsked(server, 'EURUSD')).toEqual(['1h']);
    expect(screen.getByRole('button', { name: '1H' })).toHaveAttribute('aria-pressed', 'true');
    const candles = minuteCandles(60, NOW);
    expect(lastSetData()).toEqual(
      candles.map((c) => ({ time: c.time / 1000, open: c.open, high: c.high, low: c.low, close: c.close })),
    );
    expect(chartBox()).toHaveAttribute('data-candle-times', candles.map((c) => c.time).join(','));
    expect(lwc.chart.addSeries).toHaveBeenCalledWith(
      { type: 'Candlestick' },
      expect.objectContaining({ priceFormat: { type: 'price', precision: 5, minMove: 0.00001 } }),
    );
    expect(lwc.createChart).toHaveBeenCalledWith(expect.any(HTMLElement), expect.objectContaining({ autoSize: true }));
    expect(screen.queryByText('No chart data available')).toBeNull();
  });

  it('draws the tick volume of each candle as a histogram in the bottom of the chart, under the candles', async () => {
    fixture.charts!.EURUSD!['1h'] = minuteCandles(60, NOW).map((c, i) => (i === 0 ? { ...c, close: c.open - 0.0005 } : c));
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await drawn(60);
    expect(lwc.chart.addSeries).toHaveBeenCalledWith(
      { type: 'Histogram' },
      expect.objectContaining({ priceScaleId: 'volume', lastValueVisible: false, priceLineVisible: false }),
    );
    const candles = fixture.charts!.EURUSD!['1h']!;
    const columns = [
      ...(lwc.volume.setData.mock.calls.at(-1)?.[0] ?? []),
      ...(lwc.volumeTail.setData.mock.calls.at(-1)?.[0] ?? []),
    ] as Array<{ time: number; value: number; color: string }>;
    expect(columns.map((c) => [c.time, c.value])).toEqual(candles.map((c) => [c.time / 1000, c.volume]));
    // A falling candle's column has the falling colour, a rising one's the rising colour.
    expect(columns[0]?.color).not.toBe(columns[1]?.color);
    expect(new Set(columns.slice(1).map((c) => c.color)).size).toBe(1);

    // The volume keeps the bottom of the chart and the candles stop above it.
    expect(lwc.chart.priceScale).toHaveBeenCalledWith('volume');
    const volumeMargins = lwc.priceScale.applyOptions.mock.calls.at(-1)?.[0].scaleMargins as { top: number; bottom: number };
    const options = (lwc.createChart.mock.calls.at(-1) as unknown[] | undefined)?.[1] as {
      rightPriceScale: { scaleMargins: { top: number; bottom: number } };
    };
    expect(volumeMargins.bottom).toBe(0);
    expect(1 - options.rightPriceScale.scaleMargins.bottom).toBeLessThanOrEqual(volumeMargins.top);
  });

  it('puts no last-price label over the price axis; the legend gives the last price and its tick volume', async () => {
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await drawn(60);
    expect(lwc.chart.addSeries).toHaveBeenCalledWith(
      { type: 'Candlestick' },
      expect.objectContaining({ lastValueVisible: false, priceLineVisible: true }),
    );
    const last = minuteCandles(60, NOW).at(-1)!;
    const legend = screen.getByTestId('chart-legend');
    expect(legend).toHaveTextContent(`Last ${last.close.toFixed(5)}`);
    expect(legend).toHaveTextContent(`Tick volume ${last.volume}`);
  });

  it('formats the prices of a JPY pair with 3 decimals', async () => {
    renderWithProviders(<PriceChart pair={USDJPY} stream={null} />);
    await drawn(60);
    expect(lwc.chart.addSeries).toHaveBeenCalledWith(
      { type: 'Candlestick' },
      expect.objectContaining({ priceFormat: { type: 'price', precision: 3, minMove: 0.001 } }),
    );
  });

  it('shows the range buttons 1H, 24H, 1W, 1M and loads hourly candles for 1W', async () => {
    const user = userEvent.setup();
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    const group = screen.getByRole('group', { name: 'Chart range' });
    expect([...group.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['1H', '24H', '1W', '1M']);
    await drawn(60);

    await user.click(screen.getByRole('button', { name: '1W' }));
    await drawn(168);
    expect(chartBox()).toHaveAttribute('data-range', '1w');
    expect(screen.getByRole('button', { name: '1W' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: '1H' })).toHaveAttribute('aria-pressed', 'false');
    expect(chartRangesAsked(server, 'EURUSD')).toEqual(['1h', '1w']);
    const bars = lastSetData();
    expect(bars).toHaveLength(168);
    for (let i = 1; i < bars.length; i++) expect((bars[i]?.time ?? 0) - (bars[i - 1]?.time ?? 0)).toBe(3600);
    // Fitted to the width: all the candles (not fitContent, which would take the bar times kept ahead in).
    expect(lwc.timeScale.setVisibleLogicalRange).toHaveBeenLastCalledWith({ from: 0, to: 167 });
  });

  it('says "No chart data available" when the range has no candles', async () => {
    const user = userEvent.setup();
    renderWithProviders(<PriceChart pair={EURUSD} stream={null} />);
    await drawn(60);
    await user.click(screen.getByRole('button', { name: '24H' }));
    expect(await screen.findByText('No chart data available')).toBeVisible();
    expect(chartBox()).toHaveAttribute('data-candles', '0');
    expect(lastSetData()).toEqual([]);
  });

  it('keeps 1H live: a chart_update of the current minute updates the last candle, a new minute adds one', async () => {
    // The 3 s reconnect is the stream's own test; here it only has to happen.
    const stream = new PriceStream('EURUSD', { reconnectDelayMs: 10 });
    stream.start();
    const socket = FakeSocket.last;
    act(() => socket.open());
    renderWithProviders(<PriceChart pair={EURUSD} stream={stream} />);
    await drawn(60);
    const candles = minuteCandles(60, NOW);
    const current = candles.at(-1)!;

    const update = { ...current, high: 1.095, close: 1.0949, volume: 99 };
    act(() => socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: '1m', candle: update }));
    expect(lwc.series.update).not.toHaveBeenCalled();
    expect(lwc.seriesTail.update).toHaveBeenLastCalledWith({
      time: update.time / 1000,
      open: update.open,
      high: 1.095,
      low: update.low,
      close: 1.0949,
    });
    expect(lwc.volumeTail.update).toHaveBeenLastCalledWith(expect.objectContaining({ time: update.time / 1000, value: 99 }));
    expect(screen.getByTestId('chart-legend')).toHaveTextContent('Tick volume 99');
    expect(chartBox()).toHaveAttribute('data-candles', '60');

    const next = { ...update, time: current.time + 60_000, open: 1.0949, close: 1.095 };
    act(() => socket.receive({ type: 'chart_update', symbol: 'EURUSD', timeframe: '1m', candle: next }));
    expect(chartBox()).toHaveAttribute('data-candles', '60');
    const times = chartBox().getAttribute('data-candle-times')!.split(',').map(Number);
    expect(times[0]).toBe(candles[1]?.time);
    expect(times.at(-1)).toBe(next.time);
    expect(lastSetData().at(-1)).toEqual({ time: next.time / 1000, open: 1.0949, high: 1.095, low: next.low, close: 1.095 });

    // The newest candle's time goes with the next subscribe, so a reconnect fills the gap.
    act(() => socket.drop());
    await waitFor(() => expect(FakeSocket.opened).toHaveLength(2));
    act(() => FakeSocket.last.open());
    expect(FakeSocket.last.sent).toEqual([
      { type: 'subscribe_prices', symbol: 'EURUSD', timeframe: '1m', last_chart_time: next.time },
    ]);
    stream.stop();
  });

  it('does not update the 1W chart live', async () => {
    const user = userEvent.setup();
    const stream = new PriceStream('EURUSD');
    stream.start();
    const socket = FakeSocket.last;
    act(() => socket.open());
    renderWithProviders(<PriceChart pair={EURUSD} stream={stream} />);
    await user.click(screen.getByRole('button', { name: '1W' }));
    await drawn(168);
    for (const s of [lwc.series, lwc.seriesTail]) {
      s.update.mockClear();
      s.setData.mockClear();
    }
    const last = hourly(168).at(-1)!;
    act(() =>
      socket.receive({
        type: 'chart_update',
        symbol: 'EURUSD',
        timeframe: '1m',
        candle: { ...last, time: NOW - (NOW % 60_000), close: 1.2 },
      }),
    );
    for (const s of [lwc.series, lwc.seriesTail]) {
      expect(s.update).not.toHaveBeenCalled();
      expect(s.setData).not.toHaveBeenCalled();
    }
    expect(chartBox().getAttribute('data-candle-times')?.split(',').at(-1)).toBe(String(last.time));
    stream.stop();
  });
});
