import type { EquityCurveRange } from '@pipdesk/contract';
import { lazy, Suspense, useState } from 'react';
import { Card, LoadState, RangeButtons } from '../../components';
import { useEquityCurve } from './api';
import { describeEquityCurve } from './format';

// The charting library is a third of the app's code: it loads when the curve first draws.
const EquityChart = lazy(() => import('./EquityChart').then((m) => ({ default: m.EquityChart })));

/** The range buttons, in order; All by default, the whole period the statistics cover. */
export const EQUITY_RANGE_BUTTONS: ReadonlyArray<{ range: EquityCurveRange; label: string }> = [
  { range: '1w', label: '1W' },
  { range: '1m', label: '1M' },
  { range: 'all', label: 'All' },
];
export const DEFAULT_EQUITY_RANGE: EquityCurveRange = 'all';

export const NO_EQUITY_POINTS_TEXT = 'No equity history yet: the curve starts with your first trade.';
export const EQUITY_LOAD_FAILED = 'Failed to load the equity curve';

/**
 * The Equity Curve card: equity and balance over time with 1W / 1M / All. The drawing is a
 * canvas, so the chart's figure has the curve in words as its caption, for screen readers (not
 * role="img": the chart holds a link, which an image may not contain). The box also carries
 * `data-range` and `data-points` (how many points it was given) for tests and tools.
 */
export function EquityCurveCard() {
  const [range, setRange] = useState<EquityCurveRange>(DEFAULT_EQUITY_RANGE);
  const curve = useEquityCurve(range);
  const points = curve.data ?? [];

  return (
    <Card
      className="equity-card"
      aria-label="Equity Curve"
      title="Equity Curve"
      flush
      actions={
        <RangeButtons
          legend="Equity curve range"
          className="perf-range-buttons"
          ranges={EQUITY_RANGE_BUTTONS}
          value={range}
          onChange={setRange}
        />
      }
    >
      <figure
        className="equity-curve"
        data-testid="equity-curve"
        data-range={range}
        data-points={curve.data ? points.length : undefined}
      >
        <Suspense fallback={null}>
          <EquityChart points={points} view={range} />
        </Suspense>
        <figcaption className="sr-only">{curve.data ? describeEquityCurve(points) : 'Equity curve'}</figcaption>
      </figure>
      <p className="equity-legend" aria-hidden="true">
        <span className="equity-legend__equity">Equity</span>
        <span className="equity-legend__balance">Balance</span>
      </p>
      <LoadState
        className="equity-curve__state"
        loading={curve.isPending}
        loadingText="Loading equity curve..."
        error={curve.isError ? EQUITY_LOAD_FAILED : null}
        onRetry={() => void curve.refetch()}
        retrying={curve.isFetching}
        empty={points.length === 0 ? NO_EQUITY_POINTS_TEXT : null}
      />
    </Card>
  );
}
