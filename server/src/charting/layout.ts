import { type ChartLayout, chartLayoutSchema, DEFAULT_CHART_LAYOUT } from '@pipdesk/contract';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/database.js';
import type { PairCatalog } from '../market/index.js';
import { activePair } from './drawings.js';
import * as repo from './repo.js';

// The trader's chart layout, indicators and chart settings (docs/charting.md#layouts-and-chart-settings).

export interface LayoutDeps {
  db: Db;
  clock: Clock;
  pairs: PairCatalog;
}

/**
 * GET trading/chart-layout/: the saved layout, or the default when none was saved. A saved one
 * that no longer reads as a layout (the schema moved on since it was kept) also gives the
 * default rather than an error the trader could not fix from a chart that will not open.
 */
export async function chartLayoutOf(deps: Pick<LayoutDeps, 'db'>, userId: number): Promise<ChartLayout> {
  const stored = await repo.findLayout(deps.db.kysely, userId);
  if (stored === undefined) return DEFAULT_CHART_LAYOUT;
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return DEFAULT_CHART_LAYOUT;
  }
  const read = chartLayoutSchema.safeParse(value);
  return read.success ? read.data : DEFAULT_CHART_LAYOUT;
}

/**
 * PUT trading/chart-layout/: the layout (already parsed by the contract's schema, symbols upper
 * case, defaults filled in) is kept when every chart's pair is active (else 404 naming it), and
 * answered as kept.
 */
export async function saveChartLayout(deps: LayoutDeps, userId: number, layout: ChartLayout): Promise<ChartLayout> {
  const kept: ChartLayout = {
    ...layout,
    charts: layout.charts.map((chart) => ({ ...chart, symbol: activePair(deps.pairs, chart.symbol).symbol })),
  };
  await repo.saveLayout(deps.db.kysely, userId, JSON.stringify(kept), deps.clock.now());
  return kept;
}
