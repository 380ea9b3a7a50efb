import type { EquityPointDto } from '@pipdesk/contract';
import type { UTCTimestamp } from 'lightweight-charts';

export interface ChartLine {
  time: UTCTimestamp;
  value: number;
}

/**
 * The points as the chart's two lines. The chart needs strictly rising times in whole seconds,
 * and several executions can share a second (a flip, a batch of triggers): the last point of a
 * second stands for it, as it is the state the trader was left in.
 */
export function toChartLines(points: readonly EquityPointDto[]): { equity: ChartLine[]; balance: ChartLine[] } {
  const equity: ChartLine[] = [];
  const balance: ChartLine[] = [];
  for (const p of points) {
    const ms = Date.parse(p.time);
    if (!Number.isFinite(ms)) continue;
    const time = Math.floor(ms / 1000) as UTCTimestamp;
    const last = equity.at(-1);
    if (last && time < last.time) continue;
    if (last && time === last.time) {
      equity.pop();
      balance.pop();
    }
    equity.push({ time, value: p.equity });
    balance.push({ time, value: p.balance });
  }
  return { equity, balance };
}
