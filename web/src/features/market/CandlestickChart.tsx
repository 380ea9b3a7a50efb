import type { Candle } from '@pipdesk/contract';
import {
  type AutoscaleInfo,
  CandlestickSeries,
  HistogramSeries,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type LineStyle,
  type PriceFormatBuiltIn,
  type UTCTimestamp,
} from 'lightweight-charts';
import { type ReactNode, type PointerEvent as ReactPointerEvent, useEffect, useRef } from 'react';
import { mountThemedChart, type ChartColors as ThemeColors, themeChartColors, translucent } from '../../components/chart';
import { dropIdleWork, FutureBars, LiveSeries } from '../chart/liveSeries';
import { liveTail, toChartBar } from './candles';
import { type ChartLine, type LineTone, snapPrice, withPositionLines } from './chart-lines/lines';

interface ChartColors extends ThemeColors {
  up: string;
  down: string;
  /** The entry line (strong text) and pending orders' lines (accent). */
  strong: string;
  accent: string;
}

/** The chart's colours from the design tokens of the theme in force (tokens.css); fallbacks are the dark theme's. */
function themeColors(): ChartColors {
  return themeChartColors((token) => ({
    up: token('--profit', '#35c47c'),
    down: token('--loss', '#ff6b6b'),
    strong: token('--text', '#e6edf5'),
    accent: token('--accent', '#4c8dff'),
  }));
}

/** The volume's own price scale, an overlay with no axis of its own. */
const VOLUME_SCALE = 'volume';
/**
 * The candles keep the top of the chart and the tick volume the bottom fifth, so the two never
 * overlap (fractions of the chart's height left free above and below each).
 */
const CANDLE_MARGINS = { top: 0.12, bottom: 0.24 };
const VOLUME_MARGINS = { top: 0.8, bottom: 0 };

/** The volume stays see-through, behind the candles' colours in weight. */
function volumeColors(colors: ChartColors) {
  return { up: translucent(colors.up, 0.45), down: translucent(colors.down, 0.45) };
}

function candleColors(colors: ChartColors) {
  return {
    upColor: colors.up,
    downColor: colors.down,
    borderUpColor: colors.up,
    borderDownColor: colors.down,
    wickUpColor: colors.up,
    wickDownColor: colors.down,
  };
}

/** Prices at the pair's digits (5; 3 for JPY-quoted pairs) on the axis and the crosshair. */
export function priceFormat(digits: number): PriceFormatBuiltIn {
  return { type: 'price', precision: digits, minMove: 1 / 10 ** digits };
}

function bar(candle: Candle) {
  const b = toChartBar(candle);
  return { ...b, time: b.time as UTCTimestamp };
}

/** A candle's tick volume as a histogram column, in the colour of its candle (rising or falling). */
function volumeBar(candle: Candle, colors: { up: string; down: string }) {
  return {
    time: Math.floor(candle.time / 1000) as UTCTimestamp,
    value: candle.volume,
    color: candle.close >= candle.open ? colors.up : colors.down,
  };
}

/** A line's colour: stop loss in the falling colour, take profit in the rising one, orders in the accent. */
function lineColor(tone: LineTone, colors: ChartColors): string {
  switch (tone) {
    case 'stop_loss':
      return colors.down;
    case 'take_profit':
      return colors.up;
    case 'order':
      return colors.accent;
    default:
      return colors.strong;
  }
}

// lightweight-charts' LineStyle values (Solid 0, Dashed 2), written out: only its types are imported
// beside the chart itself, so tests can stand in for the library at its module boundary.
const SOLID = 0 as LineStyle;
const DASHED = 2 as LineStyle;

/** A pointer must travel this far before a press on a line becomes a drag (a shorter one is a click). */
const DRAG_THRESHOLD_PX = 3;

/**
 * Draws `lines` as the series' price lines, each labelled on the price axis, reusing the ones
 * already drawn (by id) and removing the rest. `dragging` is shown at its dragged price.
 */
