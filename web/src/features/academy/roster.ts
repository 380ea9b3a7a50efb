import type { RosterFlag, RosterRowDto } from '@pipdesk/contract';
import type { Tone } from '../../components';

/** Each roster flag as a badge (docs/screens.md#academy). */
export const FLAG_BADGES: Readonly<Record<RosterFlag, { label: string; tone: Tone; title: string }>> = {
  margin_call: { label: 'Margin call', tone: 'loss', title: 'Margin level at or under the margin call level' },
  no_stop_loss: { label: 'No stop loss', tone: 'warning', title: 'An open position has no stop loss' },
  high_exposure: { label: 'High exposure', tone: 'warning', title: 'Margin level under 200%' },
  inactive_7d: { label: 'Inactive 7 days', tone: 'neutral', title: 'No trade in the last 7 days' },
};

/** The columns the roster sorts by. */
export type RosterSortKey =
  | 'name'
  | 'equity'
  | 'open_positions'
  | 'today_pnl'
  | 'return_pct'
  | 'max_drawdown_pct'
  | 'closed_trades'
  | 'win_rate'
  | 'last_trade_at'
  | 'flags';

export interface RosterSort {
  key: RosterSortKey;
  direction: 'asc' | 'desc';
}

/** By name, A to Z, until the instructor picks a column. */
export const DEFAULT_ROSTER_SORT: RosterSort = { key: 'name', direction: 'asc' };

function sortValue(row: RosterRowDto, key: RosterSortKey): string | number | null {
  switch (key) {
    case 'name':
      return row.user.full_name.toLocaleLowerCase('en-US');
    case 'equity':
      return row.account?.equity ?? null;
    case 'last_trade_at':
      return row.last_trade_at === null ? null : Date.parse(row.last_trade_at);
    case 'flags':
      return row.flags.length;
    default:
      return row[key];
  }
}

/**
 * The roster in the chosen order. A missing figure (no account, no trade yet) goes last in
 * either direction: it is no answer, not a small one. Ties keep the name order, so rows do not
 * jump at each refresh.
 */
export function sortRoster(rows: readonly RosterRowDto[], sort: RosterSort): RosterRowDto[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  const byName = (a: RosterRowDto, b: RosterRowDto) =>
    a.user.full_name.localeCompare(b.user.full_name, 'en-US') || a.user.id - b.user.id;
  return [...rows].sort((a, b) => {
    const va = sortValue(a, sort.key);
    const vb = sortValue(b, sort.key);
    if (va === null || vb === null) return va === vb ? byName(a, b) : va === null ? 1 : -1;
    const order = typeof va === 'string' ? va.localeCompare(String(vb), 'en-US') : va - (vb as number);
    return order * sign || byName(a, b);
  });
}

/** A click on a column: the same column flips its direction; another starts with its natural one (figures high first). */
export function nextSort(current: RosterSort, key: RosterSortKey): RosterSort {
  if (current.key === key) return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { key, direction: key === 'name' ? 'asc' : 'desc' };
}
