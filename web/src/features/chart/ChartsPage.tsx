import { CHART_LAYOUTS, type ChartLayout, type ChartPanel as ChartPanelValue, type FxPair } from '@pipdesk/contract';
import { useState } from 'react';
import { Alert, Page, RangeButtons, Spinner } from '../../components';
import { usePlatformData } from '../trading/queries';
import { ChartPanel } from './ChartPanel';
import { useEditableLayout } from './layout';
import { useTimeframeHotkeys } from './timeframes';
import './chart.css';

type LayoutSize = ChartLayout['layout'];

const LAYOUT_BUTTONS: ReadonlyArray<{ range: `${LayoutSize}`; label: string }> = CHART_LAYOUTS.map((n) => ({
  range: `${n}`,
  label: n === 1 ? '1 chart' : `${n} charts`,
}));

/**
 * The layout with `size` charts: the first ones kept as they are, new places showing pairs not
 * shown yet, at the first chart's timeframe.
 */
export function resizeLayout(layout: ChartLayout, size: LayoutSize, pairs: readonly FxPair[]): ChartLayout {
  const charts = layout.charts.slice(0, size);
  const timeframe = charts[0]?.timeframe ?? 'h1';
  const unused = pairs.map((p) => p.symbol).filter((s) => !charts.some((c) => c.symbol === s));
  while (charts.length < size)
    charts.push({ symbol: unused.shift() ?? charts[0]?.symbol ?? 'EURUSD', timeframe, indicators: [] });
  return { ...layout, layout: size, charts };
}

/**
 * Route `/charts` (docs/screens.md#charts-page): one, two or four charts, each with its own pair,
 * timeframe and indicators; the layout is the trader's (GET trading/chart-layout/) and every change
 * is kept (PUT, after a pause). Keys 1–7 change the timeframe of the chart last clicked or focused.
 */
export function ChartsPage() {
  const edit = useEditableLayout();
  const platform = usePlatformData();
  const pairs = platform.data?.fx_pairs ?? [];
  const [active, setActive] = useState(0);
  const layout = edit.layout;
  const activeIndex = layout && active < layout.charts.length ? active : 0;

  const changePanel = (index: number, panel: ChartPanelValue) =>
    edit.update((l) => ({ ...l, charts: l.charts.map((c, i) => (i === index ? panel : c)) }));

  useTimeframeHotkeys((timeframe) => {
    const panel = layout?.charts[activeIndex];
    if (panel) changePanel(activeIndex, { ...panel, timeframe });
  }, layout !== null);

  return (
    <Page
      title="Charts"
      actions={
        layout && (
          <RangeButtons
            legend="Charts layout"
            className="range-buttons"
            ranges={LAYOUT_BUTTONS}
            value={`${layout.layout}`}
            onChange={(size) => edit.update((l) => resizeLayout(l, Number(size) as LayoutSize, pairs))}
          />
        )
      }
    >
      {edit.loadFailed && <Alert tone="warning">Your saved charts could not be loaded: the default chart is shown.</Alert>}
      {edit.saveFailed && <Alert tone="error">The last change to your charts was not saved.</Alert>}
      {!layout ? (
        <div className="pair-loading" role="status">
          <Spinner />
          <span>Loading charts...</span>
        </div>
      ) : (
        <div className="charts-grid" data-layout={layout.layout}>
          {layout.charts.map((panel, i) => (
            <ChartPanel
              // biome-ignore lint/suspicious/noArrayIndexKey: a panel is its place in the layout
              key={i}
              index={i}
              panel={panel}
              pairs={pairs}
              active={i === activeIndex}
              onChange={(next) => changePanel(i, next)}
              onActivate={() => setActive(i)}
            />
          ))}
        </div>
      )}
    </Page>
  );
}