function syncPriceLines(
  series: ISeriesApi<'Candlestick'>,
  drawnLines: Map<string, IPriceLine>,
  lines: readonly ChartLine[],
  colors: ChartColors,
  dragging: { id: string; price: number } | null,
): void {
  const seen = new Set<string>();
  for (const line of lines) {
    seen.add(line.id);
    const options = {
      price: dragging?.id === line.id ? dragging.price : line.price,
      title: line.label,
      color: lineColor(line.tone, colors),
      lineWidth: 1 as const,
      lineStyle: line.tone === 'entry' ? SOLID : DASHED,
      axisLabelVisible: true,
    };
    const drawn = drawnLines.get(line.id);
    if (drawn) drawn.applyOptions(options);
    else drawnLines.set(line.id, series.createPriceLine(options));
  }
  for (const [id, drawn] of drawnLines) {
    if (seen.has(id)) continue;
    series.removePriceLine(drawn);
    drawnLines.delete(id);
  }
}

export interface CandlestickChartProps {
  /** Oldest first; times in epoch ms. */
  candles: readonly Candle[];
  /** Decimals of the pair's prices. */
  digits: number;
  /** What the candles show (pair and range): a new view is fitted to the width; the same view keeps the trader's zoom. */
  view: string;
  /** A new view shows this many of the newest candles instead of all (older ones are scrolled back to). */
  initialCandles?: number;
  /** Horizontal lines (entry, protection, pending orders) at the prices to show (docs/screens.md#chart-lines). */
  lines?: readonly ChartLine[];
  /** A movable line was dragged and let go at `price` (the pair's digits). */
  onLineDrop?: (line: ChartLine, price: number) => void;
  /** A movable line's handle was pressed and let go without moving. */
  onLineOpen?: (line: ChartLine) => void;
  /**
   * The chart was drawn (its chart, candle series and container), or is gone (null): what the
   * chart tools (indicators, history loading, drawings) work with (web/src/features/chart/).
   */
  onChart?: (drawn: DrawnChart | null) => void;
  /** Laid over the chart (pointer events pass through to the chart unless a child takes them). */
  children?: ReactNode;
}

/** What a drawn chart hands its owner. */
export interface DrawnChart {
  chart: IChartApi;
  series: ISeriesApi<'Candlestick'>;
  container: HTMLElement;
}

interface Drawn {
  chart: IChartApi;
  /** The candles, drawn as a history and a live tail (chart/liveSeries.ts). */
  candles: LiveSeries<'Candlestick'>;
  /** The series that stands for the candles (the tail): price lines, handles and the chart tools go through it. */
  series: ISeriesApi<'Candlestick'>;
  volume: LiveSeries<'Histogram'>;
  /** The next bar times, kept in the time scale so that a new candle adds none. */
  future: FutureBars;
  volumeColors: { up: string; down: string };
  colors: ChartColors;
  priceLines: Map<string, IPriceLine>;
}

interface Drag {
  line: ChartLine;
  id: string;
  startY: number;
  price: number;
  moved: boolean;
}

const NO_LINES: readonly ChartLine[] = [];

/**
 * A candlestick chart drawn by lightweight-charts on a canvas that follows its container's
 * size (autoSize) and the theme's colours, with each candle's tick volume as a histogram in
 * the bottom fifth. A live change of the newest candle goes to `update`; anything else is
 * handed over again with `setData`.
 *
 * The last price is a line across the chart but has no label on the price axis: there the
 * label sat on top of the axis's own price labels and hid them (the price card and the
 * chart's legend give the figure).
 *
 * `lines` are drawn as labelled price lines (docs/screens.md#chart-lines). A movable one gets a
 * handle over the chart that the pointer can drag: the line follows the pointer at the pair's
 * digits and, let go, is reported with `onLineDrop`; the owner confirms and moves it for good.
 */
