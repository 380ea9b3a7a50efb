import { formatPrice } from '@pipdesk/contract';
import { Button, Num } from '../../../components';
import type { ChartLine } from './lines';

export interface ChartLinesListProps {
  lines: readonly ChartLine[];
  digits: number;
  onMove: (line: ChartLine) => void;
}

/**
 * The chart's lines as a list under it: what the canvas shows, readable by a screen reader, and
 * a Move button for each line that can move: the keyboard's way to the same confirmation as a drag.
 */
export function ChartLinesList({ lines, digits, onMove }: ChartLinesListProps) {
  if (lines.length === 0) return null;
  return (
    <ul className="chart-lines" aria-label="Chart lines">
      {lines.map((line) => (
        <li key={line.id} className={`chart-lines__item chart-lines__item--${line.tone}`} data-line-id={line.id}>
          <span className="chart-lines__label">{line.label}</span>
          <Num>{formatPrice(line.price, digits)}</Num>
          {line.target && (
            <Button size="sm" variant="ghost" aria-label={`Move ${line.name}`} onClick={() => onMove(line)}>
              Move
            </Button>
          )}
        </li>
      ))}
    </ul>
  );
}
