// A stand-in for lightweight-charts in component tests (jsdom has no canvas): it records what the
// app hands each chart and series, and lets a test scroll the time axis and move the crosshair.
// Use: vi.mock('lightweight-charts', async () => (await import('./testChart')).fakeLightweightCharts);
import { vi } from 'vitest';

type Point = { time: number; value?: number; open?: number; close?: number; color?: string };

export class FakeSeries {
  /** The points handed to this series itself. */
  own: Point[] = [];
  /**
   * The app draws each series as two (liveSeries.ts): the history, then at once its tail with the
   * newest point(s). The fake pairs them: `tail` on the history, `history` on the tail.
   */
  tail: FakeSeries | null = null;
  history: FakeSeries | null = null;
  removed = false;
  readonly priceLines: Array<{ price: number }> = [];
  readonly setData = vi.fn((points: Point[]) => {
    this.own = [...points];
  });
  readonly update = vi.fn((point: Point) => {
    const last = this.own.at(-1);
    if (last && last.time === point.time) this.own[this.own.length - 1] = point;
    else this.own.push(point);
  });
  /** What the chart shows of the pair: the history up to the tail's first point, then the tail. */
  get data(): Point[] {
    const from = this.tail?.own[0]?.time;
    if (!this.tail || from === undefined) return this.own;
    return [...this.own.filter((p) => p.time < from), ...this.tail.own];
  }
  readonly applyOptions = vi.fn();
  constructor(
    readonly type: string,
    readonly options: Record<string, unknown>,
    readonly pane: number,
  ) {}
  createPriceLine(options: { price: number }) {
    this.priceLines.push(options);
    return { applyOptions: vi.fn(), options };
  }
  removePriceLine() {}
  coordinateToPrice(y: number) {
    return 1.1 - y / 10_000;
  }
  priceToCoordinate() {
    return 10;
  }
  attachPrimitive() {}
  detachPrimitive() {}
}

export class FakeChart {
  readonly series: FakeSeries[] = [];
  /** Series drawn with `visible: false` (the future bars' whitespace, liveSeries.ts): no pair's, not listed. */
  readonly hidden: FakeSeries[] = [];
  readonly rangeHandlers = new Set<(range: { from: number; to: number } | null) => void>();
  readonly crosshairHandlers = new Set<(param: unknown) => void>();
  readonly timeScaleApi = {
    fitContent: vi.fn(),
    setVisibleLogicalRange: vi.fn(),
    subscribeVisibleLogicalRangeChange: (h: (range: { from: number; to: number } | null) => void) => this.rangeHandlers.add(h),
    unsubscribeVisibleLogicalRangeChange: (h: (range: { from: number; to: number } | null) => void) =>
      this.rangeHandlers.delete(h),
    timeToCoordinate: () => 10,
    coordinateToTime: () => null,
    logicalToCoordinate: () => 10,
    coordinateToLogical: () => null,
  };
  readonly applyOptions = vi.fn();
  readonly remove = vi.fn();
  readonly removePane = vi.fn();

  addSeries = vi.fn((definition: { type: string }, options: Record<string, unknown> = {}, pane = 0) => {
    const series = new FakeSeries(definition.type, options, pane);
    if (options.visible === false) {
      this.hidden.push(series);
      return series;
    }
    const before = this.series.at(-1);
    if (before && !before.history && !before.tail && before.type === series.type && before.pane === series.pane) {
      before.tail = series;
      series.history = before;
    }
    this.series.push(series);
    return series;
  });
  removeSeries = vi.fn((series: FakeSeries) => {
    series.removed = true;
  });
  timeScale() {
    return this.timeScaleApi;
  }
  priceScale() {
    return { applyOptions: vi.fn(), width: () => 60 };
  }
  panes() {
    const count = Math.max(0, ...this.live().map((s) => s.pane)) + 1;
    return Array.from({ length: count }, () => ({ setStretchFactor: vi.fn(), getHeight: () => 100 }));
  }
  subscribeCrosshairMove(h: (param: unknown) => void) {
    this.crosshairHandlers.add(h);
  }
  unsubscribeCrosshairMove(h: (param: unknown) => void) {
    this.crosshairHandlers.delete(h);
  }
  subscribeClick() {}
  unsubscribeClick() {}

  /** The series still on the chart, one for each history and tail pair (the history, whose `data` shows both). */
  live(): FakeSeries[] {
    return this.series.filter((s) => !s.removed && !s.history);
  }
  /** The candle series (the first candlestick one). */
  candles(): FakeSeries {
    const series = this.series.find((s) => s.type === 'Candlestick');
    if (!series) throw new Error('no candle series');
    return series;
  }
  /** The trader scrolls so that logical index `from` is the first visible. */
  scrollTo(from: number) {
    for (const h of this.rangeHandlers) h({ from, to: from + 100 });
  }
}

export const fakeCharts: FakeChart[] = [];

export const fakeLightweightCharts = {
  createChart: vi.fn(() => {
    const chart = new FakeChart();
    fakeCharts.push(chart);
    return chart;
  }),
  CandlestickSeries: { type: 'Candlestick' },
  HistogramSeries: { type: 'Histogram' },
  LineSeries: { type: 'Line' },
  ColorType: { Solid: 'solid' },
  CrosshairMode: { Normal: 0 },
  LineStyle: { Solid: 0, Dotted: 1, Dashed: 2 },
};

/** The newest chart made. */
export function lastChart(): FakeChart {
  const chart = fakeCharts.at(-1);
  if (!chart) throw new Error('no chart was made');
  return chart;
}

export function resetFakeCharts(): void {
  fakeCharts.length = 0;
  fakeLightweightCharts.createChart.mockClear();
}
