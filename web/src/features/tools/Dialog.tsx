import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import { CloseIcon } from '../../components';
import './tools.css';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** The control focused on opening; else the first one in the dialog. */
  initialFocus?: RefObject<HTMLElement | null>;
  /** `alertdialog` for a question that needs an answer (a confirmation). */
  role?: 'dialog' | 'alertdialog';
  className?: string;
}

/**
 * A modal dialog of the trader's tools (docs/charting.md#one-click-trading-and-hotkeys): drawn
 * over the page (a portal, so a chart's overflow cannot clip it), focus inside while it is open
 * and back where it was after, Esc or the close button closes it.
 */
export function Dialog({ title, onClose, children, initialFocus, role = 'dialog', className }: DialogProps) {
  const titleId = useId();
  const boxRef = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const first = initialFocus?.current ?? boxRef.current?.querySelector<HTMLElement>(FOCUSABLE) ?? boxRef.current;
    first?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, [initialFocus]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close.current();
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

  const body = (
    <>
      <div className="tool-dialog__head">
        <h2 id={titleId} className="tool-dialog__title">
          {title}
        </h2>
        <button type="button" className="icon-btn tool-dialog__close" aria-label="Close" onClick={() => close.current()}>
          <CloseIcon />
        </button>
      </div>
      {children}
    </>
  );
  const boxClass = ['tool-dialog', className].filter(Boolean).join(' ');
  // Two literal roles, so the linter can check each one's ARIA.
  return createPortal(
    <div className="tool-dialog__backdrop">
      {role === 'alertdialog' ? (
        <div
          ref={boxRef}
          className={boxClass}
          role="alertdialog"
          aria-modal="true"
          aria-labelledby={titleId}
          tabIndex={-1}
          onKeyDown={onKeyDown}
        >
          {body}
        </div>
      ) : (
        <div
          ref={boxRef}
          className={boxClass}
          role="dialog"
          aria-modal="true"
          aria-labelledby={titleId}
          tabIndex={-1}
          onKeyDown={onKeyDown}
        >
          {body}
        </div>
      )}
    </div>,
    document.body,
  );
}
