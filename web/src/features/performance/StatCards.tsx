import type { PerformanceDto } from '@pipdesk/contract';
import { Num } from '../../components';
import { formatPnl, formatUsd } from '../trading/format';
import { formatPercent, formatRatio, formatSignedPercent, formatTrades, NO_FIGURE } from './format';

/** One stat card: its figure, or why there is none yet. */
interface Stat {
  /** Names the figure for tests and tools (`data-testid="perf-<key>"`). */
  key: string;
  label: string;
  /** The figure as shown, or null when there is nothing to measure yet. */
  value: string | null;
  /** Colours the figure as a profit or a loss. */
  sign?: number;
  /** A line under the figure: how it is made, or its parts. */
  detail?: string;
  /** Shown instead of `detail` when the figure is null: why there is none. */
  whyNone: string;
}

const maybe = <T,>(value: T | null, format: (v: T) => string) => (value === null ? null : format(value));

/** The stat cards of docs/performance.md#definitions, in the order a trader reads them. */
export function performanceStats(p: PerformanceDto): Stat[] {
  return [
    {
      key: 'net-pnl',
      label: 'Net P&L',
      value: formatPnl(p.net_pnl),
      sign: p.net_pnl,
      detail: `Realized over ${formatTrades(p.closed_trades)}`,
      whyNone: '',
    },
    {
      key: 'return',
      label: 'Return',
      value: maybe(p.return_pct, formatSignedPercent),
      sign: p.return_pct ?? undefined,
      detail: `Equity ${formatUsd(p.equity)} from ${formatUsd(p.start_balance)}`,
      whyNone: 'No positive starting balance to measure a return against',
    },
    {
      key: 'win-rate',
      label: 'Win rate',
      value: maybe(p.win_rate, formatPercent),
      detail: `${p.wins} won, ${p.losses} lost, ${p.breakevens} breakeven`,
      whyNone: 'No winning or losing trade yet (breakevens do not count)',
    },
    {
      key: 'profit-factor',
      label: 'Profit factor',
      value: maybe(p.profit_factor, formatRatio),
      detail: 'Gross profit ÷ gross loss',
      whyNone: 'No losing trade yet, so there is no loss to divide by',
    },
    {
      key: 'expectancy',
      label: 'Expectancy',
      value: maybe(p.expectancy, formatPnl),
      sign: p.expectancy ?? undefined,
      detail: 'Average P&L per closed trade',
      whyNone: 'No closed trade yet',
    },
    {
      key: 'max-drawdown',
      label: 'Max drawdown',
      value: formatPercent(p.max_drawdown_pct),
      sign: p.max_drawdown_pct > 0 ? -1 : undefined,
      detail: 'Largest fall of equity from a peak',
      whyNone: '',
    },
    {
      key: 'average-win',
      label: 'Average win',
      value: maybe(p.average_win, formatPnl),
      sign: p.average_win ?? undefined,
      detail: `Over ${p.wins} ${p.wins === 1 ? 'win' : 'wins'}`,
      whyNone: 'No winning trade yet',
    },
    {
      key: 'average-loss',
      label: 'Average loss',
      value: maybe(p.average_loss, formatPnl),
      sign: p.average_loss ?? undefined,
      detail: `Over ${p.losses} ${p.losses === 1 ? 'loss' : 'losses'}`,
      whyNone: 'No losing trade yet',
    },
    {
      key: 'largest-win',
      label: 'Largest win',
      value: maybe(p.largest_win, formatPnl),
      sign: p.largest_win ?? undefined,
      detail: 'Best closed trade',
      whyNone: 'No winning trade yet',
    },
    {
      key: 'largest-loss',
      label: 'Largest loss',
      value: maybe(p.largest_loss, formatPnl),
      sign: p.largest_loss ?? undefined,
      detail: 'Worst closed trade',
      whyNone: 'No losing trade yet',
    },
    {
      key: 'win-streak',
      label: 'Longest winning streak',
      value: formatTrades(p.longest_win_streak),
      detail: 'Wins in a row',
      whyNone: '',
    },
    {
      key: 'loss-streak',
      label: 'Longest losing streak',
      value: formatTrades(p.longest_loss_streak),
      detail: 'Losses in a row',
      whyNone: '',
    },
  ];
}

/**
 * The statistics as cards. A figure with nothing to measure reads "—" with the reason beside
 * it (a trader with no loss has no profit factor, not an infinite one).
 */
export function StatCards({ performance }: { performance: PerformanceDto }) {
  return (
    <section aria-label="Statistics">
      <dl className="stat-cards">
        {performanceStats(performance).map((s) => (
          <div key={s.key} className="stat-card">
            <dt className="stat-card__label">{s.label}</dt>
            <dd className="stat-card__value">
              <Num signOf={s.value === null ? undefined : s.sign} data-testid={`perf-${s.key}`}>
                {s.value ?? NO_FIGURE}
              </Num>
            </dd>
            <dd className="stat-card__detail">{s.value === null ? s.whyNone : s.detail}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
