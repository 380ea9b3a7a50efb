import { TIMEFRAMES, type Timeframe } from '@pipdesk/contract';
import { useEffect, useRef } from 'react';
import { RangeButtons } from '../../components';
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

/** A key press the trader is typing (a text field, a list, an editable region), not a shortcut. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true;
  if (target.tagName !== 'INPUT') return false;
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color'].includes((target as HTMLInputElement).type);
}

/**
 * Keys 1–7 choose M1 … D1 (DESIGN §18 hotkeys) while `enabled`, unless focus is in a field, a
 * modal dialog is open around it, or Ctrl, Alt or Meta is held.
 */
export function useTimeframeHotkeys(onChoose: (timeframe: Timeframe) => void, enabled = true): void {
  const choose = useRef(onChoose);
  choose.current = onChoose;
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.repeat || e.ctrlKey || e.altKey || e.metaKey || e.shiftKey) return;
      if (typing(e.target) || (e.target instanceof Element && e.target.closest('[aria-modal="true"]'))) return;
      const timeframe = /^[1-7]$/.test(e.key) ? TIMEFRAMES[Number(e.key) - 1] : undefined;
      if (!timeframe) return;
      e.preventDefault();
      choose.current(timeframe);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [enabled]);
}