export function CandlestickChart({
  candles,
  digits,
  view,
  initialCandles,
  lines = NO_LINES,
  onLineDrop,
  onLineOpen,
  onChart,
  children,
}: CandlestickChartProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const drawnRef = useRef<Drawn | null>(null);
  const shownRef = useRef<{ candles: readonly Candle[]; view: string } | null>(null);
  const digitsRef = useRef(digits);
  digitsRef.current = digits;
  const linesRef = useRef(lines);
  linesRef.current = lines;
  const dragRef = useRef<Drag | null>(null);
  const handlesRef = useRef(new Map<string, HTMLElement>());
  const callbacksRef = useRef({ onLineDrop, onLineOpen, onChart });
  callbacksRef.current = { onLineDrop, onLineOpen, onChart };
  const movable = lines.filter((l) => l.target !== null);
  const interactive = movable.length > 0;

  const drawLines = () => {
    const drawn = drawnRef.current;
    if (!drawn) return;
    const drag = dragRef.current;
    syncPriceLines(drawn.series, drawn.priceLines, linesRef.current, drawn.colors, drag && { id: drag.id, price: drag.price });
  };
  const drawLinesRef = useRef(drawLines);
  drawLinesRef.current = drawLines;

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const mounted = mountThemedChart(container, {
      colors: themeColors,
      look: { scaleMargins: CANDLE_MARGINS },
      draw: (chart, colors): Drawn => {
        // Each half stretches its own range to the positions' lines, so they stay in view whichever shows.
        const candles = new LiveSeries(
          chart,
          CandlestickSeries,
          {
            ...candleColors(colors),
            borderVisible: true,
            priceFormat: priceFormat(digitsRef.current),
            lastValueVisible: false,
            priceLineVisible: false,
            autoscaleInfoProvider: (candlesRange: () => AutoscaleInfo | null) =>
              withPositionLines(candlesRange(), linesRef.current),
          },
          // The last price's line belongs to the newest candle, in the tail.
          { tail: { priceLineVisible: true } },
        );
        const volume = new LiveSeries(chart, HistogramSeries, {
          priceScaleId: VOLUME_SCALE,
          priceFormat: { type: 'volume' },
          lastValueVisible: false,
          priceLineVisible: false,
        });
        chart.priceScale(VOLUME_SCALE).applyOptions({ scaleMargins: VOLUME_MARGINS });
        const future = new FutureBars(chart);
        // A new candle takes the place of a future bar's whitespace: the view follows it as it follows an added bar.
        chart.applyOptions({ timeScale: { allowShiftVisibleRangeOnWhitespaceReplacement: true } });
        return {
          chart,
          candles,
          series: candles.tail,
          volume,
          future,
          volumeColors: volumeColors(colors),
          colors,
          priceLines: new Map(),
        };
      },
      recolor: (drawn, next) => {
        drawn.candles.applyOptions(candleColors(next));
        drawn.volumeColors = volumeColors(next);
        drawn.colors = next;
        drawLinesRef.current();
        const shown = shownRef.current?.candles ?? [];
        drawn.volume.setData(shown.map((c) => volumeBar(c, drawn.volumeColors)));
      },
    });
    drawnRef.current = mounted.drawn;
    drawLinesRef.current();
    callbacksRef.current.onChart?.({ chart: mounted.drawn.chart, series: mounted.drawn.series, container });
    return () => {
      dropIdleWork(mounted.drawn.chart);
      callbacksRef.current.onChart?.(null);
      drawnRef.current = null;
      shownRef.current = null;
      // The layers over the chart (drawings, trade tools) let go of it in their own cleanups, which
      // React runs after this one when the whole chart goes: a primitive detached from a removed
      // chart asks it to redraw, and its next frame throws "Object is disposed". Remove it after them.
      queueMicrotask(() => mounted.remove());
    };
  }, []);

  useEffect(() => {
    drawnRef.current?.candles.applyOptions({ priceFormat: priceFormat(digits) });
  }, [digits]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: drawLines reads the lines through its ref; a new list is the cue
  useEffect(() => {
    drawLines();
  }, [lines]);

  // The handles follow their lines every frame: the price scale moves with the data, the zoom and the trader's scaling of the axis.
  useEffect(() => {
    if (!interactive) return;
    let frame = 0;
    const place = () => {
      const drawn = drawnRef.current;
      const box = containerRef.current;
      if (drawn && box) {
        const height = box.clientHeight;
        const axis = drawn.chart.priceScale('right').width();
        for (const line of linesRef.current) {
          const handle = handlesRef.current.get(line.id);
          if (!handle) continue;
          const drag = dragRef.current;
          const y = drawn.series.priceToCoordinate(drag?.id === line.id ? drag.price : line.price);
          const visible = y !== null && y >= 0 && y <= height;
          handle.style.visibility = visible ? 'visible' : 'hidden';
          if (visible) handle.style.transform = `translateY(${y}px)`;
          handle.style.right = `${axis}px`;
        }
      }
      frame = requestAnimationFrame(place);
    };
    frame = requestAnimationFrame(place);
    return () => cancelAnimationFrame(frame);
  }, [interactive]);

  /** A press on a line's handle: a drag proposes the price let go at; a press without moving opens the line. */
  const startDrag = (line: ChartLine) => (e: ReactPointerEvent<HTMLDivElement>) => {
    const drawn = drawnRef.current;
    const box = containerRef.current;
    if (e.button !== 0 || !drawn || !box || dragRef.current) return;
    e.preventDefault();
    const top = box.getBoundingClientRect().top;
    dragRef.current = { line, id: line.id, startY: e.clientY, price: line.price, moved: false };
    const move = (ev: PointerEvent) => {
      const drag = dragRef.current;
      if (!drag || (!drag.moved && Math.abs(ev.clientY - drag.startY) < DRAG_THRESHOLD_PX)) return;
      drag.moved = true;
      const price = snapPrice(drawn.series.coordinateToPrice(ev.clientY - top), digitsRef.current);
      if (price === null) return;
      drag.price = price;
      drawn.priceLines.get(drag.id)?.applyOptions({ price });
    };
    const end = (ev: PointerEvent) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', end);
      window.removeEventListener('pointercancel', end);
      const drag = dragRef.current;
      dragRef.current = null;
      if (!drag) return;
      if (ev.type === 'pointerup' && drag.moved && drag.price !== drag.line.price)
        callbacksRef.current.onLineDrop?.(drag.line, drag.price);
      else if (ev.type === 'pointerup' && !drag.moved) callbacksRef.current.onLineOpen?.(drag.line);
      // Back to the prices the owner gives (it has proposed the dropped price by now, or not).
      requestAnimationFrame(() => drawLinesRef.current());
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', end);
    window.addEventListener('pointercancel', end);
  };

  useEffect(() => {
    const drawn = drawnRef.current;
    if (!drawn) return;
    const shown = shownRef.current;
    const tail = shown && shown.view === view ? liveTail(shown.candles, candles) : null;
    if (tail) {
      for (const candle of tail) {
        const next = bar(candle);
        if (candle !== tail[0]) drawn.future.advance(next.time);
        drawn.candles.update(next);
        drawn.volume.update(volumeBar(candle, drawn.volumeColors));
      }
    } else {
      const bars = candles.map(bar);
      drawn.candles.setData(bars);
      drawn.volume.setData(candles.map((c) => volumeBar(c, drawn.volumeColors)));
      // After the candles: the scale never holds empty bars alone (the view is set against candles).
      drawn.future.reset(bars.map((b) => b.time));
      if (!shown || shown.view !== view || shown.candles.length === 0) {
        if (initialCandles && candles.length > initialCandles)
          drawn.chart.timeScale().setVisibleLogicalRange({ from: candles.length - initialCandles, to: candles.length + 2 });
        // fitContent would take the future bars in: all the candles, as it would fit them.
        else if (candles.length > 0) drawn.chart.timeScale().setVisibleLogicalRange({ from: 0, to: candles.length - 1 });
      }
    }
    shownRef.current = { candles, view };
  }, [candles, view, initialCandles]);

  return (
    <div className="candlestick-chart">
      <div ref={containerRef} className="candlestick-chart__canvas" />
      {interactive && (
        // Pointer handles only: the keyboard moves the same lines from the list under the chart (ChartLinesList).
        <div className="chart-line-handles" aria-hidden="true">
          {movable.map((line) => (
            <div
              key={line.id}
              ref={(el) => {
                if (el) handlesRef.current.set(line.id, el);
                else handlesRef.current.delete(line.id);
              }}
              className={`chart-line-handle chart-line-handle--${line.tone}`}
              data-line-id={line.id}
              onPointerDown={startDrag(line)}
            >
              <span className="chart-line-handle__tag">{line.label}</span>
            </div>
          ))}
        </div>
      )}
      {children && <div className="candlestick-chart__overlay">{children}</div>}
    </div>
  );
}
