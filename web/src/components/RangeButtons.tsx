import { Button } from './Button';

export interface RangeButtonsProps<R extends string> {
  /** The group's name for screen readers ("Chart range"). */
  legend: string;
  className?: string;
  /** The buttons, in order. */
  ranges: ReadonlyArray<{ range: R; label: string }>;
  /** The range shown: its button is pressed. */
  value: R;
  onChange: (range: R) => void;
}

/** A chart's range buttons (1H, 24H, …): one pressed at a time, a group with a name for screen readers. */
export function RangeButtons<R extends string>({ legend, className, ranges, value, onChange }: RangeButtonsProps<R>) {
  return (
    <fieldset className={className}>
      <legend className="sr-only">{legend}</legend>
      {ranges.map((b) => (
        <Button
          key={b.range}
          size="sm"
          variant={b.range === value ? 'primary' : 'ghost'}
          aria-pressed={b.range === value}
          onClick={() => onChange(b.range)}
        >
          {b.label}
        </Button>
      ))}
    </fieldset>
  );
}
