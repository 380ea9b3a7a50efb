import { formatPrice } from '@pipdesk/contract';
import { type KeyboardEvent, useEffect, useId, useRef } from 'react';
import { Button, Field, Input, Num } from '../../../components';
import type { LineEdit } from './useLineEdits';

export interface LineDialogProps {
  edit: LineEdit;
  digits: number;
  onType: (text: string) => void;
  onConfirm: () => void;
  onCancel: () => void;
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * The confirmation of a moved line (docs/screens.md#chart-lines): a modal dialog naming the line,
 * its current price and the new one (editable, so the keyboard can set any price). Escape or
 * Cancel puts the line back; focus stays inside while it is open and returns where it was.
 */
export function LineDialog({ edit, digits, onType, onConfirm, onCancel }: LineDialogProps) {
  const titleId = useId();
  const currentId = useId();
  const boxRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    inputRef.current?.focus();
    inputRef.current?.select();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
      return;
    }
    if (e.key !== 'Tab' || !boxRef.current) return;
    const items = [...boxRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="line-dialog__backdrop">
      <div
        ref={boxRef}
        className="line-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={currentId}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="line-dialog__title">
          Move {edit.line.name}
        </h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onConfirm();
          }}
        >
          <p id={currentId} className="line-dialog__current">
            Current price <Num>{formatPrice(edit.line.price, digits)}</Num>
          </p>
          <Field label="New price" error={edit.fieldError ?? undefined}>
            <Input
              ref={inputRef}
              inputMode="decimal"
              autoComplete="off"
              spellCheck={false}
              value={edit.text}
              disabled={edit.saving}
              onChange={(e) => onType(e.target.value)}
            />
          </Field>
          <div className="line-dialog__actions">
            <Button type="submit" variant="primary" busy={edit.saving}>
              {edit.saving ? 'Saving...' : 'Confirm'}
            </Button>
            <Button variant="secondary" disabled={edit.saving} onClick={onCancel}>
              Cancel
            </Button>
          </div>
        </form>
      </div>
    </div>
  );
}
