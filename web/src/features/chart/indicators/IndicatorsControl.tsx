import {
  INDICATOR_KINDS,
  type Indicator,
  type IndicatorKind,
  indicatorSchema,
  MAX_INDICATORS_PER_CHART,
} from '@pipdesk/contract';
import { useId, useRef, useState } from 'react';
import { Button } from '../../../components';
import { defaultIndicator, INDICATOR_PARAMS, INDICATOR_TITLES, indicatorLabel, paramValue } from './labels';

export interface IndicatorsControlProps {
  indicators: readonly Indicator[];
  /** A new list: one added or removed, or a parameter changed to a value the contract accepts. */
  onChange: (indicators: Indicator[]) => void;
}

/**
 * One indicator's parameters as fields. A typed value goes to the chart as soon as the contract's
 * indicatorSchema accepts it; until then the field says what is wrong and the chart keeps the last good one.
 */
function IndicatorRow({
  indicator,
  onChange,
  onRemove,
}: {
  indicator: Indicator;
  onChange: (next: Indicator) => void;
  onRemove: () => void;
}) {
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [error, setError] = useState<{ key: string; message: string } | null>(null);
  const errorId = useId();
  const label = indicatorLabel(indicator);

  const type = (key: string, text: string) => {
    setDrafts((d) => ({ ...d, [key]: text }));
    const value = text.trim() === '' ? Number.NaN : Number(text);
    const parsed = indicatorSchema.safeParse({ ...indicator, [key]: value });
    if (parsed.success) {
      setError(null);
      onChange(parsed.data);
    } else setError({ key, message: parsed.error.issues[0]?.message ?? 'is invalid' });
  };

  return (
    <li className="indicators-control__item">
      <span className="indicators-control__name">{label}</span>
      {INDICATOR_PARAMS[indicator.kind].map((p) => (
        <label key={p.key} className="indicators-control__param">
          <span>{p.label}</span>
          <input
            type="number"
            inputMode="decimal"
            step={p.key === 'stddev' ? 0.1 : 1}
            value={drafts[p.key] ?? String(paramValue(indicator, p.key))}
            aria-label={`${INDICATOR_TITLES[indicator.kind]} ${p.label}`}
            aria-invalid={error?.key === p.key || undefined}
            aria-describedby={error?.key === p.key ? errorId : undefined}
            onChange={(e) => type(p.key, e.target.value)}
            onBlur={() => {
              // Leaving a field with a refused value shows the value in force again.
              setDrafts((d) => {
                const { [p.key]: _left, ...rest } = d;
                return rest;
              });
              setError(null);
            }}
          />
        </label>
      ))}
      <Button size="sm" variant="ghost" aria-label={`Remove ${label}`} onClick={onRemove}>
        Remove
      </Button>
      {error && (
        <span id={errorId} className="indicators-control__error" role="alert">
          {INDICATOR_PARAMS[indicator.kind].find((p) => p.key === error.key)?.label} {error.message}
        </span>
      )}
    </li>
  );
}

/**
 * The "Indicators" button and its panel (docs/charting.md#indicators): the chart's indicators with
 * their parameters, a Remove button each, and a list to add one (at most MAX_INDICATORS_PER_CHART).
 * Escape closes the panel and gives the focus back to the button.
 */
export function IndicatorsControl({ indicators, onChange }: IndicatorsControlProps) {
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<IndicatorKind>('sma');
  const panelId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const full = indicators.length >= MAX_INDICATORS_PER_CHART;

  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };

  return (
    <div className="indicators-control">
      <Button
        ref={buttonRef}
        size="sm"
        variant={open ? 'primary' : 'ghost'}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
      >
        Indicators{indicators.length > 0 ? ` (${indicators.length})` : ''}
      </Button>
      {open && (
        <section
          id={panelId}
          className="indicators-control__panel"
          aria-label="Indicator settings"
          onKeyDown={(e) => {
            if (e.key === 'Escape') close();
          }}
        >
          {indicators.length === 0 ? (
            <p>No indicators on this chart.</p>
          ) : (
            <ul className="indicators-control__list">
              {indicators.map((indicator, i) => (
                <IndicatorRow
                  // biome-ignore lint/suspicious/noArrayIndexKey: the same indicator may be listed twice; the place is its identity
                  key={`${i}-${indicator.kind}`}
                  indicator={indicator}
                  onChange={(next) => onChange(indicators.map((x, j) => (j === i ? next : x)))}
                  onRemove={() => onChange(indicators.filter((_, j) => j !== i))}
                />
              ))}
            </ul>
          )}
          <div className="indicators-control__add">
            <label>
              <span className="sr-only">Indicator to add</span>
              <select value={kind} onChange={(e) => setKind(e.target.value as IndicatorKind)} disabled={full}>
                {INDICATOR_KINDS.map((k) => (
                  <option key={k} value={k}>
                    {INDICATOR_TITLES[k]}
                  </option>
                ))}
              </select>
            </label>
            <Button size="sm" disabled={full} onClick={() => onChange([...indicators, defaultIndicator(kind)])}>
              Add
            </Button>
            <Button size="sm" variant="ghost" onClick={close}>
              Close
            </Button>
          </div>
          {full && <p>At most {MAX_INDICATORS_PER_CHART} indicators on a chart.</p>}
        </section>
      )}
    </div>
  );
}
