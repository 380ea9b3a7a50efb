import {
  type Candle,
  CHART_RANGES,
  type ChartRange,
  DEFAULT_CHART_RANGE,
  type FxPair,
  formatPrice,
  type Indicator,
  type OrderDto,
  type PositionDto,
  type Timeframe,
} from '@pipdesk/contract';
import { type CSSProperties, lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Alert, Card, LoadState, Num, RangeButtons } from '../../components';
import { IndicatorsControl } from '../chart/indicators/IndicatorsControl';
import { isOverlay } from '../chart/indicators/labels';
import { useEditableLayout } from '../chart/layout';
import { TIMEFRAME_INITIAL_CANDLES, TimeframeButtons, useTimeframeHotkeys } from '../chart/timeframes';
import { useTimeframeCandles } from '../chart/useTimeframeCandles';
import { mergeMinuteCandle } from './candles';
import { ChartLinesList, chartLines, type LineChangeResult, LineDialog, useLineEdits } from './chart-lines';
import type { PriceStream } from './priceStream';
import { useChartData } from './queries';

// The charting and indicator libraries are most of the app's code: only a chart loads them, when it first draws.
const ChartView = lazy(() => import('../chart/ChartView').then((m) => ({ default: m.ChartView })));

/** The range buttons of docs/screens.md#pair-page, in order. */
export const CHART_RANGE_BUTTONS: ReadonlyArray<{ range: ChartRange; label: string }> = [
  { range: '1h', label: '1H' },
  { range: '24h', label: '24H' },
  { range: '1w', label: '1W' },
  { range: '1m', label: '1M' },
];

/** docs/screens.md#pair-page: only the 1h range (one-minute candles) is kept live. */
export const LIVE_CHART_RANGE: ChartRange = '1h';

export const NO_CHART_DATA_TEXT = 'No chart data available';

/**
 * The loaded candles, kept live from the price socket's `chart_update`s while `live`:
 * merged per minute, keeping `keep` candles. New loaded data starts over from it. While
 * live, the newest candle's time is handed to the stream as `last_chart_time` so a
 * reconnect fills the gap.
 */
export function useLiveCandles(
  loaded: readonly Candle[] | undefined,
  stream: PriceStream | null,
  live: boolean,
  keep: number,
): readonly Candle[] {
  const [state, setState] = useState({ loaded, candles: loaded ?? [] });
  let current = state;
  if (state.loaded !== loaded) {
    current = { loaded, candles: loaded ?? [] };
    setState(current);
  }

  useEffect(() => {
    if (!stream || !live || !loaded) return;
    return stream.onChartUpdate((candle) =>
      setState((s) => {
        if (s.loaded !== loaded) return s;
        const candles = mergeMinuteCandle(s.candles, candle, keep);
        return candles === s.candles ? s : { loaded, candles };
      }),
    );
  }, [stream, live, loaded, keep]);

  const newest = live && loaded ? (current.candles.at(-1)?.time ?? null) : null;
  useEffect(() => {
    stream?.setLastChartTime(newest);
  }, [stream, newest]);

  return current.candles;
}

export interface PriceChartProps {
  pair: FxPair;
  /** The pair's price socket (usePriceStream); the 1H chart follows its candles. */
  stream: PriceStream | null;
  /** The trader's positions (only the pair's open one is drawn): its entry, stop loss and take profit lines. */
  positions?: readonly PositionDto[];
  /** The trader's pending orders in the pair: a line at each one's price (and a STOP_LIMIT's limit). */
  pendingOrders?: readonly OrderDto[];
  /** A moved line was saved: the answer of the PATCH (the owner reloads the trading data). */
  onLineChanged?: (result: LineChangeResult) => void;
}

const NONE: readonly never[] = [];
const NO_INDICATORS: readonly Indicator[] = [];

/** Pressed by no range button: the chart shows a timeframe. */
const NO_RANGE = '';

/**
 * The newest candle's close and tick volume, over the chart's top left corner: the figures the
 * chart draws without a label on its axes (the last price's label would hide the axis's own).
 */
function ChartLegend({ candle, digits }: { candle: Candle | undefined; digits: number }) {
  if (!candle) return null;
  return (
    <p className="price-chart__legend" data-testid="chart-legend">
      <span>
        Last <Num>{formatPrice(candle.close, digits)}</Num>
      </span>
      <span>
        Tick volume <Num>{candle.volume}</Num>
      </span>
    </p>
  );
}

/**
 * The Price Chart card (docs/screens.md#pair-page): range buttons 1H, 24H, 1W, 1M (default 1h) over a
 * candlestick chart; "No chart data available" when a range has no candles. Beside them, the
 * timeframes M1 … D1 (DESIGN §18; keys 1–7): choosing one shows that timeframe's candles, older
 * ones loading as the trader scrolls back, live from the price socket; choosing a range goes back
 * to the spec's chart. The trader's indicators are those of the chart layout's first panel
 * (docs/decisions.md). The trader's position and pending orders in the pair show as labelled
 * lines, movable by drag or from the list under the chart after a confirmation
 * (docs/screens.md#chart-lines).
 *
 * The chart box carries what it shows for tests and tools: `data-range` (or `data-timeframe`),
 * `data-candles` (how many) and `data-candle-times` (their open times in epoch ms, comma-separated).
 */
