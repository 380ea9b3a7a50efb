import type { ChartPanel as ChartPanelValue, FxPair, Indicator, Timeframe } from '@pipdesk/contract';
import { type CSSProperties, useId } from 'react';
import { Card, LoadState } from '../../components';
import { usePriceStream } from '../market/priceStream';
import { useSelectedPracticeAccount } from '../replay/ReplayBar';
import { ChartView } from './ChartView';
import { IndicatorsControl } from './indicators/IndicatorsControl';
import { isOverlay } from './indicators/labels';
import { TIMEFRAME_INITIAL_CANDLES, TimeframeButtons } from './timeframes';
import { useTimeframeCandles } from './useTimeframeCandles';

export interface ChartPanelProps {
  /** Its place in the layout, from 0. */
  index: number;
  panel: ChartPanelValue;
  /** The catalogue's pairs (the pair list and each pair's digits). */
  pairs: readonly FxPair[];
  /** Keys 1–7 change this panel's timeframe (the one last clicked or focused). */
  active: boolean;
  onChange: (panel: ChartPanelValue) => void;
  onActivate: () => void;
}

/**
 * One chart of the Charts page (docs/screens.md#charts-page): its pair, timeframe and
 * indicators, live from a price socket of its own, older candles as the trader scrolls back.
 */
export function ChartPanel({ index, panel, pairs, active, onChange, onActivate }: ChartPanelProps) {
  const pairId = useId();
  // On a practice account the panel plays its session's market, as the pair page does (docs/replay.md#the-price-socket-of-a-practice-account).
  const practiceAccount = useSelectedPracticeAccount();
  const stream = usePriceStream(panel.symbol, practiceAccount === undefined ? undefined : { account: practiceAccount });
  const history = useTimeframeCandles(panel.symbol, panel.timeframe, stream);
  const digits = pairs.find((p) => p.symbol === panel.symbol)?.digits ?? 5;
  const panes = panel.indicators.filter((i) => !isOverlay(i)).length;
  const symbols = pairs.some((p) => p.symbol === panel.symbol)
    ? pairs.map((p) => p.symbol)
    : [panel.symbol, ...pairs.map((p) => p.symbol)];

  return (
    <Card
      className="chart-panel"
      aria-label={`Chart ${index + 1}: ${panel.symbol} ${panel.timeframe.toUpperCase()}`}
      data-active={active || undefined}
      flush
      onFocusCapture={onActivate}
      onPointerDownCapture={onActivate}
      actions={
        <div className="chart-panel__toolbar">
          <label htmlFor={pairId} className="sr-only">
            Pair of chart {index + 1}
          </label>
          <select id={pairId} value={panel.symbol} onChange={(e) => onChange({ ...panel, symbol: e.target.value })}>
            {symbols.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <TimeframeButtons value={panel.timeframe} onChange={(timeframe: Timeframe) => onChange({ ...panel, timeframe })} />
          <IndicatorsControl
            indicators={panel.indicators}
            onChange={(indicators: Indicator[]) => onChange({ ...panel, indicators })}
          />
        </div>
      }
    >
      <div
        className="chart-panel__box"
        data-testid={`chart-panel-${index}`}
        data-symbol={panel.symbol}
        data-timeframe={panel.timeframe}
        data-candles={history.isPending ? undefined : history.candles.length}
        style={{ '--chart-panes': panes } as CSSProperties}
      >
        <ChartView
          candles={history.candles}
          digits={digits}
          view={`${panel.symbol}:${panel.timeframe}`}
          symbol={panel.symbol}
          timeframe={panel.timeframe}
          indicators={panel.indicators}
          initialCandles={TIMEFRAME_INITIAL_CANDLES}
          onNearStart={history.loadOlder}
        />
        <LoadState
          className="price-chart__state"
          loading={history.isPending}
          loadingText="Loading chart..."
          error={history.isError ? 'Failed to load chart data' : null}
          onRetry={history.refetch}
          empty={history.candles.length === 0 ? 'No chart data available' : null}
        />
      </div>
    </Card>
  );
}
