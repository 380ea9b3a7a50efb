import { type ReactNode, useState } from 'react';
import { CloseIcon } from './icons';

export interface AlertProps {
  tone?: 'error' | 'warning' | 'info' | 'success';
  title?: ReactNode;
  children?: ReactNode;
  /** Buttons after the message ("Try Again"). */
  actions?: ReactNode;
  /** Shows a Dismiss button; the alert hides itself and then calls `onDismiss`. */
  dismissible?: boolean;
  onDismiss?: () => void;
  className?: string;
}

/** A message banner. Errors are announced at once (role="alert"); the others politely. */
export function Alert({ tone = 'info', title, children, actions, dismissible = false, onDismiss, className }: AlertProps) {
  const [dismissed, setDismissed] = useState(false);
  if (dismissed) return null;
  return (
    <div
      className={['alert', `alert--${tone}`, className].filter(Boolean).join(' ')}
      role={tone === 'error' ? 'alert' : 'status'}
    >
      <div className="alert__content">
        {title && <p className="alert__title">{title}</p>}
        {children && <div className="alert__message">{children}</div>}
        {actions && <div className="alert__actions">{actions}</div>}
      </div>
      {dismissible && (
        <button
          type="button"
          className="alert__dismiss"
          aria-label="Dismiss"
          onClick={() => {
            setDismissed(true);
            onDismiss?.();
          }}
        >
          <CloseIcon />
        </button>
      )}
    </div>
  );
}