export function PriceChart({ pair, stream, positions = NONE, pendingOrders = NONE, onLineChanged }: PriceChartProps) {
  const [range, setRange] = useState<ChartRange>(DEFAULT_CHART_RANGE);
  const [timeframe, setTimeframe] = useState<Timeframe | null>(null);
  // First: it subscribes the socket to the timeframe shown, before the range's live candles ask for the spec's '1m'.
  const history = useTimeframeCandles(pair.symbol, timeframe, stream);
  const rangeChart = useChartData(pair.symbol, range, { enabled: timeframe === null });
  const live = range === LIVE_CHART_RANGE && timeframe === null;
  const rangeCandles = useLiveCandles(rangeChart.data, stream, live, CHART_RANGES[range].count);
  const candles = timeframe ? history.candles : rangeCandles;
  const loaded = timeframe ? !history.isPending && !history.isError : rangeChart.data !== undefined;
  const lines = useMemo(() => chartLines(pair.symbol, positions, pendingOrders), [pair.symbol, positions, pendingOrders]);
  const edits = useLineEdits(lines, pair.digits, onLineChanged);
  const layout = useEditableLayout();
  const indicators = layout.layout?.charts[0]?.indicators ?? NO_INDICATORS;
  const panes = indicators.filter((i) => !isOverlay(i)).length;
  useTimeframeHotkeys(setTimeframe);

  const chooseRange = (next: ChartRange) => {
    setTimeframe(null);
    setRange(next);
  };
  const changeIndicators = (next: Indicator[]) =>
    layout.update((l) => ({ ...l, charts: l.charts.map((c, i) => (i === 0 ? { ...c, indicators: next } : c)) }));

  return (
    <Card
      className="price-chart-card"
      aria-label="Price Chart"
      title="Price Chart"
      flush
      actions={
        <div className="chart-toolbar">
          <RangeButtons<ChartRange | typeof NO_RANGE>
            legend="Chart range"
            className="range-buttons"
            ranges={CHART_RANGE_BUTTONS}
            value={timeframe ? NO_RANGE : range}
            onChange={(r) => {
              if (r !== NO_RANGE) chooseRange(r);
            }}
          />
          <TimeframeButtons value={timeframe} onChange={setTimeframe} />
          <IndicatorsControl indicators={indicators} onChange={changeIndicators} />
        </div>
      }
    >
      <div
        className="price-chart"
        data-testid="price-chart"
        data-range={timeframe ? undefined : range}
        data-timeframe={timeframe ?? undefined}
        data-candles={loaded ? candles.length : undefined}
        data-candle-times={loaded ? candles.map((c) => c.time).join(',') : undefined}
        data-panes={panes > 0 ? panes : undefined}
        style={panes > 0 ? ({ '--chart-panes': panes } as CSSProperties) : undefined}
      >
        <Suspense fallback={null}>
          <ChartView
            candles={candles}
            digits={pair.digits}
            view={`${pair.symbol}:${timeframe ?? range}`}
            symbol={pair.symbol}
            timeframe={timeframe}
            indicators={indicators}
            initialCandles={timeframe ? TIMEFRAME_INITIAL_CANDLES : undefined}
            onNearStart={timeframe ? history.loadOlder : undefined}
            lines={edits.shown}
            onLineDrop={edits.dropped}
            onLineOpen={edits.open}
          />
        </Suspense>
        <ChartLegend candle={candles.at(-1)} digits={pair.digits} />
        <LoadState
          className="price-chart__state"
          loading={timeframe ? history.isPending : rangeChart.isPending}
          loadingText="Loading chart..."
          error={(timeframe ? history.isError : rangeChart.isError) ? 'Failed to load chart data' : null}
          onRetry={() => (timeframe ? history.refetch() : void rangeChart.refetch())}
          empty={candles.length === 0 ? NO_CHART_DATA_TEXT : null}
        />
      </div>
      {edits.error && (
        <div className="price-chart__notice">
          <Alert tone="error" title={edits.error.title} dismissible onDismiss={edits.dismissError}>
            {edits.error.message}
          </Alert>
        </div>
      )}
      <ChartLinesList lines={edits.shown} digits={pair.digits} onMove={edits.open} />
      {edits.edit && (
        <LineDialog
          edit={edits.edit}
          digits={pair.digits}
          onType={edits.type}
          onConfirm={() => void edits.confirm()}
          onCancel={edits.cancel}
        />
      )}
    </Card>
  );
}
