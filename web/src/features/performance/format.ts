import type { EquityPointDto } from '@pipdesk/contract';
import { formatDate } from '../../components';
import { formatUsd } from '../trading/format';

// Figures of the performance screen. Money goes through the app's one money format
// (docs/screens.md#formatting); the answer already carries money and percentages at 2 decimals
// (docs/performance.md), so these only print them.

/** What the screen shows for a figure with nothing to measure yet. */
export const NO_FIGURE = '—';

/** A percentage with 2 decimals: "62.50%". */
export function formatPercent(value: number): string {
  return `${normalizeZero(value).toFixed(2)}%`;
}

/** A change in percent, always signed: "+1.25%", "-3.40%", "0.00%". */
export function formatSignedPercent(value: number): string {
  const v = normalizeZero(value);
  return `${v > 0 ? '+' : ''}${v.toFixed(2)}%`;
}

/** A ratio with 2 decimals (profit factor): "1.85". */
export function formatRatio(value: number): string {
  return normalizeZero(value).toFixed(2);
}

/** A count of trades: "1 trade", "3 trades". */
export function formatTrades(count: number): string {
  return `${count} ${count === 1 ? 'trade' : 'trades'}`;
}

function normalizeZero(value: number): number {
  return Math.abs(value) < 0.005 ? 0 : value;
}

/**
 * The equity curve in words, the chart's text alternative: its dates, where equity started and
 * ended, its highest and lowest points and the balance now.
 */
export function describeEquityCurve(points: readonly EquityPointDto[]): string {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return 'Equity curve: no points yet.';
  let high = first.equity;
  let low = first.equity;
  for (const p of points) {
    if (p.equity > high) high = p.equity;
    if (p.equity < low) low = p.equity;
  }
  const from = formatDate(first.time);
  const to = formatDate(last.time);
  const span = from === to ? `on ${from}` : `from ${from} to ${to}`;
  return (
    `Equity curve ${span}, ${points.length} ${points.length === 1 ? 'point' : 'points'}: ` +
    `equity ${formatUsd(first.equity)} at the start and ${formatUsd(last.equity)} at the end, ` +
    `highest ${formatUsd(high)}, lowest ${formatUsd(low)}; balance ${formatUsd(last.balance)}.`
  );
}
