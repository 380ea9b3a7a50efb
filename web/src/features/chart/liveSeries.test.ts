import type { IChartApi, UTCTimestamp } from 'lightweight-charts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cachedFormat, dropIdleWork, FUTURE_BARS, FutureBars, LiveSeries, MAX_TAIL } from './liveSeries';
import { FakeChart, fakeLightweightCharts } from './testChart';

vi.mock('lightweight-charts', async () => (await import('./testChart')).fakeLightweightCharts);

const HOUR = 3_600;
const point = (i: number, value = i) => ({ time: (1_700_000_000 + i * HOUR) as UTCTimestamp, value });
const points = (count: number) => Array.from({ length: count }, (_, i) => point(i));

let fake: FakeChart;
let chart: IChartApi;

beforeEach(() => {
  vi.useFakeTimers();
  fake = new FakeChart();
  // The fake stands in for the library's chart at its module boundary.
  chart = fake as unknown as IChartApi;
});
afterEach(() => {
  dropIdleWork(chart);
  vi.useRealTimers();
});

describe('LiveSeries (issue 34: a tick redraws the newest point only)', () => {
  it('keeps all but the newest point in the history and the newest in the tail; a line repeats the one before', () => {
    const line = new LiveSeries(chart, fakeLightweightCharts.LineSeries as never, {}, { join: true });
    line.setData(points(5));
    const [history, tail] = fake.series;
    expect(history?.own.map((p) => p.value)).toEqual([0, 1, 2, 3]);
    expect(tail?.own.map((p) => p.value)).toEqual([3, 4]);
    expect(history?.data.map((p) => p.value)).toEqual([0, 1, 2, 3, 4]);
  });

  it('moves the newest point and adds new ones in the tail only, and folds the tail into the history in idle time', () => {
    const candles = new LiveSeries(chart, fakeLightweightCharts.HistogramSeries as never, {});
    candles.setData(points(10));
    const [history, tail] = fake.series;
    history?.setData.mockClear();
    candles.update(point(9, 99));
    expect(tail?.update).toHaveBeenLastCalledWith(point(9, 99));
    for (let i = 10; i < 10 + MAX_TAIL; i++) candles.update(point(i));
    expect(history?.setData).not.toHaveBeenCalled();
    expect(history?.update).not.toHaveBeenCalled();
    expect(tail?.own).toHaveLength(MAX_TAIL + 1);

    vi.runOnlyPendingTimers();
    expect(history?.setData).toHaveBeenCalledTimes(1);
    expect(history?.own).toHaveLength(9 + MAX_TAIL);
    expect(tail?.own).toEqual([point(9 + MAX_TAIL)]);
    expect(history?.data.map((p) => p.value)).toEqual([
      ...points(9).map((p) => p.value),
      99,
      ...points(10 + MAX_TAIL)
        .slice(10)
        .map((p) => p.value),
    ]);
  });

  it('answers data() with every point from the tail, the series the chart tools read', () => {
    const tail = { setData: vi.fn(), update: vi.fn(), data: () => [] as unknown[] };
    const history = { setData: vi.fn(), update: vi.fn() };
    const added = [history, tail];
    const stub = { addSeries: vi.fn(() => added.shift()) } as unknown as IChartApi;
    const series = new LiveSeries(stub, fakeLightweightCharts.LineSeries as never, {});
    series.setData(points(3));
    series.update(point(3));
    expect(tail.data()).toEqual(points(4));
  });

  it('is dropped with its chart: no fold runs after the chart is gone', () => {
    const candles = new LiveSeries(chart, fakeLightweightCharts.HistogramSeries as never, {});
    candles.setData(points(2));
    for (let i = 2; i < 3 + MAX_TAIL; i++) candles.update(point(i));
    dropIdleWork(chart);
    vi.runAllTimers();
    expect(fake.series[0]?.setData).toHaveBeenCalledTimes(1);
  });
});

describe('FutureBars (a new candle finds its time in the scale)', () => {
  const times = (count: number) => points(count).map((p) => p.time as number);

  it('lays the next bar times as whitespace after the newest candle, at the smallest recent step', () => {
    const future = new FutureBars(chart);
    future.reset(times(30));
    const [whitespace] = fake.hidden;
    expect(whitespace?.own).toHaveLength(FUTURE_BARS);
    expect(whitespace?.own[0]).toEqual({ time: times(31)[30] });
    expect(whitespace?.own.every((p) => p.value === undefined)).toBe(true);
    // Older history paged in keeps them.
    future.reset([times(1)[0]! - HOUR, ...times(30)]);
    expect(whitespace?.setData).toHaveBeenCalledTimes(1);
  });

  it('a candle on the grid takes the next bar; one past a gap lays them again from itself first', () => {
    const future = new FutureBars(chart);
    future.reset(times(30));
    const [whitespace] = fake.hidden;
    future.advance(times(31)[30]!);
    expect(whitespace?.setData).toHaveBeenCalledTimes(1);
    const afterGap = times(31)[30]! + 48 * HOUR;
    future.advance(afterGap);
    expect(whitespace?.setData).toHaveBeenCalledTimes(2);
    expect(whitespace?.own[0]).toEqual({ time: afterGap });
  });

  it('lays more in idle time when few are left', () => {
    const future = new FutureBars(chart);
    future.reset(times(30));
    const [whitespace] = fake.hidden;
    const next = times(30 + FUTURE_BARS);
    for (let i = 30; i < 30 + FUTURE_BARS - 30; i++) future.advance(next[i]!);
    expect(whitespace?.setData).toHaveBeenCalledTimes(1);
    vi.runOnlyPendingTimers();
    expect(whitespace?.setData).toHaveBeenCalledTimes(2);
    // From the next bar on (the 30 left and as many more as were laid at first).
    expect(whitespace?.own[0]).toEqual({ time: next[FUTURE_BARS] });
  });
});

describe('cachedFormat (issue 34: the repaint formats the same prices every frame)', () => {
  it('answers what the formatter answers, formatting each price once', () => {
    const format = vi.fn((price: number) => price.toFixed(5));
    const cached = cachedFormat(format);
    expect([1.1, 1.23456, 1.1, -0.5, 1.23456].map(cached)).toEqual(['1.10000', '1.23456', '1.10000', '-0.50000', '1.23456']);
    expect(format).toHaveBeenCalledTimes(3);
  });

  it('starts again past its size, still answering right', () => {
    const format = vi.fn((price: number) => String(price));
    const cached = cachedFormat(format);
    for (let i = 0; i < 5_000; i++) expect(cached(i)).toBe(String(i));
    expect(cached(4_999)).toBe('4999');
    expect(format).toHaveBeenCalledTimes(5_000);
  });
});
