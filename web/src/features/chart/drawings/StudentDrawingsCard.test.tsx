import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeAuthServer } from '../../../test/fakeAuthServer';
import { renderWithProviders } from '../../../test/render';
import { EURUSD, minuteCandles, USDJPY } from '../../market/testMarket';
import { StudentDrawingsCard } from './StudentDrawingsCard';

// jsdom has no canvas: lightweight-charts is replaced at its module boundary; the test reads what
// the section asked of the server and that the drawings' primitive went onto the candle series.
const lwc = vi.hoisted(() => {
  const series = {
    setData: vi.fn(),
    update: vi.fn(),
    applyOptions: vi.fn(),
    attachPrimitive: vi.fn(),
    detachPrimitive: vi.fn(),
    data: () => [],
    options: () => ({ priceFormat: { type: 'price', precision: 5, minMove: 0.00001 } }),
    priceFormatter: () => ({ format: (p: number) => p.toFixed(5) }),
    priceToCoordinate: () => null,
    coordinateToPrice: () => null,
  };
  const timeScale = {
    fitContent: vi.fn(),
    setVisibleLogicalRange: vi.fn(),
    logicalToCoordinate: () => null,
    coordinateToLogical: () => null,
  };
  const chart = {
    addSeries: vi.fn(() => series),
    applyOptions: vi.fn(),
    remove: vi.fn(),
    timeScale: () => timeScale,
    priceScale: vi.fn(() => ({ applyOptions: vi.fn(), width: () => 0 })),
    paneSize: () => ({ width: 800, height: 400 }),
    options: () => ({ handleScroll: true, handleScale: true }),
  };
  return { series, chart, createChart: vi.fn(() => chart) };
});
vi.mock('lightweight-charts', () => ({
  createChart: lwc.createChart,
  CandlestickSeries: { type: 'Candlestick' },
  HistogramSeries: { type: 'Histogram' },
  LineSeries: { type: 'Line' },
  ColorType: { Solid: 'solid' },
  CrosshairMode: { Normal: 0 },
}));

const STUDENT_DRAWINGS = '/api/academy/students/5/drawings/';
let server: FakeAuthServer;
const urls = () => server.fetch.mock.calls.map(([url]) => String(url));

beforeEach(() => {
  vi.clearAllMocks();
  server = new FakeAuthServer().install();
  server.signedInBefore();
  const candles = minuteCandles(30, Date.UTC(2026, 2, 12, 10), 3_600_000);
  for (const symbol of ['EURUSD', 'USDJPY'])
    server.on(`/api/trading/pair/${symbol}/chart-data/`, () => ({ status: 200, body: { success: true, data: candles } }));
  server.on(STUDENT_DRAWINGS, () => ({ status: 200, body: { success: true, data: [] } }));
});

describe('a student’s drawings on the student page (DESIGN §18)', () => {
  it('loads nothing until the instructor opens the chart', () => {
    renderWithProviders(<StudentDrawingsCard studentId={5} pairs={[EURUSD, USDJPY]} />);
    expect(screen.getByRole('region', { name: 'Drawings' })).toBeInTheDocument();
    expect(screen.getByLabelText('Pair')).toHaveValue('EURUSD');
    expect(server.calls).toEqual([]);
  });

  it('shows the student’s drawings of the chosen pair, read-only, over an h1 chart', async () => {
    renderWithProviders(<StudentDrawingsCard studentId={5} pairs={[EURUSD, USDJPY]} />);
    await userEvent.click(screen.getByRole('button', { name: 'Show chart' }));
    await waitFor(() => expect(urls()).toContain(`${STUDENT_DRAWINGS}?symbol=EURUSD`));
    expect(urls().some((u) => u.startsWith('/api/trading/pair/EURUSD/chart-data/?timeframe=h1'))).toBe(true);
    await waitFor(() => expect(lwc.series.attachPrimitive).toHaveBeenCalledTimes(1));
    expect(await screen.findByText('No drawings on EURUSD')).toBeInTheDocument();
    expect(screen.queryByRole('toolbar', { name: 'Drawing tools' })).not.toBeInTheDocument();
    // The instructor's own drawings are not asked for here.
    expect(urls().filter((u) => u.startsWith('/api/trading/drawings/'))).toEqual([]);

    await userEvent.selectOptions(screen.getByLabelText('Pair'), 'USDJPY');
    await waitFor(() => expect(urls()).toContain(`${STUDENT_DRAWINGS}?symbol=USDJPY`));
  });
});
