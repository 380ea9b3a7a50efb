import { useEffect, useRef } from 'react';

// The app's keyboard shortcuts (docs/charting.md#one-click-trading-and-hotkeys): one listener
// per hook on the window, keys written as 'b', '?', 'alt+a', 'escape'.

/** What the help dialog lists, in its order; the timeframes' keys belong to the chart. */
export const HOTKEY_LIST: ReadonlyArray<{ keys: string; action: string }> = [
  { keys: 'B', action: 'Buy at the order ticket’s lot size (pair page), confirmed unless one-click trading is on' },
  { keys: 'S', action: 'Sell at the order ticket’s lot size (pair page), confirmed unless one-click trading is on' },
  { keys: 'Alt+A', action: 'Set a price alert at the crosshair (on a chart)' },
  { keys: '1–7', action: 'Chart timeframe: M1, M5, M15, M30, H1, H4, D1' },
  { keys: 'Esc', action: 'Close a dialog' },
  { keys: '?', action: 'Show these keyboard shortcuts' },
];

/**
 * True when a key press belongs to what the trader is typing: a text field, a list, an
 * editable region. A shortcut then stays a letter (typing 0.5 in Lot Size must not sell).
 */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  // Buttons, checkboxes and radios take no text: a shortcut still works with one focused.
  const type = (target as HTMLInputElement).type;
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(type);
}

/** True while the key press happens inside a modal dialog: that dialog's keys are its own. */
function insideModal(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('[aria-modal="true"]') !== null;
}

/**
 * Whether `event` is the shortcut `combo`. A letter with Alt is matched by its key position
 * (`code`), since Alt+A types "å" on a Mac; a letter without modifiers only when no Ctrl, Alt
 * or Meta is held (Ctrl+S stays the browser's). A symbol such as '?' is matched by what it
 * types, whatever Shift it took.
 */
export function matchesHotkey(event: KeyboardEvent, combo: string): boolean {
  const parts = combo.toLowerCase().split('+');
  const key = parts.at(-1) ?? '';
  const alt = parts.includes('alt');
  const ctrl = parts.includes('ctrl');
  if (event.altKey !== alt || event.ctrlKey !== ctrl || event.metaKey) return false;
  if (/^[a-z]$/.test(key)) {
    if (alt) return event.code === `Key${key.toUpperCase()}`;
    return !event.shiftKey && event.key.toLowerCase() === key;
  }
  if (/^[0-9]$/.test(key)) return !event.shiftKey && event.key === key;
  return event.key.toLowerCase() === key;
}

/** A shortcut's action; `false` when it is not this one's to take (another chart is active), so the next binding may. */
export type HotkeyBindings = Readonly<Record<string, (event: KeyboardEvent) => unknown>>;

/**
 * Calls the binding of a pressed shortcut, anywhere on the page, unless the trader is typing
 * in a field or the key is pressed inside a modal dialog (Esc is each dialog's own). The
 * bindings may change on every render; the listener stays.
 */
export function useHotkeys(bindings: HotkeyBindings, enabled = true): void {
  const current = useRef(bindings);
  current.current = bindings;
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.repeat) return;
      if (isTypingTarget(event.target) || insideModal(event.target)) return;
      for (const [combo, run] of Object.entries(current.current)) {
        if (!matchesHotkey(event, combo) || run(event) === false) continue;
        event.preventDefault();
        return;
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [enabled]);
}
