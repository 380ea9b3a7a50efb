import { TIMEFRAMES, type Timeframe } from '@pipdesk/contract';
import { RangeButtons } from '../../components';
import { useHotkeys } from '../tools/hotkeys';
import './chart.css';

/** The timeframe buttons, in the contract's order (keys 1–7 choose them in this order). */
export const TIMEFRAME_BUTTONS: ReadonlyArray<{ range: Timeframe; label: string }> = TIMEFRAMES.map((t) => ({
  range: t,
  label: t.toUpperCase(),
}));

/** The candles a timeframe view shows at first; older ones are a scroll back away. */
export const TIMEFRAME_INITIAL_CANDLES = 120;

/** Nothing pressed: the chart shows one of the spec's ranges. */
const NONE = '';

export interface TimeframeButtonsProps {
  /** The timeframe shown, or null when the chart shows one of the spec's ranges. */
  value: Timeframe | null;
  onChange: (timeframe: Timeframe) => void;
}

/** M1 … D1 (DESIGN §18): one pressed at a time, a group named "Chart timeframe" for screen readers. */
export function TimeframeButtons({ value, onChange }: TimeframeButtonsProps) {
  return (
    <RangeButtons<Timeframe | typeof NONE>
      legend="Chart timeframe"
      className="timeframe-buttons"
      ranges={TIMEFRAME_BUTTONS}
      value={value ?? NONE}
      onChange={(t) => {
        if (t !== NONE) onChange(t);
      }}
    />
  );
}

/** Keys 1–7 in the order of TIMEFRAMES: '1' is M1, '7' is D1. */
const TIMEFRAME_KEYS = TIMEFRAMES.map((_, i) => String(i + 1));

/**
 * Keys 1–7 choose M1 … D1 (DESIGN §18 hotkeys, listed in the `?` help) while `enabled`, with the
 * app's shortcut rules (features/tools/hotkeys.ts): not while typing in a field, not inside a
 * modal dialog, not with Ctrl, Alt or Meta.
 */
export function useTimeframeHotkeys(onChoose: (timeframe: Timeframe) => void, enabled = true): void {
  const bindings = Object.fromEntries(TIMEFRAME_KEYS.map((key, i) => [key, () => onChoose(TIMEFRAMES[i]!)]));
  useHotkeys(bindings, enabled);
}
