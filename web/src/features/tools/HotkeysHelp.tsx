import { useState } from 'react';
import { Dialog } from './Dialog';
import { HOTKEY_LIST, useHotkeys } from './hotkeys';

/**
 * The keyboard shortcuts' help (docs/charting.md#one-click-trading-and-hotkeys): `?` opens it on
 * any signed-in page, Esc closes it. Mount it once, in the layout.
 */
export function HotkeysHelp() {
  const [open, setOpen] = useState(false);
  useHotkeys({ '?': () => setOpen(true) });
  if (!open) return null;
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => setOpen(false)} className="tool-dialog--wide">
      <p className="tool-dialog__text">Shortcuts do nothing while you type in a field.</p>
      <dl className="hotkey-list">
        {HOTKEY_LIST.map((hotkey) => (
          <div key={hotkey.keys}>
            <dt>
              <kbd>{hotkey.keys}</kbd>
            </dt>
            <dd>{hotkey.action}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
