// The page bench/chart-render.mjs builds and opens in Chromium: the app's own ChartView (candles,
// volume, indicators, legend) mounted alone, driven through `window.__pipdeskChartBench`. Nothing in
// the app imports this module, so no user ever loads it; it lives here so `tsc` and biome check it
// against the components it measures. The layers over a real chart (drawings, trade tools) need
// the signed-in app's providers: the bench build puts `benchLayers.tsx` in ChartLayers' place.
import type { Candle, Indicator } from '@pipdesk/contract';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { ChartView } from '../ChartView';
import { defaultIndicator } from '../indicators/labels';
import { TIMEFRAME_INITIAL_CANDLES } from '../timeframes';
import { paints, takeIdleCosts } from './benchLayers';
import '../../../components/index.css';
import '../../market/market.css';

const HOUR_MS = 3_600_000;
const DIGITS = 5;
const INDICATORS: readonly Indicator[] = (['sma', 'bb', 'rsi', 'macd'] as const).map(defaultIndicator);
const PANES = INDICATORS.filter((i) => i.kind === 'rsi' || i.kind === 'macd').length;

/** A deterministic walk of hourly EURUSD-like candles (mulberry32 from `seed`), the last opening at `end`. */
export function walkCandles(count: number, seed: number, end = Date.UTC(2026, 0, 5, 12)): Candle[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const round = (p: number) => Math.round(p * 10 ** DIGITS) / 10 ** DIGITS;
  const candles: Candle[] = [];
  let close = 1.1;
  for (let i = 0; i < count; i++) {
    const open = close;
    close = round(open + (random() - 0.5) * 0.003);
    const high = round(Math.max(open, close) + random() * 0.001);
    const low = round(Math.min(open, close) - random() * 0.001);
    candles.push({ time: end - (count - 1 - i) * HOUR_MS, open, high, low, close, volume: 50 + Math.floor(random() * 500) });
  }
  return candles;
}

const host = document.createElement('div');
host.className = 'price-chart';
// The pair page's chart box with its two oscillator panes (chart.css: 380 px + 110 px a pane).
host.style.cssText = `width: 1200px; height: ${380 + PANES * 110}px;`;
document.body.append(host);
const root = createRoot(host);

interface Shown {
  candles: readonly Candle[];
  view: string;
  initialCandles: number | undefined;
}

function render(shown: Shown): void {
  flushSync(() =>
    root.render(
      <ChartView
        candles={shown.candles}
        digits={DIGITS}
        view={shown.view}
        symbol="EURUSD"
        timeframe="h1"
        indicators={INDICATORS}
        initialCandles={shown.initialCandles}
      />,
    ),
  );
}

/** The legend lists every indicator with its figures: the plots have computed their history. */
function legendReady(): boolean {
  const items = document.querySelectorAll('[data-testid="indicator-legend"] li');
  return items.length === INDICATORS.length && [...items].every((li) => /\d\.\d/.test(li.textContent ?? ''));
}

let shown: Shown | null = null;

const bench = {
  /**
   * Mounts the chart afresh with `count` candles and the four indicators, or (`remount` false, on
   * a mounted chart) hands it a new view of `count` candles as a change of timeframe does. Resolves
   * with the milliseconds from handing the data over to the end of the chart's paint that shows it.
   */
  async draw(count: number, { remount = true, fit = false, seed = 1 } = {}): Promise<number> {
    if (remount && shown) {
      flushSync(() => root.render(null));
      shown = null;
      await paints.settle();
    } else if (shown) {
      // A paint the last draw or tick left queued must not be taken for this one's.
      await paints.settle();
    }
    const next: Shown = {
      candles: walkCandles(count, seed),
      view: `bench:${seed}:${count}`,
      initialCandles: fit ? undefined : TIMEFRAME_INITIAL_CANDLES,
    };
    const start = performance.now();
    render(next);
    shown = next;
    // A fresh chart draws in two renders (the chart, then its indicators): wait for the paint after both.
    for (;;) {
      const end = await paints.next();
      if (legendReady()) return end - start;
      if (performance.now() - start > 10_000) throw new Error('the chart never showed its indicators');
    }
  },

  /**
   * `count` live ticks, one a frame: each moves the newest candle's close (every `newEvery`th, the
   * 60th by default, opens a new candle), as a `chart_update` does. Per tick, the main thread's
   * cost: React's update of the chart, the candle's `update`, each indicator's step and the legend
   * (synchronous, measured around the render) plus the chart's repaint in the next frame.
   */
  async ticks(
    count: number,
    newEvery = 60,
  ): Promise<{ update: number[]; paint: number[]; total: number[]; opened: number[]; idle: number[] }> {
    if (!shown) throw new Error('draw first');
    const update: number[] = [];
    const paint: number[] = [];
    const total: number[] = [];
    /** The totals of the ticks that opened a new candle. */
    const opened: number[] = [];
    let candles = [...shown.candles];
    takeIdleCosts();
    for (let i = 0; i < count; i++) {
      const last = candles.at(-1)!;
      const close = Math.round((last.close + (i % 2 === 0 ? 0.00007 : -0.00004)) * 1e5) / 1e5;
      const opens = i % newEvery === newEvery - 1;
      const moved: Candle = opens
        ? { time: last.time + HOUR_MS, open: last.close, high: close, low: close, close, volume: 1 }
        : { ...last, close, high: Math.max(last.high, close), low: Math.min(last.low, close), volume: last.volume + 1 };
      candles = opens ? [...candles, moved] : [...candles.slice(0, -1), moved];
      const next: Shown = { ...shown, candles };
      const start = performance.now();
      render(next);
      // React's follow-up renders (the legend's store) run as microtasks: let them finish first.
      await Promise.resolve();
      const updated = performance.now() - start;
      shown = next;
      const painted = await paints.nextCost();
      update.push(updated);
      paint.push(painted);
      total.push(updated + painted);
      if (opens) opened.push(updated + painted);
    }
    // Let the last put-off work run, so that it is counted.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return { update, paint, total, opened, idle: takeIdleCosts() };
  },
};

declare global {
  interface Window {
    __pipdeskChartBench?: typeof bench;
  }
}
window.__pipdeskChartBench = bench;
